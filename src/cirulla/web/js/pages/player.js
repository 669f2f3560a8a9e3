// A player's public profile (/player/:name): ratings (provisional marked) with their
// history drawn as an inline SVG chart, partite played and won, chips won at cash
// tables, tornei and results, recent partite with their replays, the statistics and
// the luck index, and a playban if one runs. Three requests, each part drawn when its
// answer comes (one failing leaves the others).
import { api } from "../api.js";
import { hasKey, t } from "../i18n.js";
import { botBadge, fill, h, link } from "./dom.js";

export { playerLink } from "./dom.js";
import { readableError } from "./errors.js";
import { chipsText, num, plural, signed, when } from "./chips.js";

export const RATED_GAMES = ["cirulla", "scopa", "cirullone"];
const MODES = ["1v1", "pairs"];

// A name that leads to its profile (plain text for an empty seat).

// "1523 ± 80" with a "provisional" mark (the rating is still a guess).
export function ratingNodes(r) {
  if (!r) return h("span", { class: "rating none" }, t("ratings.unrated"));
  return h("span", { class: ["rating", r.provisional ? "provisional" : null], dataset: { rating: String(r.rating) } },
    h("strong", {}, num(r.rating)),
    h("span", { class: "deviation", title: t("ratings.deviation_help") }, ` \u00b1 ${num(r.deviation)}`),
    r.provisional ? h("span", { class: "badge provisional-badge", title: t("ratings.provisional_help") }, t("ratings.provisional")) : null);
}

// ---- the rating chart -------------------------------------------------------------------------

const W = 560;
const H = 200;
const PAD = { left: 48, right: 12, top: 12, bottom: 22 };
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined) el.append(c);
  return el;
}

// The ratings after each rated partita, one step apart, with the bots' fixed ratings
// as dashed lines when they fall near the player's range.
export function ratingChart(points, bots = {}) {
  if (!points || points.length === 0) return h("p", { class: "muted chart-empty" }, t("ratings.no_history"));
  const values = points.map((p) => p.rating);
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const near = Object.entries(bots).filter(([, r]) => r >= lo - 150 && r <= hi + 150);
  for (const [, r] of near) {
    lo = Math.min(lo, r);
    hi = Math.max(hi, r);
  }
  if (hi - lo < 50) {
    lo -= 25;
    hi += 25;
  }
  const x = (i) => PAD.left + (points.length === 1 ? (W - PAD.left - PAD.right) / 2 : (i * (W - PAD.left - PAD.right)) / (points.length - 1));
  const y = (r) => PAD.top + ((hi - r) * (H - PAD.top - PAD.bottom)) / (hi - lo);
  const title = t("ratings.chart_title", { first: num(values[0]), last: num(values[values.length - 1]), n: points.length });
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "rating-chart", role: "img", "aria-label": title },
    svg("title", {}, title),
    svg("line", { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: H - PAD.bottom, class: "axis" }),
    svg("line", { x1: PAD.left, y1: H - PAD.bottom, x2: W - PAD.right, y2: H - PAD.bottom, class: "axis" }),
    svg("text", { x: PAD.left - 6, y: y(hi) + 4, class: "tick", "text-anchor": "end" }, num(hi)),
    svg("text", { x: PAD.left - 6, y: y(lo) + 4, class: "tick", "text-anchor": "end" }, num(lo)));
  for (const [level, r] of near) {
    chart.append(
      svg("line", { x1: PAD.left, y1: y(r), x2: W - PAD.right, y2: y(r), class: "bot-line", "data-level": level }),
      svg("text", { x: W - PAD.right - 2, y: y(r) - 3, class: "bot-label", "text-anchor": "end" },
        t("ratings.bot_line", { level: t(`level.${level}`), rating: num(r) })));
  }
  const path = points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  chart.append(svg("polyline", { points: path, class: "rating-line" }));
  points.forEach((p, i) => {
    chart.append(svg("circle", { cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: 3, class: "rating-point" },
      svg("title", {}, `${when(p.at)}: ${num(p.rating)} \u00b1 ${num(p.deviation)}`)));
  });
  return chart;
}

// ---- statistics -------------------------------------------------------------------------------

function statLabel(key) {
  return hasKey(`stats.${key}`) ? t(`stats.${key}`) : key.replace(/_/g, " ");
}

