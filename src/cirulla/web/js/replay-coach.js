// The coach on the replay page: the analysis of the partita (GET/POST
// /api/history/:id/analysis), one click by one of its players; while it runs, its
// progress; once done, each move marked good, inaccuracy, mistake or blunder, the
// better move lit on the board before it is played, and an SVG graph of each side's
// expected score through the partita (no library). See docs/coach.md.
import { api } from "./api.js";
import { plural, t } from "./i18n.js";
import { drawMove, moveWords } from "./table-coach.js";
import { h } from "./table-dom.js";

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 1000;

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c) el.append(c);
  return el;
}

export function markBadge(entry) {
  if (!entry) return null;
  const cls = entry.forced ? "forced" : entry.class;
  return h("span", { class: ["coach-mark", `mark-${cls}`], title: t("coach.loss", { loss: entry.loss.toFixed(2) }) },
    t(`coach.class.${cls}`));
}

// Each side's expected partita score after every analysed move: one line per side, the
// mover's mistakes and blunders as dots, the current move as a vertical line.
export function expectedGraph(moves, { sideNames, current = -1, onPick = null, width = 360, height = 140 }) {
  const pad = { left: 28, right: 8, top: 8, bottom: 16 };
  const n = moves.length;
  const sides = sideNames.length;
  const all = moves.flatMap((m) => m.expected_totals || []);
  const top = Math.max(1, ...all);
  const bottom = Math.min(0, ...all);
  const x = (i) => pad.left + (n <= 1 ? 0 : (i * (width - pad.left - pad.right)) / (n - 1));
  const y = (v) => pad.top + ((top - v) * (height - pad.top - pad.bottom)) / (top - bottom || 1);
  const lines = [];
  for (let s = 0; s < sides; s += 1) {
    const points = moves.map((m, i) => `${x(i).toFixed(1)},${y((m.expected_totals || [])[s] ?? 0).toFixed(1)}`).join(" ");
    lines.push(svg("polyline", { class: `coach-line side-${s}`, points, fill: "none" }));
  }
  const dots = [];
  moves.forEach((m, i) => {
    if (m.forced || (m.class !== "mistake" && m.class !== "blunder")) return;
    const side = m.side ?? 0;
    const dot = svg("circle", { class: `coach-dot mark-${m.class}`, cx: x(i).toFixed(1), cy: y((m.expected_totals || [])[side] ?? 0).toFixed(1), r: m.class === "blunder" ? 4 : 3 },
      svg("title", {}, document.createTextNode(`${t(`coach.class.${m.class}`)}: ${m.played}`)));
    if (onPick) dot.addEventListener("click", () => onPick(i));
    dots.push(dot);
  });
  const axis = [
    svg("line", { class: "coach-axis", x1: pad.left, y1: y(bottom), x2: width - pad.right, y2: y(bottom) }),
    svg("text", { class: "coach-tick", x: pad.left - 4, y: y(top) + 4, "text-anchor": "end" }, document.createTextNode(String(Math.round(top)))),
    svg("text", { class: "coach-tick", x: pad.left - 4, y: y(bottom), "text-anchor": "end" }, document.createTextNode(String(Math.round(bottom)))),
  ];
  const cursor = current >= 0 && current < n
    ? svg("line", { class: "coach-cursor", x1: x(current), y1: pad.top, x2: x(current), y2: height - pad.bottom })
    : null;
  const chart = svg("svg", { class: "coach-graph", viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": t("coach.graph") },
    axis, lines, cursor, dots);
  const legend = h("ul", { class: "coach-legend" },
    sideNames.map((name, s) => h("li", { class: `side-${s}` }, h("span", { class: "swatch", "aria-hidden": "true" }), name)));
  return h("figure", { class: "coach-figure" }, chart, h("figcaption", {}, t("coach.graph")), legend);
}

export class ReplayCoach {
  constructor(viewer) {
    this.viewer = viewer;
    this.state = null; // the server's answer: {status, done, total, can_start, analysis}
    this.timer = null;
    this.gone = false;
    this.byMove = new Map();
  }

  url() {
    return `/api/history/${encodeURIComponent(this.viewer.id)}/analysis`;
  }

  async load() {
    try {
      this.took(await api("GET", this.url()));
    } catch {
      this.state = null; // the replay stands without the coach
    }
  }

  async start() {
    try {
      this.took(await api("POST", this.url()));
    } catch (err) {
      this.error = err.message || String(err);
      this.viewer.draw();
    }
  }

  took(state) {
    if (this.gone) return;
    this.state = state;
    this.byMove = new Map();
    for (const m of (state.analysis && state.analysis.moves) || []) this.byMove.set(`${m.deal}:${m.index}`, m);
    this.viewer.draw();
    clearTimeout(this.timer);
    if (state.status === "running") this.timer = setTimeout(() => this.load(), POLL_MS);
  }

  destroy() {
    this.gone = true;
    clearTimeout(this.timer);
  }

  entry(frame) {
    return frame && frame.index >= 0 ? this.byMove.get(`${frame.deal}:${frame.index}`) || null : null;
  }

  // The move about to be played from this position, judged; its better move lit on the board.
  next(frames, pos, board, { seats, style, lang }) {
    const next = frames[pos + 1];
    const entry = next && next.deal === frames[pos].deal ? this.entry(next) : null;
    if (!entry) return null;
    const name = seats[entry.seat] ? seats[entry.seat].name : entry.seat + 1;
    const opts = { style, lang };
    const better = entry.best !== entry.played && entry.loss > 0;
    if (better) {
      drawMove(board, entry.best, "coach-best");
      drawMove(board, entry.played, "coach-played");
      board.dataset.coachBest = entry.best;
    }
    return h("div", { class: ["coach-next", `mark-${entry.forced ? "forced" : entry.class}`] },
      h("p", {}, t("coach.next", { name, move: moveWords(entry.played, opts) }), " ", markBadge(entry)),
      better
        ? h("p", { class: "coach-better" }, t("coach.better", { move: moveWords(entry.best, opts), loss: entry.loss.toFixed(2) }))
        : h("p", { class: "coach-better best" }, t(entry.forced ? "coach.forced" : "coach.best_move")));
  }

  // The coach's part of the page: the button, the progress, or the summary and the graph.
  section({ frames, pos, sideNames, seats }) {
    const s = this.state;
    if (!s) return null;
    const parts = [h("h2", {}, t("coach.title"))];
    if (s.status === "running") {
      parts.push(h("p", { class: "coach-progress", role: "status" }, t("coach.analysing", { done: s.done, total: s.total })),
        h("progress", { max: s.total || 1, value: s.done }));
    } else if (s.status === "done" && s.analysis) {
      parts.push(this.summary(s.analysis, seats));
      const moves = s.analysis.moves;
      const frame = frames[pos];
      let current = moves.findIndex((m) => m.deal === frame.deal && m.index === frame.index);
      if (current < 0 && frame.index < 0) current = moves.findIndex((m) => m.deal === frame.deal) - 1;
      parts.push(expectedGraph(moves, {
        sideNames,
        current,
        onPick: (i) => {
          const m = moves[i];
          const at = frames.findIndex((f) => f.deal === m.deal && f.index === m.index);
          if (at > 0) this.viewer.go(at - 1); // the position the move was played from
        },
      }));
    } else {
      if (s.status === "failed" || s.status === "stalled") parts.push(h("p", { class: "coach-failed" }, t("coach.failed")));
      if (s.can_start) {
        parts.push(h("button", { type: "button", class: "coach-analyse primary", onclick: () => this.start() }, t("coach.analyse")));
      } else if (s.status === "none") {
        return null; // nothing to show to who may not start it
      }
    }
    if (this.error) parts.push(h("p", { class: "error", role: "alert" }, this.error));
    return h("section", { class: ["coach-panel", `coach-${s.status}`] }, parts);
  }

  summary(analysis, seats) {
    const rows = (analysis.summary || []).filter((r) => r.moves > 0);
    return h("table", { class: "coach-summary" },
      h("thead", {}, h("tr", {},
        ["player", "moves", "mean_loss", "inaccuracy", "mistake", "blunder"].map((k) => h("th", { scope: "col" }, t(`coach.summary.${k}`))))),
      h("tbody", {}, rows.map((r) => h("tr", { dataset: { seat: r.seat } },
        h("th", { scope: "row" }, seats[r.seat] ? seats[r.seat].name : String(r.seat + 1)),
        h("td", {}, String(r.moves)),
        h("td", { class: "mean-loss" }, r.mean_loss.toFixed(2)),
        h("td", {}, String(r.inaccuracy)),
        h("td", {}, String(r.mistake)),
        h("td", {}, String(r.blunder))))));
  }
}

// "Hints used": who asked the coach during the partita, and how often.
export function hintsNote(hints, seats) {
  if (!hints || !hints.length) return null;
  return h("p", { class: "coach-hints-used" }, hints.map((x) =>
    plural("coach.hints_used", x.count, { name: seats[x.seat] ? seats[x.seat].name : String(x.seat + 1) })).join(" · "));
}
