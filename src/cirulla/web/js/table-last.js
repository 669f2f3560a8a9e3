// The last capture and the previous mano (docs/table-flow.md). Played cards are
// public, and the deal's history the server sends a seat holds only what that seat may
// see: both are read from it, nothing else. The capturing side's pile and seat are
// marked on the board; a small "Ultima presa" panel beside it shows which cards went
// where, with a button that shows the cards of the last finished mano (a round in
// which every player plays one card).
import { cardElement } from "./cards.js";
import { t } from "./i18n.js";
import { sideOf } from "./table-board.js";
import { h } from "./table-dom.js";
import { ask, describePlay } from "./table-panels.js";

function plays(deal) {
  return ((deal && deal.history) || []).filter((e) => e.type === "play");
}

// The last play of the smazzata that took cards (null before the first capture).
export function lastCapture(deal) {
  const list = plays(deal);
  for (let i = list.length - 1; i >= 0; i -= 1) if (list[i].captured && list[i].captured.length) return list[i];
  return null;
}

// The plays of the last mano finished in `deal` (null before the first one ends).
export function lastMano(deal, players) {
  const list = plays(deal);
  const done = Math.floor(list.length / players);
  return done ? list.slice((done - 1) * players, done * players) : null;
}

// Remembers the last finished mano across smazzate: at the start of a smazzata the
// previous mano is the last one of the smazzata before.
export class ManoMemory {
  constructor() {
    this.kept = null; // {deal, plays}
  }

  update(view) {
    const d = view && view.deal;
    if (!d) return this.kept;
    const mano = lastMano(d, view.config.players);
    if (mano) this.kept = { deal: view.deal_index, plays: mano };
    return this.kept;
  }
}

function playRow(e, seats, opts) {
  return h("li", { class: "mano-play", dataset: { seat: e.seat } },
    h("span", { class: "mano-text" }, describePlay(e, seats, opts)),
    h("span", { class: "mini-cards", "aria-hidden": "true" },
      cardElement(e.card, { ...opts, label: false }),
      e.captured.length ? h("span", { class: "took-arrow" }, "\u2192") : null,
      e.captured.map((c) => cardElement(c, { ...opts, label: false }))));
}

// Marks the board: the pile of the side that took last, and the seat that took.
export function markLastCapture(board, view) {
  const last = lastCapture(view.deal);
  if (!last || view.deal.is_over) return;
  const side = sideOf(last.seat, view.config.players);
  board.querySelector(`.pile[data-side="${side}"]`)?.classList.add("last-capture");
  board.querySelector(`.seat[data-seat="${last.seat}"]`)?.classList.add("last-capturer");
}

// The panel beside the board: the last capture, and the button for the previous mano.
export function lastPanel(view, memory, opts) {
  const d = view.deal;
  if (!d || view.status !== "playing") return null;
  const last = d.is_over ? null : lastCapture(d);
  const kept = memory.update(view);
  const seats = view.seats;
  const body = last
    ? h("div", { class: "last-capture-cards", dataset: { seat: last.seat, card: last.card }, role: "img", "aria-label": describePlay(last, seats, opts) },
        h("span", { class: "last-who" }, seats[last.seat] ? seats[last.seat].name : t("table.seat.empty", { n: last.seat + 1 })),
        h("span", { class: "mini-cards" },
          cardElement(last.card, { ...opts, label: false }),
          h("span", { class: "took-arrow", "aria-hidden": "true" }, "\u2192"),
          last.captured.map((c) => cardElement(c, { ...opts, label: false }))))
    : h("p", { class: "last-none" }, t("table.last.none"));
  const button = h("button", {
    type: "button",
    class: "previous-mano",
    disabled: !kept,
    onclick: () => showMano(kept, view, opts),
  }, t("table.mano.previous"));
  return h("section", { class: "last-panel", "aria-label": t("table.last.title") },
    h("h2", {}, t("table.last.title")), body, button);
}

function showMano(kept, view, opts) {
  if (!kept) return;
  const note = kept.deal !== view.deal_index ? h("p", { class: "mano-deal" }, t("table.mano.deal", { n: kept.deal + 1 })) : null;
  ask({
    title: t("table.mano.title"),
    className: "mano-dialog",
    body: h("div", {}, note, h("ol", { class: "mano-plays" }, kept.plays.map((e) => playRow(e, view.seats, opts)))),
    buttons: [{ value: "cancel", label: t("score.close"), primary: true }],
  });
}
