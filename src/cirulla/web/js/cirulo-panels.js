// The panels of a Cirulo table around the board: the settlement of a hand (coins per
// player, what each paid and received, the pot shared or carried) with the running
// balances in points and chips, the balances beside the board, the end of the game,
// the seats of an open table and its settings. Amounts are whole numbers or, with
// split "exact", fractions the server writes as "85/3".
import { SPANISH_SUITS, suitName, suitPip } from "./cirulo-cards.js";
import { seatLabel } from "./cirulo-board.js";
import { t } from "./i18n.js";
import { formatClock, h } from "./table-dom.js";
import { botBadge } from "./pages/dom.js";

// ---- amounts -----------------------------------------------------------------------------

function gcd(a, b) {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y) [x, y] = [y, x % y];
  return x || 1;
}

// 37, "85/3" -> {n, d} (d > 0, reduced).
export function parseAmount(value) {
  if (typeof value === "number") return { n: value, d: 1 };
  const m = /^(-?\d+)(?:\/(\d+))?$/.exec(String(value ?? "0").trim());
  if (!m) return { n: 0, d: 1 };
  const n = Number(m[1]);
  const d = m[2] ? Number(m[2]) : 1;
  const g = gcd(n, d);
  return { n: n / g, d: d / g };
}

export function addAmounts(a, b) {
  const x = parseAmount(a);
  const y = parseAmount(b);
  const n = x.n * y.d + y.n * x.d;
  const d = x.d * y.d;
  const g = gcd(n, d);
  return d / g === 1 ? n / g : `${n / g}/${d / g}`;
}

export function timesAmount(a, k) {
  const x = parseAmount(a);
  const n = x.n * k;
  const g = gcd(n, x.d);
  return x.d / g === 1 ? n / g : `${n / g}/${x.d / g}`;
}

// "37", "+37", "−29", "28 1/3" (a minus sign, not a hyphen).
export function formatAmount(value, { sign = false } = {}) {
  const { n, d } = parseAmount(value);
  const neg = n < 0;
  const abs = Math.abs(n);
  const whole = Math.floor(abs / d);
  const rest = abs % d;
  let text = rest ? (whole ? `${whole} ${rest}/${d}` : `${rest}/${d}`) : String(whole);
  if (neg) text = `\u2212${text}`;
  else if (sign && abs) text = `+${text}`;
  return text;
}

function amountClass(value) {
  const { n } = parseAmount(value);
  return n > 0 ? "plus" : n < 0 ? "minus" : "zero";
}

function pointValue(view) {
  const rules = view.deal ? view.deal.rules : null;
  return Number((rules && rules.point_value) || (view.config.options || {}).point_value || 1);
}

// The balances after hand `index` (0-based): the server's totals and chips for the last
// hand, the sum of the settlements before it for an earlier one.
export function balancesAfter(view, index) {
  const scores = (view.scores || []).filter(Boolean);
  const n = view.config.players;
  const pv = pointValue(view);
  if (index >= scores.length - 1 && view.totals && !view.forfeit) {
    return { points: view.totals, chips: view.chips || view.totals.map((x) => timesAmount(x, pv)) };
  }
  const points = Array.from({ length: n }, () => 0);
  for (let i = 0; i <= index && i < scores.length; i += 1) {
    for (let s = 0; s < n; s += 1) points[s] = addAmounts(points[s], scores[i].balances[s]);
  }
  return { points, chips: points.map((x) => timesAmount(x, pv)) };
}

// ---- the settlement of a hand ------------------------------------------------------------

function sum(values) {
  return values.reduce((a, b) => addAmounts(a, b), 0);
}

