// The replay viewer (/replay/:id): a finished partita from GET /api/replay/:id, stepped
// move by move (buttons, a slider, the arrow keys) with every hand open.
import { api } from "./api.js";
import { loadDecks } from "./cards.js";
import { chatLog } from "./chat.js";
import { language, t } from "./i18n.js";
import { runningTotals, scoreTable, totalsChart } from "./scoresheet.js";
import { renderBoard, sideCount, sideName } from "./table-board.js";
import { fill, h } from "./table-dom.js";
import { announcements, describePlay, errorText } from "./table-panels.js";
import { ReplayCoach, hintsNote, markBadge } from "./replay-coach.js";
import { showCiruloReplay } from "./cirulo-replay.js";

export function mountReplay(root, ctx) {
  const viewer = new ReplayViewer(root, ctx);
  viewer.start();
  return { unmount: () => viewer.destroy() };
}

// Every position of the partita in order: each smazzata's deal, then each move.
export function replayFrames(data) {
  const frames = [];
  for (const d of data.deals) {
    frames.push({ deal: d.deal, index: -1, seat: null, move: null, view: d.view });
    for (const s of data.steps) if (s.deal === d.deal) frames.push(s);
  }
  return frames;
}

class ReplayViewer {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.id = ctx.tableId;
    this.style = (ctx.options && ctx.options.deck_style) || "french";
    this.lang = language();
    this.data = null;
    this.frames = [];
    this.pos = 0;
    this.coach = new ReplayCoach(this); // the analysis, marks and graph (replay-coach.js)
    this.onKey = (e) => this.key(e);
    this.onLanguage = () => {
      this.lang = language();
      this.draw();
    };
  }

  async start() {
    document.addEventListener("keydown", this.onKey);
    window.addEventListener("languagechange", this.onLanguage);
    fill(this.root, h("p", { class: "loading" }, t("replay.loading")));
    try {
      const [data] = await Promise.all([api("GET", `/api/replay/${encodeURIComponent(this.id)}`), loadDecks()]);
      if (data.game === "cirulo") { // a Cirulo partita: its own viewer (cirulo-replay.js)
        this.cirulo = showCiruloReplay(this.root, this.ctx, data);
        return;
      }
      this.data = data;
      this.frames = replayFrames(data);
      this.coach.load();
      // the table's chat (js/chat.js): the replay stands without it
      api("GET", `/api/tables/${encodeURIComponent(this.id)}/chat`).then((c) => {
        this.chat = c.messages;
        if (this.frames) this.draw();
      }, () => {});
    } catch (err) {
      fill(this.root, h("div", { class: "table-fatal", role: "alert" },
        h("p", {}, err.status === 404 ? t("replay.not_found") : errorText(err)),
        h("button", { type: "button", class: "primary", onclick: () => this.ctx.navigate("/history") }, t("replay.history"))));
      return;
    }
    this.draw();
  }

  destroy() {
    if (this.cirulo) this.cirulo.destroy();
    this.coach.destroy();
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener("languagechange", this.onLanguage);
  }

  key(e) {
    if (!this.data || (e.target.closest && e.target.closest("input[type=text], textarea, select, dialog"))) return;
    const moves = { ArrowRight: 1, ArrowLeft: -1, PageDown: 10, PageUp: -10 };
    if (e.key in moves) this.go(this.pos + moves[e.key]);
    else if (e.key === "Home") this.go(0);
    else if (e.key === "End") this.go(this.frames.length - 1);
    else return;
    e.preventDefault();
  }

  go(pos) {
    const next = Math.max(0, Math.min(this.frames.length - 1, pos));
    if (next === this.pos) return;
    this.pos = next;
    this.draw();
  }

  sideNames() {
    const n = this.data.players;
    return Array.from({ length: sideCount(n) }, (_, i) => sideName(this.seats(), n, i));
  }

  seats() {
    const seats = this.data.seats || [];
    return Array.from({ length: this.data.players }, (_, s) => seats.find((x) => x && x.seat === s) || seats[s] || null);
  }

  draw() {
    if (!this.data) return;
    const data = this.data;
    const frame = this.frames[this.pos];
    const view = frame.view;
    const opts = { style: this.style, lang: this.lang };
    const seats = this.seats();
    const sideNames = this.sideNames();
    // the smazzata's events so far (the replay's views carry only their own step's)
    const history = this.frames
      .filter((f, i) => i <= this.pos && f.deal === frame.deal)
      .flatMap((f) => f.view.events || []);
    const { board } = renderBoard({
      players: data.players,
      bottom: 0,
      you: null,
      clockwise: Boolean(data.rules && data.rules.clockwise),
      seats,
      deal: { ...view, history },
      style: this.style,
      lang: this.lang,
      interactive: false,
    });
    const next = this.coach.next(this.frames, this.pos, board, { seats, style: this.style, lang: this.lang });
    const last = this.frames.length - 1;
    const button = (cls, label, target, disabled) =>
      h("button", { type: "button", class: cls, "aria-label": label, title: label, disabled, onclick: () => this.go(target) }, t(`replay.${cls}.symbol`));
    const slider = h("input", { type: "range", min: 0, max: last, value: this.pos, class: "replay-slider", "aria-label": t("replay.position") });
    slider.addEventListener("input", () => this.go(Number(slider.value)));
    const playEvents = (view.events || []).filter((e) => e.type === "play");
    let what;
    if (frame.index < 0) what = t("replay.deal", { n: frame.deal + 1, dealer: seats[view.dealer] ? seats[view.dealer].name : view.dealer + 1 });
    else if (playEvents.length) what = describePlay(playEvents[0], seats, opts);
    else what = t("replay.move", { name: seats[frame.seat] ? seats[frame.seat].name : frame.seat + 1, move: frame.move });
    const lines = announcements([{ type: "step", events: view.events || [] }], { config: { players: data.players }, seats }, opts);
    const scores = this.frames.filter((f, i) => i <= this.pos && f.view.is_over && f.view.score).map((f) => f.view.score);
    const sheet = view.is_over && view.score
      ? h("section", { class: "scoresheet replay-sheet" },
          scoreTable(view.score, { sideNames, rules: data.rules, caption: t("score.smazzata", { n: frame.deal + 1 }), totals: runningTotals(scores, sideNames.length).at(-1) }),
          totalsChart(runningTotals(scores, sideNames.length), { sideNames, target: data.rules && !data.rules.hands ? data.rules.target : null }))
      : null;
    const end = this.pos === last
      ? h("section", { class: "end-panel" },
          h("h2", {}, t("table.end.title")),
          h("p", { class: "winner" }, data.winner === null || data.winner === undefined ? t("table.end.no_winner") : t("table.end.winner", { winner: sideNames[data.winner] })),
          h("p", { class: "final-totals" }, sideNames.map((n, i) => `${n} ${(data.totals || [])[i] ?? 0}`).join(" \u2013 ")),
          data.end_reason ? h("p", { class: "end-reason" }, t(`table.end.reason.${data.end_reason}`, { reason: data.end_reason })) : null)
      : null;
    const active = document.activeElement;
    const focused = active && this.root.contains(active) ? [...active.classList].find((c) => ["first", "prev", "next", "last", "replay-slider"].includes(c)) : null;
    fill(this.root,
      h("div", { class: "replay-page table-page" },
        h("div", { class: "table-head" },
          h("h1", { class: "table-title" }, t("replay.title", { id: this.id })),
          h("p", { class: "replay-where", role: "status" },
            t("replay.position.text", { step: this.pos + 1, steps: last + 1, deal: frame.deal + 1 })),
          hintsNote(data.hints, seats)),
        h("div", { class: "replay-controls", role: "toolbar", "aria-label": t("replay.controls") },
          button("first", t("replay.first"), 0, this.pos === 0),
          button("prev", t("replay.prev"), this.pos - 1, this.pos === 0),
          slider,
          button("next", t("replay.next"), this.pos + 1, this.pos === last),
          button("last", t("replay.last"), last, this.pos === last)),
        h("p", { class: "replay-what last-move", "aria-live": "polite" }, what, " ", markBadge(this.coach.entry(frame))),
        next,
        lines.length ? h("ul", { class: "replay-events" }, lines.map((l) => h("li", { class: `banner-${l.kind}` }, l.text))) : null,
        h("div", { class: "table-body" }, h("div", { class: "table-center" }, board)),
        this.coach.section({ frames: this.frames, pos: this.pos, sideNames, seats }),
        sheet, end,
        this.chat ? chatLog(this.chat) : null,
        h("p", { class: "replay-keys" }, t("replay.keys"))));
    if (focused) {
      const el = this.root.querySelector(`.${focused}`);
      (el && !el.disabled ? el : this.root.querySelector(".replay-slider")).focus({ preventScroll: true });
    }
  }
}
