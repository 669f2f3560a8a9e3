// Tiny DOM helpers for the pages: elements are built with properties and text nodes,
// never from HTML strings, so nothing the server sends (names!) is parsed as markup.
import { t } from "../i18n.js";

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

// The mark of a bot account (docs/bots.md, issue 17): a program plays under this name,
// so people see it wherever the name is shown (seats, lobby, profiles, leaderboards,
// history, replays, tournaments). Built-in server bots keep their level chip instead.
// A "BOT" badge; `owner` (when the data has it) is named in it; `cls` is the look of the
// place ("badge" on the pages, "chip" at the table). Here beside playerLink: shown with
// names, on the first page drawn.
export function botBadge({ owner = null, cls = "badge" } = {}) {
  return h("span", {
    class: [cls, "bot", "bot-account"],
    title: owner ? t("bot.badge.owner", { owner }) : t("bot.badge.title"),
  }, owner ? t("bot.badge.of", { owner }) : t("bot.badge"));
}

// A unique id for label/aria wiring.
let ids = 0;
export function uid(prefix = "c") {
  ids += 1;
  return `${prefix}-${ids}`;
}

// The rest of the stylesheets, when the page's HTML carried only the part its first paint
// needs (gateway/preload.py, <style data-full>): the whole bundle is added, and the part
// dropped once it has loaded (the whole one repeats the part's rules later in the same
// order, so nothing looks different meanwhile). Resolves then, or when it cannot load.
let styled = null;
export function whenStyled() {
  if (styled) return styled;
  const part = document.querySelector("style[data-full], link[rel='stylesheet'][data-full]");
  if (!part) return Promise.resolve();
  styled = new Promise((resolve) => {
    const whole = document.createElement("link");
    whole.rel = "stylesheet";
    whole.href = part.dataset.full;
    whole.addEventListener("load", () => {
      part.remove();
      resolve();
    });
    whole.addEventListener("error", () => {
      whole.remove(); // offline: the part stays, and the next call tries again
      styled = null;
      resolve();
    });
    part.after(whole);
  });
  return styled;
}