// Rates (a key ending in "rate", a share from 0 to 1) as percentages; counts as numbers.
function statValue(key, value) {
  if (value === null || value === undefined) return "\u2013";
  if (typeof value === "number") {
    if (/(rate|share|percent)$/.test(key) && value >= 0 && value <= 1) return `${num(value * 100, 1)}%`;
    return num(value, 2);
  }
  if (typeof value === "boolean") return value ? "\u2713" : "\u2013";
  if (typeof value === "object") return statList(value);
  return String(value);
}

function statList(obj) {
  return h("dl", { class: "stat-list" },
    Object.entries(obj).map(([k, v]) => {
      const group = v !== null && typeof v === "object" ? "group" : null; // a heading, then its own list
      return [h("dt", { class: group }, statLabel(k)), h("dd", { class: group, dataset: { stat: k } }, statValue(k, v))];
    }));
}

// The luck index's own words: what it compares, then its numbers.
function luckPanel(luck) {
  const has = luck && typeof luck === "object" && Object.keys(luck).length > 0;
  return h("section", { class: "panel player-luck" },
    h("h2", {}, t("player.luck")),
    h("p", { class: "hint" }, t("player.luck_explained")),
    has ? statList(luck) : h("p", { class: "muted" }, t("player.no_stats")));
}

// ---- the page ---------------------------------------------------------------------------------

