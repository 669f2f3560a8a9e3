// The leaderboards (/leaderboards): per game, mode (1 contro 1 / a coppie) and period
// (settimana / sempre), with the bots' fixed ratings drawn as reference rows among the
// players (1 against 1) and the player's own rating, so that a new player sees where
// they stand. The choice is kept in the address (?game=&mode=&period=).
import { api } from "../api.js";
import { t } from "../i18n.js";
import { botBadge, fill, h } from "./dom.js";
import { readableError } from "./errors.js";
import { RATED_GAMES, playerLink, ratingNodes } from "./player.js";
import { num, plural, signed } from "./chips.js";

const MODES = ["1v1", "pairs"];
const PERIODS = ["week", "all"];

export function mountLeaderboards(root, ctx) {
  const pick = (name, allowed, fallback) => (allowed.includes(ctx.query.get(name)) ? ctx.query.get(name) : fallback);
  const choice = {
    game: pick("game", RATED_GAMES, "cirulla"),
    mode: pick("mode", MODES, "1v1"),
    period: pick("period", PERIODS, "all"),
  };
  let alive = true;
  let token = 0;
  let mine = null; // the player's own ratings and the bots' (GET /api/players/{me}/ratings)
  const controls = h("div", { class: "leaderboard-controls" });
  const you = h("p", { class: "leaderboard-you" });
  const body = h("div", { class: "leaderboard-body", "aria-live": "polite" });
  root.appendChild(h("section", { class: "page leaderboards" },
    h("h1", {}, t("leaderboards.title")), controls, you, body,
    h("p", { class: "hint" }, t("leaderboards.help"))));

  function segmented(name, values, label, text) {
    return h("div", { class: "segmented", role: "group", "aria-label": label, dataset: { choice: name } },
      values.map((v) => h("button", {
        type: "button", name: `${name}-${v}`, "aria-pressed": String(choice[name] === v),
        onclick: () => {
          if (choice[name] === v) return;
          choice[name] = v;
          history.replaceState({}, "", `/leaderboards?game=${choice.game}&mode=${choice.mode}&period=${choice.period}`);
          drawControls();
          load();
        },
      }, text(v))));
  }

  function drawControls() {
    fill(controls,
      segmented("game", RATED_GAMES, t("ratings.game"), (g) => t(`ratings.game.${g}`)),
      segmented("mode", MODES, t("leaderboards.mode"), (m) => t(`ratings.mode.${m}`)),
      segmented("period", PERIODS, t("leaderboards.period"), (p) => t(`leaderboards.period.${p}`)));
  }

  function showYou() {
    if (!mine || !ctx.user) return fill(you);
    const r = mine.ratings ? mine.ratings[choice.mode] : null;
    return fill(you, t("leaderboards.you"), " ", ratingNodes(r));
  }

  // Rows of players, with a bot's reference row placed where its rating falls.
  function rows(entries) {
    const bots = choice.mode === "1v1" && mine ? Object.entries(mine.bots || {}).sort((a, b) => b[1] - a[1]) : [];
    const out = [];
    let b = 0;
    const botRow = ([level, rating]) => h("tr", { class: "bot-line", dataset: { level } },
      h("td", {}), h("td", { colspan: 2 }, t("leaderboards.bot_row", { level: t(`level.${level}`) })),
      h("td", { class: "num" }, num(rating)), h("td", {}), h("td", {}));
    for (const e of entries) {
      // established ratings first: the bots still above go before the first provisional one
      while (b < bots.length && (e.provisional || bots[b][1] > e.rating)) out.push(botRow(bots[b++]));
      const me = ctx.user && e.name === ctx.user.name;
      out.push(h("tr", { class: ["leaderboard-entry", me ? "me" : null, e.provisional ? "provisional" : null], dataset: { name: e.name } },
        h("td", { class: "num rank" }, num(e.rank)),
        h("td", { class: "name" }, playerLink(e.name), e.bot ? [" ", botBadge()] : null),
        h("td", {}, e.provisional ? h("span", { class: "badge provisional-badge", title: t("ratings.provisional_help") }, t("ratings.provisional")) : null),
        h("td", { class: "num rating", dataset: { rating: String(e.rating) } }, h("strong", {}, num(e.rating)), h("span", { class: "deviation" }, ` \u00b1 ${num(e.deviation)}`)),
        h("td", { class: "num" }, num(e.partite)),
        h("td", { class: ["num", "change", e.change > 0 ? "up" : e.change < 0 ? "down" : null] },
          e.change === null || e.change === undefined ? "" : signed(e.change, 1))));
    }
    while (b < bots.length) out.push(botRow(bots[b++]));
    return out;
  }

  async function load() {
    const mineToken = ++token;
    body.setAttribute("aria-busy", "true");
    const query = `game=${choice.game}&mode=${choice.mode}&period=${choice.period}&limit=100`;
    try {
      const [data, own] = await Promise.all([
        api("GET", `/api/leaderboard?${query}`),
        ctx.user
          ? api("GET", `/api/players/${encodeURIComponent(ctx.user.name)}/ratings?game=${choice.game}`).catch(() => null)
          : null,
      ]);
      if (!alive || mineToken !== token) return;
      mine = own;
      showYou();
      body.setAttribute("aria-busy", "false");
      const entries = data.entries || [];
      fill(body,
        entries.length ? null : h("p", { class: "empty" }, t("leaderboards.empty")),
        h("table", { class: "leaderboard", dataset: { game: choice.game, mode: choice.mode, period: choice.period } },
          h("thead", {}, h("tr", {},
            h("th", { scope: "col", class: "num" }, t("leaderboards.col.rank")),
            h("th", { scope: "col" }, t("leaderboards.col.name")),
            h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, t("ratings.provisional"))),
            h("th", { scope: "col", class: "num" }, t("leaderboards.col.rating")),
            h("th", { scope: "col", class: "num" }, t("leaderboards.col.partite")),
            h("th", { scope: "col", class: "num" }, choice.period === "week" ? t("leaderboards.col.change") : ""))),
          h("tbody", {}, rows(entries))),
        entries.length ? h("p", { class: "muted" }, plural("leaderboards.count", entries.length)) : null);
    } catch (err) {
      if (!alive || mineToken !== token) return;
      body.setAttribute("aria-busy", "false");
      fill(body, h("p", { class: "error", role: "alert" }, readableError(err)));
    }
  }

  drawControls();
  load();
  return {
    unmount() {
      alive = false;
    },
  };
}
