// Chips (fiches, play money only) and numbers as the reader's language writes them: the
// balance in the top bar, the stake texts the lobby and the table show, and the locale
// helpers the competition pages share (numbers, dates, plurals through
// Intl.PluralRules). Apart from the wallet page (wallet.js): the bar and the table's
// head need these at once, the page's code only on /wallet.
import { plural as sharedPlural, language, t } from "../i18n.js";
import { h, link } from "./dom.js";

export function locale() {
  return language() === "it" ? "it-IT" : "en-GB";
}

// 1234 -> "1.234" (it) / "1,234" (en); `digits` fraction digits at most.
const formats = new Map(); // "locale digits" -> Intl.NumberFormat: each costs to make
export function num(n, digits = 0) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "\u2013";
  if (Number.isInteger(n) && Math.abs(n) < 1000) return String(n); // as Intl would, without its cost (i18n.js formatNumber)
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
