// Drawing a smazzata as the server sent it: the seats around the table (the viewer at
// the bottom), names, dealer, whose turn, cards left in hand, hands one may see,
// declared cards face up, capture piles with their scope; the table cards; the hand.
// Used by the live table (table.js) and the replay viewer (replay.js). Pure drawing:
// the board never decides anything, it only shows a view.
import { backElement, cardElement, cardName, rankName } from "./cards.js";
import { plural, t } from "./i18n.js";
import { h } from "./table-dom.js";
import { botBadge } from "./pages/dom.js";

// Where each seat sits on screen: the bottom seat first, then in the order of play.
// Play goes anticlockwise by default (D2): the next player is on your right.
export function seatPlaces(players, bottom, clockwise = false) {
  const orders = {
    2: ["bottom", "top"],
    3: clockwise ? ["bottom", "left", "right"] : ["bottom", "right", "left"],
    4: clockwise ? ["bottom", "left", "top", "right"] : ["bottom", "right", "top", "left"],
  };
  const order = orders[players] || orders[4];
  const places = [];
  for (let s = 0; s < players; s += 1) places[s] = order[(s - bottom + players) % players];
  return places;
}

export function sideOf(seat, players) {
  return players === 4 ? seat % 2 : seat;
}

export function sideCount(players) {
  return players === 4 ? 2 : players;
}

function seatName(seats, s) {
  const seat = seats && seats[s];
  return seat ? seat.name : t("table.seat.empty", { n: s + 1 });
}

// "anna" or "anna + bruno": the players of a side.
export function sideName(seats, players, side) {
  const names = [];
  for (let s = 0; s < players; s += 1) if (sideOf(s, players) === side) names.push(seatName(seats, s));
  return names.join(" + ");
}

// The cards that made each side's scope this smazzata (from the deal's history).
function scopaCards(deal) {
  const out = Array.from({ length: deal.piles.length }, () => []);
  for (const e of deal.history || []) {
    if (e.type === "play" && e.scopa) out[sideOf(e.seat, deal.players)].push(e.card);
  }
  return out;
}

// The seat on screen that shows a side's pile: the first of the side from the bottom on.
function pileSeats(players, bottom) {
  const out = {};
  for (let k = 0; k < players; k += 1) {
    const s = (bottom + k) % players;
    const side = sideOf(s, players);
    if (!(side in out)) out[side] = s;
  }
  return out;
}

function miniCards(codes, opts, cls) {
  return h("div", { class: ["mini-cards", cls] }, codes.map((c) => cardElement(c, { ...opts, tag: "div" })));
}

function pileElement(deal, side, scopeCards, opts) {
  const pile = deal.piles[side];
  const scope = pile.scope;
  const known = scopeCards[side] || [];
  const marks = [];
  for (let i = 0; i < scope; i += 1) {
    const code = known[i];
    marks.push(code ? cardElement(code, { ...opts, label: false }) : h("div", { class: "card scopa-mark", "aria-hidden": "true" }));
  }
  const label = t("table.pile.label", { cards: plural("table.count.cards", pile.count), scope: plural("table.count.scope", scope), bonus: plural("table.count.bonus", pile.bonus) });
  return h("div", { class: "pile", dataset: { side }, role: "group", "aria-label": label },
    h("div", { class: "pile-stack" },
      pile.count ? backElement(opts.style) : h("div", { class: "card empty-slot", "aria-hidden": "true" }),
      h("span", { class: "pile-count", "aria-hidden": "true" }, String(pile.count))),
    scope ? h("div", { class: "scope", title: t("table.pile.scope", { n: scope }) }, marks) : null,
    h("div", { class: "pile-facts", "aria-hidden": "true" },
      scope ? h("span", { class: "fact scope-count" }, t("table.pile.scope", { n: scope })) : null,
      pile.bonus ? h("span", { class: "fact bonus-count" }, t("table.pile.bonus", { n: pile.bonus })) : null));
}