export function mountPlayer(root, ctx) {
  const name = ctx.params[0];
  let alive = true;
  let game = "cirulla";
  const head = h("div", { class: "player-head" }, h("h1", {}, name));
  const ban = h("div", { class: "player-playban" });
  const ratings = h("section", { class: "panel player-ratings" }, h("h2", {}, t("player.ratings")), h("p", { class: "muted" }, t("lobby.loading")));
  const partite = h("section", { class: "panel player-partite" }, h("h2", {}, t("player.partite")));
  const chips = h("section", { class: "panel player-chips" }, h("h2", {}, t("player.chips")), h("p", { class: "muted" }, t("lobby.loading")));
  const stats = h("div", { class: "player-stats-root" });
  const tournaments = h("section", { class: "panel player-tournaments" }, h("h2", {}, t("player.tournaments")));
  const recent = h("section", { class: "panel player-recent" }, h("h2", {}, t("player.recent")));
  const error = h("p", { class: "error", role: "alert", hidden: true });
  root.appendChild(h("section", { class: "page player-page", dataset: { player: name } },
    head, error, ban,
    h("div", { class: "player-grid" }, ratings, partite, chips, stats, tournaments, recent)));

  function failed(err) {
    if (!alive) return;
    error.textContent = readableError(err);
    error.hidden = false;
  }

  // ---- GET /api/players/{name} ----
  function showProfile(p) {
    fill(head,
      h("h1", {}, p.name),
      p.bot ? botBadge() : null,
      p.guest ? h("span", { class: "badge" }, t("nav.guest")) : null,
      p.created ? h("p", { class: "muted" }, t("player.since", { when: when(p.created, { time: false }) })) : null);
    fill(ban, p.playban
      ? h("p", { class: "playban-notice", role: "status" },
          t("player.playban", { until: when(p.playban.until) }), p.playban.reason ? ` (${p.playban.reason})` : "")
      : null);
    const c = p.partite || {};
    fill(partite, h("h2", {}, t("player.partite")),
      h("dl", { class: "stat-list partite-counts" },
        ["played", "won", "lost", "drawn"].map((k) => [
          h("dt", {}, t(`player.partite.${k}`)),
          h("dd", { dataset: { count: k } }, num(c[k] ?? 0))])),
      c.played ? h("p", { class: "muted" }, t("player.win_share", { pct: num((100 * (c.won || 0)) / c.played, 1) })) : null);
    fill(stats,
      h("section", { class: "panel player-stats" },
        h("h2", {}, t("player.stats")),
        p.stats && Object.keys(p.stats).length ? statList(p.stats) : h("p", { class: "muted" }, t("player.no_stats"))),
      luckPanel(p.luck));
    const ts = p.tournaments || [];
    fill(tournaments, h("h2", {}, t("player.tournaments")),
      ts.length
        ? h("ul", { class: "player-tournament-list" }, ts.map((s) => h("li", {},
            link(`/tournament/${encodeURIComponent(s.id)}`, s.name || s.id), " ",
            h("span", { class: "muted" },
              s.rank ? t("player.rank_of", { rank: num(s.rank), n: num(s.entrants) }) : t("tournament.status.cancelled"),
              s.finished ? ` \u00b7 ${when(s.finished, { time: false })}` : ""))))
        : h("p", { class: "muted" }, t("player.no_tournaments")));
    const rs = p.recent || [];
    fill(recent, h("h2", {}, t("player.recent")),
      rs.length
        ? h("ul", { class: "player-recent-list" }, rs.map(recentItem))
        : h("p", { class: "muted" }, t("player.no_recent")));
  }

  function recentItem(r) {
    const result = ["won", "lost", "drawn"].includes(r.result) ? r.result : "drawn";
    // the names when the server lists them, else how many played
    const players = Array.isArray(r.players)
      ? r.players.map((n) => (n === name ? h("strong", {}, n) : playerLink(n))).flatMap((el, i) => (i ? [", ", el] : [el]))
      : typeof r.players === "number" ? t("lobby.players", { n: r.players }) : "";
    const forfeit = r.forfeit && hasKey(`history.reason.${r.forfeit}`) ? ` \u00b7 ${t(`history.reason.${r.forfeit}`)}` : "";
    return h("li", { class: ["player-recent-item", result], dataset: { table: r.table } },
      h("span", { class: ["result", result] }, t(`player.result.${result}`)),
      " ", h("span", { class: "game" }, t(`preset.${r.preset || r.game}`)),
      r.score ? h("span", { class: "score" }, ` ${r.score}`) : null,
      h("span", { class: "players" }, " \u00b7 ", players, forfeit),
      r.ended ? h("time", { datetime: r.ended }, ` \u00b7 ${when(r.ended)}`) : null, " ",
      link(r.replay || `/replay/${encodeURIComponent(r.table)}`, t("history.replay"), { class: "button small" }));
  }

  // ---- GET /api/players/{name}/ratings?game= ----
  async function loadRatings() {
    try {
      const data = await api("GET", `/api/players/${encodeURIComponent(name)}/ratings?game=${game}`);
      if (alive) showRatings(data);
    } catch (err) {
      if (!alive) return;
      fill(ratings, h("h2", {}, t("player.ratings")), h("p", { class: "error" }, readableError(err)));
    }
  }

  function showRatings(data) {
    const picker = h("div", { class: "segmented", role: "group", "aria-label": t("ratings.game") },
      RATED_GAMES.map((g) => h("button", {
        type: "button", name: `game-${g}`, "aria-pressed": String(g === game),
        onclick: () => { game = g; loadRatings(); },
      }, t(`ratings.game.${g}`))));
    const bots = data.bots || {};
    fill(ratings, h("h2", {}, t("player.ratings")), picker,
      MODES.map((mode) => {
        const r = data.ratings ? data.ratings[mode] : null;
        const history = (data.history && data.history[mode]) || [];
        return h("div", { class: "player-rating", dataset: { mode } },
          h("h3", {}, t(`ratings.mode.${mode}`)),
          h("p", {}, ratingNodes(r), r ? h("span", { class: "muted" }, " \u00b7 ", plural("ratings.partite", r.partite)) : null),
          history.length ? ratingChart(history, mode === "1v1" ? bots : {}) : null);
      }),
      Object.keys(bots).length
        ? h("p", { class: "hint bots-reference" }, t("ratings.bots_reference"), " ",
            Object.entries(bots).map(([level, r]) => `${t(`level.${level}`)} ${num(r)}`).join(" \u00b7 "))
        : null);
  }

  // ---- GET /api/players/{name}/chips ----
  async function loadChips() {
    try {
      const c = await api("GET", `/api/players/${encodeURIComponent(name)}/chips`);
      if (!alive) return;
      fill(chips, h("h2", {}, t("player.chips")),
        h("dl", { class: "stat-list chips-counts" },
          h("dt", {}, t("player.chips.won")), h("dd", { dataset: { chips: "won" } }, chipsText(c.won)),
          h("dt", {}, t("player.chips.lost")), h("dd", { dataset: { chips: "lost" } }, chipsText(c.lost)),
          h("dt", {}, t("player.chips.net")), h("dd", { dataset: { chips: "net" }, class: c.net < 0 ? "out" : "in" }, signed(c.net)),
          h("dt", {}, t("player.chips.partite")), h("dd", { dataset: { chips: "partite" } }, num(c.partite))));
    } catch (err) {
      if (alive) fill(chips, h("h2", {}, t("player.chips")), h("p", { class: "error" }, readableError(err)));
    }
  }

  api("GET", `/api/players/${encodeURIComponent(name)}`).then((p) => alive && showProfile(p), failed);
  loadRatings();
  loadChips();
  return {
    unmount() {
      alive = false;
    },
  };
}
