// The wallet page (/wallet): every ledger movement and the daily top-up; and the
// create-table form's cash part. The balance in the top bar and the stake texts are
// chips.js's.
import { api } from "../api.js";
import { hasKey, t } from "../i18n.js";
import { chipsText, num, signed, when } from "./chips.js";
import { h, fill, link, uid } from "./dom.js";
import { readableError } from "./errors.js";

const PAGE_SIZE = 50;
const KINDS = ["welcome", "topup", "escrow", "release", "win", "loss", "entry_fee", "prize", "refund"];

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
