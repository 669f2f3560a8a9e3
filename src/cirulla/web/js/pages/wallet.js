// Chips (fiches, play money only): the balance in the top bar, the wallet page (/wallet)
// with every ledger movement and the daily top-up, and the stake texts the lobby and the
// table show. Also the locale helpers the competition pages share (numbers, dates,
// plurals through Intl.PluralRules).
import { api } from "../api.js";
import { hasKey, language, plural as sharedPlural, t } from "../i18n.js";
import { h, fill, link, uid } from "./dom.js";
import { readableError } from "./errors.js";

const PAGE_SIZE = 50;
const KINDS = ["welcome", "topup", "escrow", "release", "win", "loss", "entry_fee", "prize", "refund"];

export function locale() {
  return language() === "it" ? "it-IT" : "en-GB";
}

// 1234 -> "1.234" (it) / "1,234" (en); `digits` fraction digits at most.
const formats = new Map(); // "locale digits" -> Intl.NumberFormat: each costs to make
export function num(n, digits = 0) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "\u2013";
  const key = `${locale()} ${digits}`;
  if (!formats.has(key)) formats.set(key, new Intl.NumberFormat(locale(), { maximumFractionDigits: digits }));
  return formats.get(key).format(n);
}

// +12 / −12 (a real minus sign), for movements and rating changes.
export function signed(n, digits = 0) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "\u2013";
  const text = num(Math.abs(n), digits);
  if (n > 0) return `+${text}`;
  if (n < 0) return `\u2212${text}`;
  return text;
}

export function when(iso, { time = true } = {}) {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return iso || "";
  return d.toLocaleString(locale(), time ? { dateStyle: "medium", timeStyle: "short" } : { dateStyle: "medium" });
}

// plural("chips.count", 3): the shared helper (i18n.js), kept here for the pages that import it.
export function plural(key, n, params = {}) {
  return sharedPlural(key, n, params);
}

export function chipsText(n) {
  return plural("chips.count", n);
}

// Stake, maximum loss and rated, from a lobby entry or a table's config (either the
// flat entry or its "config" object carries them).
export function cashInfo(entry) {
  const cfg = entry && typeof entry.config === "object" && entry.config ? entry.config : {};
  const pick = (name) => (entry && entry[name] !== undefined ? entry[name] : cfg[name]);
  const stake = Number(pick("stake")) || 0;
  const maxLoss = Number(pick("max_loss")) || 0;
  const rated = pick("rated");
  if (rated === undefined) return { stake, maxLoss, rated: null };
  // rated only as the server rates (docs/ratings.md): people only, 1 against 1 or pairs, Cirulla's family
  const bots = Object.keys(pick("bots") || {}).length > 0 || (entry.seats || []).some((s) => s && s.bot);
  const players = Number(pick("players"));
  const game = pick("game") || "cirulla";
  return { stake, maxLoss, rated: Boolean(rated) && !bots && (players === 2 || players === 4) && game === "cirulla" };
}

export function stakeText(entry) {
  const { stake, maxLoss } = cashInfo(entry);
  if (!stake) return "";
  return t("cash.stake", { stake: chipsText(stake), max: chipsText(maxLoss) });
}

// The badges a table shows beside its name: "cash: 5 fiches a punto, max 200" and
// "rated" / "unrated" (when the server says).
export function cashBadges(entry) {
  const { stake, rated } = cashInfo(entry);
  return [
    stake ? h("span", { class: "badge cash-badge", dataset: { stake: String(stake) } }, stakeText(entry)) : null,
    rated === null ? null : h("span", { class: ["badge", "rated-badge", rated ? "rated" : "unrated"] },
      rated ? t("cash.rated") : t("cash.unrated")),
  ];
}

// ---- the create-table form's cash part (pages/create-table.js) ----------------------------

// The config keys for a draft: stake and max_loss for a cash table, rated only when off
// (true is the server's default).
export function cashRequest(d) {
  const out = {};
  if (d.cash) {
    out.stake = Number(d.stake);
    out.max_loss = Number(d.max_loss);
  }
  if (d.rated === false) out.rated = false;
  return out;
}

