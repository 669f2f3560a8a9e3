// What a table tells the player besides the cards: banners (announcements), the hint
// line, and toasts (server errors). Shared by the Cirulla and the Cirulo tables.
import { h } from "./table-dom.js";

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
