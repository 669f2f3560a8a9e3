// Short notices at the bottom of the screen (errors from the server, "saved", ...).
import { h } from "./dom.js";

let region = null;

function ensureRegion() {
  if (region && region.isConnected) return region;
  region = h("div", { class: "toasts", role: "status", "aria-live": "polite" });
  document.body.appendChild(region);
  return region;
}

// kind: "info" | "error" | "ok"
export function notify(text, kind = "info", ms = 5000) {
  const box = ensureRegion();
  const item = h("div", { class: ["toast", `toast-${kind}`], role: kind === "error" ? "alert" : null }, text);
  box.appendChild(item);
  const remove = () => item.remove();
  item.addEventListener("click", remove);
  setTimeout(remove, ms);
  return item;
}