function balancesTable(view, points, chips, caption) {
  const n = view.config.players;
  return h("table", { class: "cbalances-table" },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("cirulo.col.player")),
      h("th", { scope: "col" }, t("cirulo.col.points")),
      h("th", { scope: "col" }, t("cirulo.col.chips")))),
    h("tbody", {}, Array.from({ length: n }, (_, s) => h("tr", { dataset: { seat: s }, class: view.you === s ? "mine" : null },
      h("th", { scope: "row" }, seatLabel(view.seats, s)),
      h("td", { class: ["points", amountClass(points[s])] }, formatAmount(points[s], { sign: true })),
      h("td", { class: ["chips", amountClass(chips[s])] }, formatAmount(chips[s], { sign: true }))))));
}

// The settlement of hand `index` and the balances after it; onClose (optional) adds a
// close button, onPick (optional) a choice of hand.
export function settlementPanel(view, index, { onClose = null, onPick = null } = {}) {
  const scores = view.scores || [];
  const score = scores[index];
  const n = view.config.players;
  const pv = pointValue(view);
  const names = Array.from({ length: n }, (_, s) => seatLabel(view.seats, s));
  const receivers = new Set(score.receivers);
  const rows = names.map((name, s) => h("tr", { dataset: { seat: s }, class: [receivers.has(s) ? "receiver" : null, view.you === s ? "mine" : null] },
    h("th", { scope: "row" }, name),
    h("td", { class: "coins" }, String(score.coins[s])),
    h("td", { class: "paid" }, score.paid[s] ? formatAmount(-score.paid[s]) : "0"),
    h("td", { class: "share" }, receivers.has(s) ? formatAmount(score.share, { sign: true }) : "\u2013"),
    h("td", { class: ["balance", amountClass(score.balances[s])] }, formatAmount(score.balances[s], { sign: true })),
    h("td", { class: ["chips", amountClass(score.balances[s])] }, formatAmount(timesAmount(score.balances[s], pv), { sign: true }))));
  const paid = sum(score.paid);
  const lines = [t("cirulo.settle.pot", { pot_in: formatAmount(score.pot_in), paid: formatAmount(paid), pot: formatAmount(score.pot) })];
  if (score.receivers.length) {
    lines.push(t("cirulo.settle.shared", {
      names: score.receivers.map((s) => names[s]).join(", "),
      share: formatAmount(score.share),
    }));
    if (parseAmount(score.carried).n) lines.push(t("cirulo.settle.remainder", { carried: formatAmount(score.carried) }));
  } else {
    lines.push(t("cirulo.settle.nobody", { pot: formatAmount(score.carried) }));
  }
  const after = balancesAfter(view, index);
  const nav = onPick && scores.length > 1
    ? h("nav", { class: "csettle-nav", "aria-label": t("cirulo.settle.pick") },
        scores.map((_, i) => h("button", { type: "button", class: "small", "aria-pressed": String(i === index), onclick: () => onPick(i) }, String(i + 1))))
    : null;
  return h("section", { class: "csettle", role: "region", "aria-label": t("cirulo.settle.title", { n: index + 1 }), dataset: { hand: index } },
    h("header", { class: "csettle-head" },
      h("h2", {}, t("cirulo.settle.title", { n: index + 1 })),
      onClose ? h("button", { type: "button", class: "close-settle small", onclick: onClose }, t("cirulo.close")) : null),
    nav,
    h("div", { class: "ctable-scroll" },
      h("table", { class: "csettle-table" },
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, t("cirulo.col.player")),
          h("th", { scope: "col", title: t("cirulo.col.coins.long") }, suitPip("O"), " ", t("cirulo.col.coins")),
          h("th", { scope: "col" }, t("cirulo.col.paid")),
          h("th", { scope: "col" }, t("cirulo.col.share")),
          h("th", { scope: "col" }, t("cirulo.col.balance")),
          h("th", { scope: "col" }, t("cirulo.col.balance_chips", { pv })))),
        h("tbody", {}, rows))),
    h("ul", { class: "csettle-pot" }, lines.map((line) => h("li", {}, line))),
    h("div", { class: "ctable-scroll" }, balancesTable(view, after.points, after.chips, t("cirulo.balances.after", { n: index + 1 }))));
}

// ---- beside the board ----------------------------------------------------------------------