// What the server would refuse, said before sending (null when fine).
export function cashProblem(d) {
  if (!d.cash) return null;
  const stake = Number(d.stake);
  const maxLoss = Number(d.max_loss);
  if (!Number.isInteger(stake) || stake < 1 || !Number.isInteger(maxLoss) || maxLoss < 1) return t("cash.bad_numbers");
  if (maxLoss < stake) return t("cash.loss_below_stake");
  if (d.seats.slice(0, d.players).some((s) => s.startsWith("bot:"))) return t("cash.no_bots");
  return null;
}

export function cashField(d, choices, rerender) {
  const limits = (choices && choices.cash) || {};
  const number = (name, label, help, max) => {
    const id = uid("m");
    return h("div", { class: "field cash-number" },
      h("label", { for: id }, label),
      h("input", {
        id, type: "number", name, min: 1, max: max || null, step: 1, value: d[name], inputmode: "numeric",
        disabled: !d.cash, "aria-describedby": `${id}-help`,
        oninput: (e) => { d[name] = e.target.value; },
      }),
      h("small", { id: `${id}-help`, class: "hint" }, help));
  };
  const cashId = uid("m");
  const ratedId = uid("m");
  return h("fieldset", { class: ["field", "cash-field", d.cash ? "on" : null] },
    h("legend", {}, t("cash.legend")),
    h("div", { class: "check" },
      h("input", {
        type: "checkbox", id: cashId, name: "cash", checked: Boolean(d.cash), "aria-describedby": `${cashId}-help`,
        onchange: (e) => { d.cash = e.target.checked; rerender(); },
      }),
      h("label", { for: cashId }, t("cash.cash_table"), h("span", { class: "rule-ref" }, " M1")),
      h("small", { id: `${cashId}-help`, class: "hint" }, t("cash.cash_help"))),
    h("div", { class: "cash-numbers", hidden: !d.cash },
      number("stake", t("cash.stake_label"), t("cash.stake_help"), limits.max_stake),
      number("max_loss", t("cash.max_loss_label"), t("cash.max_loss_help"), limits.max_max_loss)),
    h("div", { class: "check" },
      h("input", {
        type: "checkbox", id: ratedId, name: "rated", checked: d.rated !== false, "aria-describedby": `${ratedId}-help`,
        onchange: (e) => { d.rated = e.target.checked; },
      }),
      h("label", { for: ratedId }, t("cash.rated_label")),
      h("small", { id: `${ratedId}-help`, class: "hint" }, t("cash.rated_help"))));
}

// ---- the top bar's balance -----------------------------------------------------------------

// {chips, escrow} from a user of GET /api/me (either on the user or beside it).
export function walletOf(data) {
  const src = data && data.user && data.user.chips !== undefined ? data.user : data || {};
  return { chips: Number(src.chips) || 0, escrow: Number(src.escrow) || 0, known: src.chips !== undefined };
}

export function walletBadge(wallet, current) {
  if (!wallet || !wallet.known) return h("span", { class: "wallet-badge", hidden: true });
  return link("/wallet", [
    h("span", { class: "chip-icon", "aria-hidden": "true" }),
    h("span", { class: "wallet-chips", dataset: { chips: String(wallet.chips) } }, num(wallet.chips)),
    wallet.escrow > 0
      ? h("span", { class: "wallet-escrow", dataset: { escrow: String(wallet.escrow) } },
          t("wallet.in_escrow_short", { n: num(wallet.escrow) }))
      : null,
  ], {
    class: "wallet-badge",
    title: wallet.escrow > 0
      ? `${chipsText(wallet.chips)} · ${t("wallet.escrow_title", { n: chipsText(wallet.escrow) })}`
      : chipsText(wallet.chips),
    "aria-label": t("wallet.badge_label", { n: chipsText(wallet.chips) }),
    "aria-current": current === "wallet" ? "page" : null,
  });
}

// ---- the wallet page -------------------------------------------------------------------------

function kindText(kind) {
  return KINDS.includes(kind) || hasKey(`wallet.kind.${kind}`) ? t(`wallet.kind.${kind}`) : kind;
}

// Where a movement came from: the table's replay once it is over, else the table.
function sourceLink(entry) {
  if (entry.tournament) {
    return link(`/tournament/${encodeURIComponent(entry.tournament)}`, t("wallet.tournament"), { class: "wallet-source" });
  }
  if (entry.table) {
    const over = entry.kind === "win" || entry.kind === "loss";
    const path = over ? `/replay/${encodeURIComponent(entry.table)}` : `/table/${encodeURIComponent(entry.table)}`;
    return link(path, over ? t("wallet.replay") : t("wallet.table"), { class: "wallet-source" });
  }
  return null;
}

