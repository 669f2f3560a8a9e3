// The parts of the table page around the board: the seat list of an open table, the
// end of the partita, the carte viste panel (O1), the declaration dialog (accuso and
// the matta's value), a confirmation dialog, and what the engine's events announce;
// the running score and the people around the table in its head; the last capture
// and the previous mano beside the board. All are drawn with the board itself (nothing
// moves under the player's finger when they come), so they are one module: one request
// on a phone's way to the first move (benchmarks/web_weight.py).
import { cardElement, cardName, cardNames, rankName, SUITS } from "./cards.js";
import { hasKey, plural, t } from "./i18n.js";
import { declarationChoices, declarationPoints } from "./selection.js";
import { sideName, sideOf } from "./table-board.js";
import { h } from "./table-dom.js";
import { botBadge, playerLink } from "./pages/dom.js";

// A readable line for an error frame or ApiError: the catalog's text for its code,
// with the server's own explanation when it has one worth reading.
export function errorText(err) {
  const code = err.code || "";
  const key = `table.error.${code}`;
  const base = code && hasKey(key) ? t(key) : t("table.error.generic");
  const detail = err.message && ["illegal_move", "bad_move", "not_your_turn", "stale", "insufficient_chips", "playban"].includes(code) ? err.message : null;
  return detail ? `${base} (${detail})` : base;
}

// An open table: who sits where, "Siediti" on free seats, "Alzati" for one's own.
export function seatList(view, { me, onSit, onStand }) {
  const mine = view.you;
  const n = view.config.players;
  const items = [];
  for (let s = 0; s < n; s += 1) {
    const seat = view.seats[s];
    let action = null;
    if (!seat && (mine === null || mine === undefined)) {
      action = h("button", { type: "button", class: "sit primary", dataset: { seat: s }, onclick: () => onSit(s) }, t("table.sit"));
    } else if (seat && s === mine) {
      action = h("button", { type: "button", class: "stand", onclick: () => onStand() }, t("table.stand"));
    }
    const who = seat
      ? [h("span", { class: "seat-name" }, seat.bot ? seat.name : playerLink(seat.name)), seat.bot ? h("span", { class: "chip bot" }, t("table.bot", { level: t(`table.level.${seat.bot}`) })) : null,
        seat.bot_account ? botBadge({ cls: "chip" }) : null,
        seat.user && me && seat.user === me.id ? h("span", { class: "chip you" }, t("table.you")) : null]
      : h("span", { class: "free" }, t("table.seat.free"));
    items.push(h("li", { class: ["seat-row", seat ? "taken" : "free"], dataset: { seat: s } },
      h("span", { class: "seat-no" }, t("table.seat.number", { n: s + 1 })),
      n === 4 ? h("span", { class: `chip side-${s % 2}` }, t("table.side", { n: (s % 2) + 1 })) : null,
      who, action));
  }
  const free = view.seats.filter((s) => !s).length;
  return h("section", { class: "seat-list" },
    h("h2", {}, t("table.open.title")),
    h("p", { class: "waiting-note" }, t("table.open.waiting", { n: free })),
    h("ol", {}, items));
}

// The end of the partita: the winner, the totals, why it ended.
export function endPanel(view, { sideNames, onReplay, onLobby }) {
  const result = view.result || {};
  const totals = result.totals || view.totals || [];
  const winner = result.winner;
  const mySide = view.you === null || view.you === undefined ? null : sideOf(view.you, view.config.players);
  let headline;
  if (winner === null || winner === undefined) headline = t("table.end.no_winner");
  else if (mySide === winner) headline = t("table.end.you_won");
  else if (mySide !== null) headline = t("table.end.you_lost", { winner: sideNames[winner] });
  else headline = t("table.end.winner", { winner: sideNames[winner] });
  const reason = result.reason ? t(`table.end.reason.${result.reason}`, { reason: result.reason }) : null;
  const forfeit = view.forfeit
    ? t("table.end.forfeit", { side: sideNames[view.forfeit.side], reason: t(`table.forfeit.${view.forfeit.reason}`) })
    : null;
  return h("section", { class: "end-panel", role: "region", "aria-label": t("table.end.title") },
    h("h2", {}, t("table.end.title")),
    h("p", { class: "winner" }, headline),
    h("p", { class: "final-totals" }, sideNames.map((name, i) => `${name} ${totals[i] ?? 0}`).join(" \u2013 ")),
    reason ? h("p", { class: "end-reason" }, reason) : null,
    forfeit ? h("p", { class: "end-forfeit" }, forfeit) : null,
    h("div", { class: "end-actions" },
      h("button", { type: "button", class: "replay-link", onclick: onReplay }, t("table.end.replay")),
      h("button", { type: "button", class: "lobby-link primary", onclick: onLobby }, t("table.end.lobby"))));
}

