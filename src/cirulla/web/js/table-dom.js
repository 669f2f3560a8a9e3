// The DOM of the table pages (Cirulla and Cirulo): a small element builder, the seats'
// clocks and what a table tells the player besides the cards (banners, the hint line,
// toasts). One module, as all of it is needed before the first move can be made. Text
// always goes in as text nodes (names come from the server: never as HTML); listeners
// are attached with addEventListener, so nothing depends on inline handlers.
import { t } from "./i18n.js";

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") {
      el.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    } else if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) el.dataset[k] = String(v);
    } else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.append(child);
    else el.append(document.createTextNode(String(child)));
  }
}

export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// mm:ss (or h:mm:ss) for a clock, never negative.
export function formatClock(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const hours = Math.floor(total / 3600);
  const mm = hours ? String(m).padStart(2, "0") : String(m);
  return `${hours ? `${hours}:` : ""}${mm}:${String(s).padStart(2, "0")}`;
}

// ---- clocks: counted down between the server's frames --------------------------------------
// The move clock of the seat to move and every seat's partita clock (both tables).
// `now` is the server's time in ms (the client's clock corrected for skew).
export function drawClocks(root, view, now) {
  const d = view.deal;
  const elapsed = Math.max(0, now - view.turn_since);
  const moving = d.is_over || view.forfeit ? null : d.to_move;
  for (const el of root.querySelectorAll(".move-clock")) {
    const s = Number(el.dataset.seat);
    if (s === moving && view.config.move_seconds) {
      const left = view.config.move_seconds * 1000 - elapsed;
      el.hidden = false;
      el.textContent = t("table.clock.move.short", { time: formatClock(left) });
      el.classList.toggle("low", left < 10000);
      el.setAttribute("aria-label", t("table.clock.move", { time: formatClock(left) }));
    } else {
      el.hidden = true;
    }
  }
  for (const el of root.querySelectorAll(".partita-clock")) {
    const s = Number(el.dataset.seat);
    const base = view.clocks ? view.clocks[s] : null;
    if (base === null || base === undefined) {
      el.hidden = true;
      continue;
    }
    const left = s === moving ? base - elapsed : base;
    el.hidden = false;
    el.textContent = t("table.clock.partita.short", { time: formatClock(left) });
    el.classList.toggle("low", left < 30000);
    el.setAttribute("aria-label", t("table.clock.partita", { time: formatClock(left) }));
  }
}

// ---- notices: banners (announcements), the hint line, toasts (server errors) ----------------
// `els` holds the table's announce, hint and toasts elements.
export function announce(els, text, kind = "info", ms = 3000) {
  const item = h("div", { class: ["banner", `banner-${kind}`], title: text }, text); // whole when cut
  els.announce.append(item);
  while (els.announce.children.length > 2) els.announce.firstChild.remove();
  setTimeout(() => item.remove(), kind === "big" ? 4500 : ms);
}

export function hint(els, text, kind = "info") {
  els.hint.textContent = text;
  els.hint.dataset.kind = kind;
}

export function toast(els, text, kind = "error") {
  const role = kind === "error" ? "alert" : "status";
  const item = h("div", { class: ["table-toast", `toast-${kind}`], role }, text);
  item.addEventListener("click", () => item.remove());
  els.toasts.append(item);
  setTimeout(() => item.remove(), 6000);
}
