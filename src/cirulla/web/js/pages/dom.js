// Tiny DOM helpers for the pages: elements are built with properties and text nodes,
// never from HTML strings, so nothing the server sends (names!) is parsed as markup.

// h("button", {class: "primary", onclick: fn, dataset: {id}}, "text", child, ...)
// Attributes: "class", "dataset" (object), "on<event>" (listener), "style" (object),
// boolean true -> present, false/null/undefined -> absent, anything else -> setAttribute.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") el.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name === "style") Object.assign(el.style, value);
    else if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "value" || name === "checked" || name === "selected") el[name] = value;
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

// Replace the element's children.
export function fill(el, ...children) {
  clear(el);
  append(el, children);
  return el;
}

// An in-app link: the router intercepts clicks on a[data-link].
export function link(href, text, attrs = {}) {
  return h("a", { href, dataset: { link: "" }, ...attrs }, text);
}

// A link to a player's profile (here, not in player.js: the lobby and the table show
// names without loading the profile page's module).
export function playerLink(name, attrs = {}) {
  if (!name) return "?";
  return link(`/player/${encodeURIComponent(name)}`, name, { class: "player-link", ...attrs });
}

// A unique id for label/aria wiring.
let ids = 0;
export function uid(prefix = "c") {
  ids += 1;
  return `${prefix}-${ids}`;
}