export function balancesPanel(view, { onSettle = null } = {}) {
  const n = view.config.players;
  const totals = view.totals || Array.from({ length: n }, () => 0);
  const chips = view.chips || totals;
  const scores = view.scores || [];
  return h("section", { class: "cbalances", "aria-label": t("cirulo.balances") },
    h("h2", {}, t("cirulo.balances")),
    h("div", { class: "ctable-scroll" }, balancesTable(view, totals, chips, t("cirulo.balances.caption", { pv: pointValue(view) }))),
    h("p", { class: "cpot" }, suitPip("O"), " ", t("cirulo.pot", { pot: formatAmount(view.pot ?? 0) })),
    scores.length && onSettle
      ? h("button", { type: "button", class: "open-settle", onclick: onSettle }, t("cirulo.settle.open", { n: scores.length }))
      : null);
}

// What is on the table besides the trick: the pot, the clean tricks in the centre, the
// cards put aside (CI2), the last trick.
export function infoStrip(view, deal, { deck, lang, cardElement, cardName, lastTrick }) {
  const items = [];
  if (deal.led) {
    items.push(h("div", { class: ["cinfo-item", "cinfo-led", `csuit-${deal.led}`] },
      h("span", { class: "cinfo-label" }, t("cirulo.led.label")),
      suitPip(deal.led), h("strong", {}, suitName(deal.led, lang))));
  }
  items.push(h("div", { class: "cinfo-item cinfo-pot" },
    h("span", { class: "cinfo-label" }, t("cirulo.pot.label")),
    h("strong", {}, formatAmount(deal.pot ?? 0))));
  items.push(h("div", { class: "cinfo-item cinfo-center", title: t("cirulo.center.long") },
    h("span", { class: "cinfo-label" }, t("cirulo.center")),
    h("strong", {}, String(deal.center))));
  if (deal.removed && deal.removed.length) {
    items.push(h("div", { class: "cinfo-item cinfo-removed", role: "group", "aria-label": t("cirulo.removed.label", { cards: deal.removed.map((c) => cardName(c, deck, lang)).join(", ") }) },
      h("span", { class: "cinfo-label", title: t("cirulo.removed.long") }, t("cirulo.removed")),
      h("div", { class: "cmini" }, deal.removed.map((c) => cardElement(c, { deck, lang })))));
  }
  const last = lastTrick(deal);
  if (last) {
    items.push(h("div", { class: "cinfo-item cinfo-last", role: "group", "aria-label": t("cirulo.last_trick.label", { name: seatLabel(view.seats, last.winner), cards: last.cards.map((c) => cardName(c, deck, lang)).join(", ") }) },
      h("span", { class: "cinfo-label" }, t("cirulo.last_trick", { name: seatLabel(view.seats, last.winner) })),
      h("div", { class: "cmini" }, last.cards.map((c, i) => {
        const el = cardElement(c, { deck, lang, label: false });
        if (last.seats[i] === last.winner) el.classList.add("winner");
        return el;
      }))));
  }
  return h("div", { class: "cinfo" }, items);
}

// ---- the end -------------------------------------------------------------------------------

