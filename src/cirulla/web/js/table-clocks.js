// The seats' clocks, counted down between the server's frames: the move clock of the
// seat to move and every seat's partita clock (both tables, Cirulla and Cirulo).
import { t } from "./i18n.js";
import { formatClock } from "./table-dom.js";

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