// O1: the cards played this smazzata, by suit.
export function carteViste(codes, { style, lang }) {
  const bySuit = SUITS.map((suit) => codes.filter((c) => c[1] === suit));
  return h("section", { class: "carte-viste", "aria-label": t("table.carte_viste") },
    h("h2", {}, t("table.carte_viste"), " ", h("span", { class: "count" }, `(${codes.length})`)),
    h("div", { class: "viste-suits" },
      bySuit.map((cards, i) => h("div", { class: `viste-suit suit-${SUITS[i]}` },
        cards.map((c) => cardElement(c, { style, lang }))))));
}

// A modal <dialog>; resolves with the value of the button pressed (null on cancel).
export function ask({ title, body, buttons, className = "" }) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: ["table-dialog", className], "aria-label": title });
    const form = h("form", { method: "dialog" },
      h("h2", {}, title),
      body,
      h("div", { class: "dialog-buttons" },
        buttons.map((b) => h("button", { type: "submit", value: b.value, class: b.primary ? "primary" : null, dataset: { choice: b.value } }, b.label))));
    dialog.append(form);
    dialog.addEventListener("close", () => {
      const value = dialog.returnValue;
      dialog.remove();
      resolve(value && value !== "cancel" ? value : null);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

export function confirmDialog(title, text, okLabel) {
  return ask({
    title,
    body: h("p", {}, text),
    buttons: [
      { value: "cancel", label: t("table.cancel") },
      { value: "ok", label: okLabel, primary: true },
    ],
  }).then((v) => v === "ok");
}

// "decino: 5, 5, 5 — 10 punti": the worth by the table's rules (several matta values
// that score differently show as "10–13 punti").
function declarationLabel(group, { style, lang, rules }) {
  const worth = [...new Set(group.options.map((o) => declarationPoints(group.bonus, group.cards, o.matta, rules || {})))].sort((a, b) => a - b);
  const points = worth.length > 1 ? t("table.points.other", { n: `${worth[0]}\u2013${worth.at(-1)}` }) : plural("table.points", worth[0]);
  return h("span", { class: "decl-label", dataset: { points: worth.join(" ") } },
    t("table.accuso.option", { kind: t(`table.bonus.${group.bonus}`), cards: cardNames(group.cards, style, lang), points }));
}

// B8 with automatic declaration off: which declaration, and the matta's value.
// Resolves with the move to send, or null.
export function chooseDeclaration(legal, { style, lang, rules = null }) {
  const groups = declarationChoices(legal);
  if (groups.length === 1 && groups[0].options.length === 1) return Promise.resolve(groups[0].options[0].move);
  const radios = groups.map((g, i) => {
    const id = `decl-${i}`;
    const values = g.options.length > 1 || g.options[0].matta
      ? h("div", { class: "matta-values", role: "radiogroup", "aria-label": t("table.accuso.matta") },
          h("span", { class: "matta-label" }, t("table.accuso.matta")),
          g.options.map((o, j) => h("label", { class: "matta-value" },
            h("input", { type: "radio", name: `matta-${i}`, value: o.move, checked: j === 0 }),
            o.matta ? rankName(o.matta, style, lang) : "\u2013")))
      : null;
    return h("fieldset", { class: "decl-group" },
      h("label", { class: "decl-choice" },
        h("input", { type: "radio", name: "decl", value: String(i), id, checked: i === 0 }),
        declarationLabel(g, { style, lang, rules })),
      values);
  });
  const body = h("div", { class: "decl-list" }, radios);
  return ask({
    title: t("table.accuso.title"),
    body,
    className: "accuso-dialog",
    buttons: [
      { value: "cancel", label: t("table.cancel") },
      { value: "ok", label: t("table.accuso"), primary: true },
    ],
  }).then((v) => {
    if (v !== "ok") return null;
    const chosen = body.querySelector('input[name="decl"]:checked');
    const g = groups[Number(chosen ? chosen.value : 0)];
    const i = groups.indexOf(g);
    const matta = body.querySelector(`input[name="matta-${i}"]:checked`);
    return matta ? matta.value : g.options[0].move;
  });
}

// What a batch of table records says, as lines for the announcement banner.
export function announcements(records, view, { style, lang }) {
  const players = view.config.players;
  const seats = view.seats;
  const name = (s) => (seats[s] ? seats[s].name : t("table.seat.empty", { n: s + 1 }));
  const side = (i) => sideName(seats, players, i);
  const lines = [];
  for (const rec of records) {
    switch (rec.type) {
      case "sat":
        lines.push({ text: t("table.event.sat", { name: rec.name, n: rec.seat + 1 }), kind: "info" });
        break;
      case "stood":
        lines.push({ text: t("table.event.stood", { n: rec.seat + 1 }), kind: "info" });
        break;
      case "started":
        lines.push({ text: t("table.event.started"), kind: "info" });
        break;
      case "committed":
        lines.push({ text: t("table.event.deal", { n: rec.deal + 1 }), kind: "info" });
        break;
      case "forfeit":
        lines.push({ text: t("table.event.forfeit", { side: side(rec.side), reason: t(`table.forfeit.${rec.reason}`) }), kind: "big" });
        break;
      case "ended":
        lines.push({ text: rec.winner === null || rec.winner === undefined ? t("table.end.no_winner") : t("table.end.winner", { winner: side(rec.winner) }), kind: "big" });
        break;
      case "closed":
        lines.push({ text: t("table.event.closed"), kind: "info" });
        break;
      default:
        break;
    }
    for (const e of rec.events || []) {
      switch (e.type) {
        case "dealer_bonus":
          lines.push({
            text: t("table.event.dealer_bonus", { name: name(e.seat), points: plural("table.points", e.points), cards: cardNames(e.cards, style, lang), kind: t(`table.dealer_kind.${e.kind}`, { kind: e.kind }) }),
            kind: "big",
          });
          break;
        case "declare":
          lines.push({
            text: t("table.event.declare", {
              name: name(e.seat),
              kind: t(`table.bonus.${e.kind}`),
              points: plural("table.points", e.points),
              cards: cardNames(e.cards, style, lang),
            }) + (e.matta_value ? ` ${t("table.matta_value", { value: rankName(["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"][e.matta_value - 1], style, lang) })}` : ""),
            kind: "big",
          });
          break;
        case "play":
          if (e.scopa) lines.push({ text: t("table.event.scopa", { name: name(e.seat), card: cardName(e.card, style, lang) }), kind: "big" });
          break;
        case "misdeal":
          lines.push({ text: t("table.event.misdeal", { reason: t(`table.misdeal.${e.reason}`, { reason: e.reason }) }), kind: "info" });
          break;
        case "instant_win":
          lines.push({ text: t("table.event.instant_win", { side: side(e.side), reason: t(`table.end.reason.${e.reason}`, { reason: e.reason }) }), kind: "big" });
          break;
        case "last_cards":
          if (e.cards && e.cards.length) lines.push({ text: t("table.event.last_cards", { side: side(e.side), cards: cardNames(e.cards, style, lang) }), kind: "info" });
          break;
        case "pass":
          break;
        default:
          break;
      }
    }
  }
  return lines;
}

// The last move, spoken: "anna: 7 di coppe prende 3 di bastoni, 4 di spade".
export function describePlay(e, seats, { style, lang }) {
  const who = seats[e.seat] ? seats[e.seat].name : t("table.seat.empty", { n: e.seat + 1 });
  if (e.captured && e.captured.length) {
    return t("table.event.capture", { name: who, card: cardName(e.card, style, lang), cards: cardNames(e.captured, style, lang) });
  }
  return t("table.event.lay", { name: who, card: cardName(e.card, style, lang) });
}

// ---- the running score ------------------------------------------------------------------
// The running score in the table's header (docs/table-flow.md): each side's partita
// total, and beside it the scope and accusi it has made in the smazzata being played,
// as they happen (the view's piles carry them), so the header never says 0-0 while the
// seats show points already won.

// What side `i` has made so far in the smazzata being played: {scope, bonus}, or null
// between smazzate (the totals hold them then) and before the first deal.
export function currentPoints(view, side) {
  const d = view.deal;
  if (!d || d.is_over || view.status !== "playing") return null;
  const pile = d.piles && d.piles[side];
  if (!pile) return null;
  return { scope: pile.scope || 0, bonus: pile.bonus || 0 };
}

// The header's <dl>: a side's name, its partita total, its scope and accusi now; then
// the target (or the number of smazzate). Null before the partita has totals.
export function runningScore(view, sideNames) {
  const totals = view.totals;
  if (!totals) return null;
  const items = sideNames.map((name, i) => {
    const now = currentPoints(view, i);
    const chips = [];
    if (now && now.scope) chips.push(h("span", { class: "now-scope" }, t("table.pile.scope", { n: now.scope })));
    if (now && now.bonus) chips.push(h("span", { class: "now-bonus" }, t("table.pile.bonus", { n: now.bonus })));
    const title = chips.length ? t("table.score.current", { items: chips.map((c) => c.textContent).join(", ") }) : null;
    return [
      h("dt", { class: `side-${i}`, title: name }, name),
      h("dd", { dataset: { side: i, scope: now ? now.scope : null, bonus: now ? now.bonus : null }, title },
        h("span", { class: "partita-total" }, String(totals[i] ?? 0)),
        chips.length ? h("span", { class: "now-points" }, chips) : null),
    ];
  });
  const rules = view.deal ? view.deal.rules : null;
  return h("dl", { class: "totals running-score" },
    items,
    h("dt", { class: "target" }, rules && rules.hands ? t("table.length.hands_label") : t("table.length.target_label")),
    h("dd", { class: "target" }, String(rules ? (rules.hands ?? rules.target) : "")));
}

// ---- the people around the table --------------------------------------------------------
// The people around a table besides its players: the spectators (a count, the names
// in its title and a list on click) and "Invita un amico", which copies the link a
// friend opens to sit (a private table's link carries its invite token).

export class TablePeople {
  constructor(conn, tableId, invite) {
    this.conn = conn;
    this.id = tableId;
    this.invite = invite || null;
    this.watchers = conn.tables?.get(tableId)?.watchers || { count: 0, names: [] };
    this.view = null;
    this.el = h("div", { class: "table-people" });
    this.onWatchers = (e) => {
      if (e.detail.table !== this.id) return;
      this.watchers = { count: e.detail.count, names: e.detail.names };
      this.render();
    };
    conn.addEventListener("watchers", this.onWatchers);
  }

  destroy() {
    this.conn.removeEventListener("watchers", this.onWatchers);
  }

  update(view) {
    this.view = view;
    this.render();
  }

  // A public table's page, or a private one's invite link (only when we hold its token).
  link() {
    const v = this.view;
    if (!v || v.status === "finished" || v.status === "closed") return null;
    if (!v.config.private) return `${location.origin}/table/${this.id}`;
    return this.invite ? `${location.origin}/table/${this.id}?invite=${encodeURIComponent(this.invite)}` : null;
  }

  render() {
    const { count, names } = this.watchers;
    const parts = [];
    if (count > 0) {
      const label = plural("table.watchers", count);
      const list = names.length ? t("table.watchers.list", { names: names.join(", ") }) : label;
      parts.push(h("details", { class: "watchers", dataset: { count } },
        h("summary", { title: list, "aria-label": list }, "\u{1F441}\uFE0E ", label),
        names.length ? h("ul", { class: "watcher-names" }, names.map((n) => h("li", {}, n))) : null));
    }
    const link = this.link();
    if (link) {
      const status = h("p", { class: "invite-status", role: "status", hidden: true });
      const button = h("button", { type: "button", class: "invite-friend", dataset: { link }, onclick: () => this.copy(link, status) }, t("table.invite_button"));
      parts.push(h("div", { class: "invite-box" }, button, status));
    }
    this.el.replaceChildren(...parts);
  }

  // The clipboard when the browser lets us; the link shown, selected, either way.
  async copy(link, status) {
    let copied = false;
    try {
      await navigator.clipboard.writeText(link);
      copied = true;
    } catch {
      copied = false;
    }
    const input = h("input", { type: "text", readonly: true, value: link, class: "invite-copy", "aria-label": t("table.invite_button") });
    status.replaceChildren(copied ? t("table.invite.copied") : t("table.invite.copy_failed"), " ", input);
    status.hidden = false;
    input.select();
  }
}

// ---- the last capture and the previous mano ---------------------------------------------
// The last capture and the previous mano (docs/table-flow.md). Played cards are
// public, and the deal's history the server sends a seat holds only what that seat may
// see: both are read from it, nothing else. The capturing side's pile and seat are
// marked on the board; a small "Ultima presa" panel beside it shows which cards went
// where, with a button that shows the cards of the last finished mano (a round in
// which every player plays one card).

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