export function endPanel(view, { onLobby }) {
  const n = view.config.players;
  const result = view.result || {};
  const totals = result.totals || view.totals || Array.from({ length: n }, () => 0);
  const pv = pointValue(view);
  const chips = !view.forfeit && view.chips ? view.chips : totals.map((x) => timesAmount(x, pv));
  const scores = (view.scores || []).filter(Boolean);
  const names = Array.from({ length: n }, (_, s) => seatLabel(view.seats, s));
  let reason = null;
  if (view.forfeit) {
    reason = t(`cirulo.end.forfeit.${view.forfeit.reason}`, { name: names[view.forfeit.seat] ?? "?" });
  } else if (result.reason) {
    reason = t("cirulo.end.hands", { n: scores.length });
  }
  const mine = view.you !== null && view.you !== undefined ? totals[view.you] : null;
  const headline = mine === null ? t("cirulo.end.title")
    : parseAmount(mine).n > 0 ? t("cirulo.end.you_won", { points: formatAmount(mine) })
      : parseAmount(mine).n < 0 ? t("cirulo.end.you_lost", { points: formatAmount(timesAmount(mine, -1)) })
        : t("cirulo.end.you_even");
  const perHand = scores.length
    ? h("div", { class: "ctable-scroll" }, h("table", { class: "chands-table" },
        h("caption", {}, t("cirulo.end.per_hand")),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("cirulo.col.hand")), names.map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, scores.map((sc, i) => h("tr", {},
          h("th", { scope: "row" }, String(i + 1)),
          sc.balances.map((b) => h("td", { class: amountClass(b) }, formatAmount(b, { sign: true }))))))))
    : null;
  const pot = parseAmount(view.pot ?? 0).n && !view.forfeit ? h("p", { class: "cend-pot" }, t("cirulo.end.pot", { pot: formatAmount(view.pot) })) : null;
  return h("section", { class: "end-panel cend", role: "region", "aria-label": t("cirulo.end.title") },
    h("h2", {}, t("cirulo.end.title")),
    h("p", { class: "winner" }, headline),
    reason ? h("p", { class: "end-reason" }, reason) : null,
    h("div", { class: "ctable-scroll" }, balancesTable(view, totals, chips, t("cirulo.end.final"))),
    pot,
    perHand,
    h("div", { class: "end-actions" },
      h("button", { type: "button", class: "lobby-link primary", onclick: onLobby }, t("table.end.lobby"))));
}

// ---- an open table ---------------------------------------------------------------------------

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
      ? [h("span", { class: "seat-name" }, seat.name),
          seat.bot ? h("span", { class: "chip bot" }, t("cirulo.bot", { level: t(`table.level.${seat.bot}`) })) : null,
          seat.bot_account ? botBadge({ cls: "chip" }) : null,
          seat.user && me && seat.user === me.id ? h("span", { class: "chip you" }, t("table.you")) : null]
      : h("span", { class: "free" }, t("table.seat.free"));
    items.push(h("li", { class: ["seat-row", seat ? "taken" : "free"], dataset: { seat: s } },
      h("span", { class: "seat-no" }, t("table.seat.number", { n: s + 1 })), who, action));
  }
  const free = view.seats.filter((s) => !s).length;
  return h("section", { class: "seat-list" },
    h("h2", {}, t("table.open.title")),
    h("p", { class: "waiting-note" }, t("cirulo.open.waiting", { n: free })),
    h("ol", {}, items));
}

export function configSummary(view) {
  const c = view.config;
  const o = c.options || {};
  const deck = o.deck || "spanish48";
  const hands = o.hands ?? c.players;
  return h("section", { class: "config-summary" },
    h("h2", {}, t("table.config")),
    h("dl", {},
      h("dt", {}, t("cirulo.config.game")), h("dd", {}, t("cirulo.name")),
      h("dt", {}, t("table.config.players")), h("dd", {}, String(c.players)),
      h("dt", {}, t("cirulo.config.deck")), h("dd", {}, t(`cirulo.deck.${deck}`)),
      h("dt", {}, t("cirulo.config.point_value")), h("dd", {}, String(o.point_value ?? 1)),
      h("dt", {}, t("cirulo.config.hands")), h("dd", {}, String(hands)),
      h("dt", {}, t("cirulo.config.discard_order")), h("dd", {}, (o.discard_order || "CEB").split("").map((x) => SPANISH_SUITS[x]).join(", ")),
      h("dt", {}, t("cirulo.config.split")), h("dd", {}, t(`cirulo.split.${o.split || "carry"}`)),
      h("dt", {}, t("table.config.move_clock")), h("dd", {}, c.move_seconds ? formatClock(c.move_seconds * 1000) : "\u2013"),
      h("dt", {}, t("table.config.partita_clock")), h("dd", {}, c.partita_seconds ? formatClock(c.partita_seconds * 1000) : "\u2013")));
}
