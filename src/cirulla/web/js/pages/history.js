// The player's finished partite (GET /api/history), newest first, each with a link to
// its replay (/replay/:id).
import { api } from "../api.js";
import { language, t } from "../i18n.js";
import { botBadge, fill, h, link } from "./dom.js";
import { readableError } from "./errors.js";
import { playerLink } from "./player.js";

function when(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso || "";
  return d.toLocaleString(language() === "it" ? "it-IT" : "en-GB", { dateStyle: "medium", timeStyle: "short" });
}

function resultText(item) {
  if (item.won === true) return ["won", t("history.won")];
  if (item.won === false) return ["lost", t("history.lost")];
  return ["even", t("history.even")];
}

function playersText(summary, mySeat) {
  const names = summary.players || [];
  const bots = summary.bots || [];
  const accounts = summary.bot_accounts || [];
  return names.map((name, seat) => {
    const label = name || t("history.nobody");
    const bot = bots[seat];
    const level = bot && !label.includes(bot) ? ` (${t(`level.${bot}`)})` : "";
    const shown = name && !bot ? playerLink(name) : label;  // people have a profile, bots do not
    const account = accounts[seat] ? [" ", botBadge()] : null; // a bot account (docs/bots.md)
    return h("span", { class: ["player", seat === mySeat ? "me" : null, bot ? "bot" : null] }, shown, level, account);
  }).flatMap((el, i) => (i ? [", ", el] : [el]));
}

// The totals per side, the player's own side in bold.
function totalsNodes(summary, mySide) {
  const totals = summary.totals ?? summary.balances; // Cirulo: balances per seat
  if (!Array.isArray(totals)) return null;
  return totals.map((v, side) => (side === mySide ? h("strong", { class: "mine" }, String(v)) : String(v)))
    .flatMap((el, i) => (i ? [" – ", el] : [el]));
}

export function mountHistory(root, ctx) {
  let alive = true;
  const list = h("ol", { class: "history-list" });
  const status = h("p", { class: "muted", role: "status" }, t("history.loading"));
  const more = h("button", { type: "button", hidden: true, name: "more" }, t("history.more"));
  root.appendChild(h("section", { class: "page history" }, h("h1", {}, t("history.title")), status, list, more));
  let next = null;

  function item(entry) {
    const s = entry.summary || {};
    const [kind, text] = resultText(entry);
    return h("li", { class: ["history-item", kind], dataset: { table: entry.table } },
      h("div", { class: "history-head" },
        h("span", { class: ["result", kind] }, text),
        h("span", { class: "game" }, t(`preset.${entry.game}`)),
        h("time", { datetime: entry.finished_at }, when(entry.finished_at))),
      h("p", { class: "history-players" }, playersText(s, entry.seat)),
      h("p", { class: "history-score" },
        totalsNodes(s, entry.side) ? [t("history.points"), " ", totalsNodes(s, entry.side)] : "",
        s.deals ? ` · ${t("history.deals", { n: s.deals })}` : "",
        s.end_reason ? ` · ${t(`history.reason.${s.end_reason}`)}` : ""),
      s.hints && s.hints.length ? h("p", { class: "history-hints" }, t("history.hints")) : null,
      link(`/replay/${encodeURIComponent(entry.table)}`, t("history.replay"), { class: "button small" }));
  }

  async function load() {
    more.disabled = true;
    const query = next ? `?before=${encodeURIComponent(next)}` : "";
    try {
      const data = await api("GET", `/api/history${query}`);
      if (!alive) return;
      for (const entry of data.history) list.appendChild(item(entry));
      next = data.next;
      more.hidden = !next;
      more.disabled = false;
      if (!list.children.length) fill(status, t("history.empty"), " ", link("/lobby", t("history.play")));
      else status.textContent = "";
    } catch (err) {
      if (!alive) return;
      status.textContent = readableError(err);
      status.classList.add("error");
      more.disabled = false;
    }
  }

  more.addEventListener("click", load);
  load();
  return {
    unmount() {
      alive = false;
    },
  };
}
