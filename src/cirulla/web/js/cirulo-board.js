// Drawing a Cirulo hand exactly as the server's view says (cirulla/cirulo/views.py):
// 4-6 seats around the felt, the viewer at the bottom and the next player on their
// right (play goes anticlockwise); per seat its name, clocks, cards left, tricks won
// and the encirculated tricks face down with their coin points; the trick in the
// middle with the suit led; the own hand sorted by suit. Pure drawing: nothing here
// decides what is legal, it only marks what the server's legal_moves say.
import { backElement, cardElement, cardName, SUITS, sortHand, suitName, suitOf, suitPip } from "./cirulo-cards.js";
import { plural, t } from "./i18n.js";
import { h } from "./table-dom.js";
import { botBadge } from "./pages/dom.js";

// Where seat s sits: its angle on screen (degrees, y down), the bottom seat at 90 and
// the next one on its right, at 90 - 360/n.
export function seatAngle(s, bottom, players) {
  const k = (s - bottom + players) % players;
  return 90 - (k * 360) / players;
}

// The direction of an angle as CSS variables: the stylesheet sets the radii (cirulo.css).
function place(el, angle) {
  const a = (angle * Math.PI) / 180;
  el.style.setProperty("--cx", Math.cos(a).toFixed(3));
  el.style.setProperty("--cy", Math.sin(a).toFixed(3));
  return el;
}

export function seatLabel(seats, s) {
  const seat = seats && seats[s];
  return seat ? seat.name : t("cirulo.seat.empty", { n: s + 1 });
}

// The encirculated tricks each seat won this hand (their coin points), from the history.
export function encirculatedBySeat(deal) {
  const out = Array.from({ length: deal.players }, () => []);
  for (const e of deal.history || []) {
    if (e.type === "trick" && e.encirculated) out[e.winner].push(e.coins);
  }
  return out;
}

// The last finished trick of the hand (a "trick" event), or null.
export function lastTrick(deal) {
  const history = deal.history || [];
  for (let i = history.length - 1; i >= 0; i -= 1) if (history[i].type === "trick") return history[i];
  return null;
}

function seatElement(model, s) {
  const { view, deal, you, bottom, lang } = model;
  const n = deal ? deal.players : view.config.players;
  const seat = view.seats[s];
  const name = seatLabel(view.seats, s);
  const angle = seatAngle(s, bottom, n);
  const sin = Math.sin((angle * Math.PI) / 180);
  const toMove = Boolean(deal && !deal.is_over && deal.to_move === s && view.status === "playing");
  const leads = Boolean(deal && !deal.is_over && deal.leader === s);
  const count = deal ? deal.hands[s].count : null;
  const tricks = deal ? deal.tricks[s] : 0;
  const coins = deal ? deal.coins[s] : 0;
  const enc = model.encirculated ? model.encirculated[s] : [];
  const chips = [];
  if (deal && deal.dealer === s) chips.push(h("span", { class: "chip dealer", title: t("cirulo.dealer") }, t("cirulo.dealer.short")));
  if (leads) chips.push(h("span", { class: "chip leads", title: t("cirulo.leads.long") }, t("cirulo.leads")));
  if (seat && seat.bot) chips.push(h("span", { class: "chip bot" }, t("cirulo.bot", { level: t(`table.level.${seat.bot}`) })));
  if (seat && seat.bot_account) chips.push(botBadge({ cls: "chip" }));
  if (you === s) chips.push(h("span", { class: "chip you" }, t("table.you")));
  const label = [
    name,
    toMove ? t("cirulo.to_move") : "",
    leads ? t("cirulo.leads.long") : "",
    deal ? t("cirulo.seat.summary", { cards: plural("cirulo.cards_left", count), tricks: plural("cirulo.tricks", tricks), coins: plural("cirulo.coins", coins) }) : "",
  ].filter(Boolean).join(", ");
  const el = h("section", {
    class: ["cseat", toMove ? "to-move" : null, you === s ? "mine" : null, seat ? null : "vacant", sin > 0.5 ? "low" : sin < -0.5 ? "high" : "mid"],
    dataset: { seat: s },
    "aria-label": label,
  },
  h("header", { class: "cseat-head" },
    toMove ? h("span", { class: "turn-mark", "aria-hidden": "true" }, "\u25B6") : null,
    h("span", { class: "cseat-name", title: name }, name),
    chips),
  deal ? h("div", { class: "seat-clocks" },
    h("span", { class: "clock move-clock", dataset: { seat: s }, hidden: true }),
    h("span", { class: "clock partita-clock", dataset: { seat: s }, hidden: true })) : null,
  deal ? h("div", { class: "cseat-facts", "aria-hidden": "true" },
    h("span", { class: "cfact cards-left", title: plural("cirulo.cards_left", count) }, h("span", { class: "cfact-icon cards-icon" }), String(count)),
    h("span", { class: "cfact tricks-won", title: plural("cirulo.tricks_won", tricks) }, t("cirulo.tricks.short", { n: tricks })),
    h("span", { class: ["cfact", "coins-taken", coins ? "has-coins" : null], title: plural("cirulo.coins_taken", coins) },
      suitPip("O", "cpip-fact"), String(coins))) : null,
  enc.length ? h("div", { class: "cencirculated", role: "group", "aria-label": t("cirulo.encirculated", { n: enc.length, points: enc.join(", ") }) },
    enc.map((points) => backElement({ points, label: plural("cirulo.encirculated_trick", points) }))) : null);
  return place(el, angle);
}