// One seat around the table.
function seatElement(model, s, place, pileSide, scopeCards) {
  const { deal, seats, you, lang, style } = model;
  const opts = { style, lang };
  const seat = seats && seats[s];
  const hand = deal ? deal.hands[s] : null;
  const toMove = deal && !deal.is_over && deal.to_move === s;
  const name = seatName(seats, s);
  const facts = [];
  if (deal && deal.dealer === s) facts.push(h("span", { class: "chip dealer", title: t("table.dealer") }, t("table.dealer.short")));
  if (seat && seat.bot) facts.push(h("span", { class: "chip bot" }, t("table.bot", { level: t(`table.level.${seat.bot}`) })));
  if (seat && seat.bot_account) facts.push(botBadge({ cls: "chip" }));
  if (you === s) facts.push(h("span", { class: "chip you" }, t("table.you")));
  if (model.players === 4 && you !== null && you !== undefined && s === (you + 2) % 4) {
    facts.push(h("span", { class: "chip partner" }, t("table.partner")));
  }
  const showHand = hand && place !== "bottom";
  let handEl = null;
  if (showHand) {
    const declared = hand.declared || [];
    if (hand.cards) {
      handEl = miniCards(hand.cards, opts, "hand-open");
    } else {
      const backs = [];
      for (let i = 0; i < hand.count - declared.length; i += 1) backs.push(backElement(style));
      handEl = h("div", { class: "mini-cards hand-closed", "aria-hidden": "true" }, backs);
    }
  }
  const declared = hand && hand.declared && hand.declared.length ? hand.declared : [];
  const countLabel = hand ? t("table.cards_in_hand", { n: hand.count }) : "";
  const label = [name, toMove ? t("table.to_move") : "", countLabel].filter(Boolean).join(", ");
  return h("section", {
    class: ["seat", `place-${place}`, toMove ? "to-move" : null, you === s ? "mine" : null, seat ? null : "vacant"],
    dataset: { seat: s, place, side: sideOf(s, model.players) },
    "aria-label": label,
  },
  h("header", { class: "seat-head" },
    h("span", { class: "seat-name", title: name }, name),
    facts,
    toMove ? h("span", { class: "turn-mark", "aria-hidden": "true" }, "\u25B6") : null),
  deal ? h("div", { class: "seat-clocks" },
    h("span", { class: "clock move-clock", dataset: { seat: s }, hidden: true }),
    h("span", { class: "clock partita-clock", dataset: { seat: s }, hidden: true })) : null,
  hand ? h("div", { class: "seat-count", "aria-hidden": "true" }, countLabel) : null,
  handEl,
  declared.length ? h("div", { class: "declared", role: "group", "aria-label": t("table.declared_cards", { cards: declared.map((c) => cardName(c, style, lang)).join(", ") }) },
    h("span", { class: "declared-label" }, t("table.declared")),
    miniCards(declared, opts, "declared-cards")) : null,
  pileSide !== null && deal ? pileElement(deal, pileSide, scopeCards, opts) : null);
}

// The table cards, with the matta's declared value when it is not a 7.
function tableArea(model) {
  const { deal, style, lang, interactive } = model;
  const cards = deal.table.map(({ card, value }) => {
    const el = cardElement(card, { style, lang, tag: interactive ? "button" : "div" });
    el.classList.add("table-card");
    const natural = cardValue(card);
    if (value !== natural) {
      const rank = ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"][value - 1];
      el.append(h("span", { class: "value-badge", title: t("table.matta_value", { value: rankName(rank, style, lang) }) }, `=${rank}`));
      el.setAttribute("aria-label", `${cardName(card, style, lang)} (${t("table.matta_value", { value: rankName(rank, style, lang) })})`);
    }
    return el;
  });
  return h("div", { class: "table-area", role: "group", "aria-label": t("table.table_cards", { n: deal.table.length }) },
    h("div", { class: "table-cards" }, cards, h("div", { class: "ghost-slot", hidden: true })),
    deal.table.length ? null : h("p", { class: "table-empty" }, t("table.empty_table")),
    h("div", { class: "deck-left", title: t("table.deck_left", { n: deal.deck }) },
      deal.deck ? backElement(style) : null,
      h("span", {}, t("table.deck_left", { n: deal.deck }))));
}

function cardValue(code) {
  return ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"].indexOf(code[0]) + 1;
}

// The bottom player's hand: buttons when it can be played from, plain faces otherwise.
function handArea(model) {
  const { deal, bottom, you, style, lang, interactive } = model;
  const cards = you !== null && you !== undefined ? deal.hand || [] : deal.hands[bottom].cards || null;
  if (!cards) return h("div", { class: "hand-area spectator" });
  const declared = deal.hands[bottom].declared || [];
  return h("div", { class: "hand-area", role: "group", "aria-label": t("table.your_hand", { n: cards.length }) },
    cards.map((code) => {
      const el = cardElement(code, { style, lang, tag: interactive ? "button" : "div" });
      el.classList.add("hand-card");
      if (declared.includes(code)) el.classList.add("is-declared");
      return el;
    }));
}

// The whole board for a model {players, bottom, you, clockwise, seats, deal, style,
// lang, interactive}: the element and the places of the seats.
export function renderBoard(model) {
  const { players, bottom, deal } = model;
  const places = seatPlaces(players, bottom, model.clockwise);
  const piles = deal ? pileSeats(players, bottom) : {};
  const pileOf = {};
  for (const [side, s] of Object.entries(piles)) pileOf[s] = Number(side);
  const scopes = deal ? scopaCards(deal) : [];
  const seatEls = [];
  for (let s = 0; s < players; s += 1) {
    seatEls.push(seatElement(model, s, places[s], s in pileOf ? pileOf[s] : null, scopes));
  }
  const center = deal ? tableArea(model) : h("div", { class: "table-area waiting" }, model.centerNote || null);
  const board = h("div", { class: ["board", `players-${players}`, model.interactive ? "interactive" : null] },
    seatEls, h("div", { class: "felt" }, center),
    deal ? handArea(model) : null);
  return { board, places };
}
