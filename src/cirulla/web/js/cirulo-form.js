// Cirulo's part of the create-table form (pages/create-table.js): players 4-6, the deck,
// the point value, the number of hands and the two house options (discard_order,
// split), each with a one-line explanation; and the request POST /api/tables takes:
// {"game": "cirulo", "players": n, "options": {...}} (src/cirulla/tables/config.py,
// cirulla.cirulo.CiruloRules). Cirulo has no preset and none of Cirulla's house rules.
import { SPANISH_SUITS } from "./cirulo-cards.js";
import { t } from "./i18n.js";
import { h, uid } from "./pages/dom.js";

export const CIRULO_PLAYERS = [4, 5, 6];
export const CIRULO_DECKS = ["spanish48", "poker52"];
export const DISCARD_ORDERS = ["CEB", "CBE", "ECB", "EBC", "BCE", "BEC"];
export const SPLITS = ["carry", "exact"];

// Cirulo's options in a draft; hands null = one round (every player deals once).
export function ciruloDefaults() {
  return { deck: "spanish48", point_value: 1, hands: null, discard_order: "CEB", split: "carry" };
}

export function handsOf(d) {
  return d.cirulo.hands ?? d.players;
}

// The options sent: all of them, with the number of hands written out (so the lobby
// shows it).
export function ciruloOptions(d) {
  const o = d.cirulo;
  return {
    deck: o.deck,
    point_value: Number(o.point_value),
    hands: Number(handsOf(d)),
    discard_order: o.discard_order,
    split: o.split,
  };
}

// A message when a number is not a whole number from 1 up, else null.
export function ciruloProblem(d) {
  const pv = Number(d.cirulo.point_value);
  if (!Number.isInteger(pv) || pv < 1 || pv > 1000) return t("cirulo.create.bad_point_value");
  const hands = Number(handsOf(d));
  if (!Number.isInteger(hands) || hands < 1 || hands > 100) return t("cirulo.create.bad_hands");
  return null;
}

function labelled(label, make, help = null) {
  const id = uid("co");
  const helpId = help ? `${id}-help` : null;
  return [h("label", { for: id }, label), make(id, helpId), help ? h("small", { id: helpId, class: "hint" }, help) : null];
}

function discardText(order) {
  return order.split("").map((s) => SPANISH_SUITS[s]).join(", ");
}

// The game choice, shown first: Cirulla (with its presets) or Cirulo.
export function gameField(d, onChange) {
  return h("fieldset", { class: "field inline game-choice" },
    h("legend", {}, t("cirulo.create.game")),
    ["cirulla", "cirulo"].map((game) => h("label", { class: "choice" },
      h("input", {
        type: "radio", name: "game", value: game, checked: (d.game || "cirulla") === game,
        onchange: () => onChange(game),
      }),
      t(`cirulo.create.game.${game}`))),
    h("small", { class: "hint" }, t(`cirulo.create.game.${d.game || "cirulla"}.help`)));
}

export function seatsHint() {
  return t("cirulo.create.seats_hint");
}

export function playersField(d, onChange) {
  return h("fieldset", { class: "field inline" },
    h("legend", {}, t("create.players")),
    CIRULO_PLAYERS.map((n) => h("label", { class: "choice" },
      h("input", {
        type: "radio", name: "players", value: String(n), checked: n === d.players,
        onchange: () => onChange(n),
      }),
      t("create.players_n", { n }))),
    h("small", { class: "hint" }, t("cirulo.create.players_help")));
}

// Deck, point value, hands; then the house options.
export function ciruloFields(d) {
  const o = d.cirulo;
  const deck = h("div", { class: "field" },
    ...labelled(t("cirulo.create.deck"), (id, help) => h("select", {
      id, name: "cirulo-deck", "aria-describedby": help,
      onchange: (e) => { o.deck = e.target.value; },
    }, CIRULO_DECKS.map((name) => h("option", { value: name, selected: name === o.deck }, t(`cirulo.deck.${name}`)))),
    t("cirulo.create.deck_help")));
  const pointValue = h("div", { class: "field" },
    ...labelled(t("cirulo.create.point_value"), (id, help) => h("input", {
      id, name: "cirulo-point_value", type: "number", min: 1, max: 1000, step: 1, value: String(o.point_value),
      "aria-describedby": help, inputmode: "numeric",
      oninput: (e) => { o.point_value = e.target.value; },
    }), t("cirulo.create.point_value_help")));
  const hands = h("div", { class: "field" },
    ...labelled(t("cirulo.create.hands"), (id, help) => h("input", {
      id, name: "cirulo-hands", type: "number", min: 1, max: 100, step: 1, value: String(handsOf(d)),
      "aria-describedby": help, inputmode: "numeric",
      oninput: (e) => { o.hands = e.target.value === "" ? null : e.target.value; },
    }), t("cirulo.create.hands_help", { n: d.players })));
  const discard = h("div", { class: "check select-option" },
    ...labelled(t("cirulo.create.discard_order"), (id, help) => h("select", {
      id, name: "cirulo-discard_order", "aria-describedby": help,
      onchange: (e) => { o.discard_order = e.target.value; },
    }, DISCARD_ORDERS.map((order) => h("option", { value: order, selected: order === o.discard_order }, discardText(order)))),
    t("cirulo.create.discard_order_help")));
  const splitHelp = uid("co");
  const split = h("fieldset", { class: "split-option", "aria-describedby": splitHelp },
    h("legend", {}, t("cirulo.create.split")),
    SPLITS.map((value) => h("label", { class: "choice" },
      h("input", {
        type: "radio", name: "cirulo-split", value, checked: o.split === value,
        onchange: () => { o.split = value; },
      }),
      t(`cirulo.split.${value}`))),
    h("small", { id: splitHelp, class: "hint" }, t("cirulo.create.split_help")));
  return [
    h("fieldset", { class: "field cirulo-options" },
      h("legend", {}, t("cirulo.create.options")),
      deck, pointValue, hands),
    h("fieldset", { class: "field cirulo-house" },
      h("legend", {}, t("cirulo.create.house")),
      h("div", { class: "rules-list" }, discard, split)),
  ];
}