export function mountWallet(root, ctx) {
  let alive = true;
  let next = null;
  const summary = h("div", { class: "wallet-summary", "aria-live": "polite" });
  const topupMessage = h("p", { class: "wallet-topup-message", role: "status" });
  const topup = h("button", { type: "button", name: "topup", class: "primary" }, t("wallet.topup"));
  const rows = h("tbody", {});
  const table = h("table", { class: "wallet-entries", hidden: true },
    h("caption", { class: "visually-hidden" }, t("wallet.movements")),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("wallet.col.when")),
      h("th", { scope: "col" }, t("wallet.col.kind")),
      h("th", { scope: "col", class: "num" }, t("wallet.col.amount")),
      h("th", { scope: "col", class: "num" }, t("wallet.col.balance")),
      h("th", { scope: "col" }, t("wallet.col.from")))),
    rows);
  const status = h("p", { class: "muted", role: "status" }, t("lobby.loading"));
  const more = h("button", { type: "button", name: "more", hidden: true }, t("wallet.more"));
  root.appendChild(h("section", { class: "page wallet-page" },
    h("h1", {}, t("wallet.title")),
    summary,
    h("div", { class: "wallet-topup" }, topup, h("small", { class: "hint" }, t("wallet.topup_help")), topupMessage),
    h("p", { class: "hint" }, t("wallet.play_money")),
    h("h2", {}, t("wallet.movements")),
    status, table, more));

  function showSummary(data) {
    fill(summary,
      h("p", { class: "wallet-balance" },
        h("span", { class: "label" }, t("wallet.free")), " ",
        h("strong", { class: "wallet-free", dataset: { chips: String(data.chips) } }, chipsText(data.chips))),
      h("p", { class: "wallet-balance" },
        h("span", { class: "label" }, t("wallet.escrow")), " ",
        h("strong", { class: "wallet-held", dataset: { escrow: String(data.escrow || 0) } }, chipsText(data.escrow || 0))),
      h("small", { class: "hint" }, t("wallet.escrow_help")));
  }

  function row(e) {
    return h("tr", { class: ["wallet-entry", `kind-${e.kind}`, e.amount < 0 ? "out" : "in"], dataset: { kind: e.kind, entry: String(e.id) } },
      h("td", {}, h("time", { datetime: e.at }, when(e.at))),
      // the server's note (English) only where the kind is not one the catalog explains
      h("td", { class: "kind", title: e.note || null }, kindText(e.kind),
        e.note && !KINDS.includes(e.kind) ? h("small", { class: "note" }, e.note) : null),
      h("td", { class: "num amount", dataset: { amount: String(e.amount) } }, signed(e.amount)),
      h("td", { class: "num balance" }, num(e.balance)),
      h("td", {}, sourceLink(e)));
  }

  async function load() {
    more.disabled = true;
    const query = `?limit=${PAGE_SIZE}${next !== null ? `&before=${encodeURIComponent(next)}` : ""}`;
    try {
      const data = await api("GET", `/api/wallet${query}`);
      if (!alive) return;
      if (next === null) showSummary(data);
      for (const e of data.entries || []) rows.appendChild(row(e));
      next = data.next ?? null;
      more.hidden = next === null;
      more.disabled = false;
      table.hidden = rows.children.length === 0;
      status.textContent = rows.children.length ? "" : t("wallet.empty");
    } catch (err) {
      if (!alive) return;
      status.textContent = readableError(err);
      status.classList.add("error");
      more.disabled = false;
    }
  }

  async function askTopup() {
    topup.disabled = true;
    topupMessage.textContent = "";
    topupMessage.classList.remove("error");
    try {
      const data = await api("POST", "/api/wallet/topup");
      if (!alive) return;
      topupMessage.textContent = t("wallet.topup_done", { n: chipsText(data.granted) });
      ctx.refreshWallet?.();
      next = null;
      rows.replaceChildren();
      await load();
    } catch (err) {
      if (!alive) return;
      topupMessage.textContent = readableError(err);
      topupMessage.classList.add("error");
    } finally {
      topup.disabled = false;
    }
  }

  topup.addEventListener("click", askTopup);
  more.addEventListener("click", load);
  load();
  return {
    unmount() {
      alive = false;
    },
  };
}