// The trick in the middle: each card in front of the seat that played it. With no card
// played yet, the trick just finished (from the history) stays shown, faded.
function trickArea(model) {
  const { deal, bottom, lang, deck, view } = model;
  const n = deal.players;
  let cards = deal.trick.map(({ seat, card }) => ({ seat, card }));
  let done = null;
  if (!cards.length) {
    done = lastTrick(deal);
    if (done) cards = done.cards.map((card, i) => ({ seat: done.seats[i], card }));
  }
  const els = cards.map(({ seat, card }, i) => {
    const el = cardElement(card, { deck, lang });
    el.classList.add("ctrick-card");
    el.dataset.seat = String(seat);
    const who = seatLabel(view.seats, seat);
    el.setAttribute("aria-label", `${who}: ${cardName(card, deck, lang)}`);
    if (done && seat === done.winner) el.classList.add("winner");
    if (!done && model.fresh && model.fresh.has(card)) el.classList.add("cnew");
    el.style.setProperty("--z", String(i + 1));
    return place(el, seatAngle(seat, bottom, n));
  });
  const led = deal.led || (done ? suitOf(done.cards[0]) : null);
  let center = null;
  if (done) {
    center = h("div", { class: "cled done" },
      h("span", {}, t("cirulo.trick.taken", { name: seatLabel(view.seats, done.winner) })),
      done.encirculated ? h("span", { class: "cled-coins" }, suitPip("O"), plural("cirulo.trick.coins", done.coins)) : h("span", { class: "cled-clean" }, t("cirulo.trick.clean")));
  } else if (led) {
    center = h("div", { class: ["cled", `csuit-${led}`], title: t("cirulo.led.long", { suit: suitName(led, lang) }) },
      suitPip(led), h("span", {}, t("cirulo.led", { suit: suitName(led, lang) })));
  } else if (!deal.is_over) {
    center = h("div", { class: "cled waiting" }, t("cirulo.trick.lead", { name: seatLabel(view.seats, deal.to_move) }));
  }
  return h("div", {
    class: ["ctrick", done ? "finished" : null],
    role: "group",
    "aria-label": done
      ? t("cirulo.trick.last_label", { name: seatLabel(view.seats, done.winner), cards: cards.map((c) => cardName(c.card, deck, lang)).join(", ") })
      : t("cirulo.trick.label", { n: deal.trick_number, of: deal.tricks_per_hand }),
  }, els, center);
}

// The own hand, sorted by suit; on one's turn the legal cards are playable and the others
// dimmed (with the reason read out through aria-describedby).
function handArea(model) {
  const { deal, deck, lang, you, legal, selected, myTurn } = model;
  if (you === null || you === undefined || !deal || !deal.hand) return h("div", { class: "chand spectator" });
  const cards = sortHand(deal.hand, deck);
  const legalSet = new Set(legal || []);
  const groups = SUITS.map((suit) => cards.filter((c) => suitOf(c) === suit)).filter((g) => g.length);
  return h("div", { class: "chand", role: "group", "aria-label": plural("cirulo.your_hand", cards.length) },
    groups.map((group) => h("div", { class: `chand-suit csuit-${suitOf(group[0])}` },
      group.map((code) => {
        const el = cardElement(code, { deck, lang, tag: model.interactive ? "button" : "div" });
        el.classList.add("chand-card");
        if (myTurn) {
          const ok = legalSet.has(code);
          el.classList.add(ok ? "cplayable" : "cdimmed");
          if (!ok) {
            el.setAttribute("aria-disabled", "true");
            el.setAttribute("aria-describedby", "cirulo-hint");
          }
        }
        if (selected === code) {
          el.classList.add("selected");
          el.setAttribute("aria-pressed", "true");
        } else if (model.interactive) {
          el.setAttribute("aria-pressed", "false");
        }
        return el;
      }))));
}

// The whole board for a model {view, deal, you, bottom, lang, deck, interactive, legal,
// selected, myTurn, fresh}.
export function renderBoard(model) {
  const { view, deal } = model;
  const n = deal ? deal.players : view.config.players;
  model.encirculated = deal ? encirculatedBySeat(deal) : null;
  const seats = [];
  for (let s = 0; s < n; s += 1) seats.push(seatElement(model, s));
  const felt = h("div", { class: ["cfelt", `cplayers-${n}`] },
    seats,
    deal ? trickArea(model) : h("p", { class: "cfelt-note" }, model.centerNote || ""));
  const board = h("div", { class: ["cboard", model.interactive ? "interactive" : null] },
    felt,
    deal ? handArea(model) : null);
  return board;
}
