// The replay of a finished Cirulo partita (GET /api/replay/:id with "game": "cirulo"):
// each hand as dealt, then the position after each card, stepped with buttons, a slider
// and the arrow keys; the board is the table's (cirulo-board.js) and, the partita being
// over, every seat's hand is shown open below it. The chat follows, as in replay.js.
import { api } from "./api.js";
import { renderBoard, seatLabel } from "./cirulo-board.js";
import { cardElement, cardName, loadSpanishDeck, sortHand } from "./cirulo-cards.js";
import { formatAmount } from "./cirulo-panels.js";
import { chatLog } from "./chat.js";
import { language, t } from "./i18n.js";
import { fill, h } from "./table-dom.js";

// Every position of the partita in order: each hand as dealt, then each card played.
export function ciruloFrames(data) {
  const frames = [];
  for (const d of data.deals) {
    frames.push({ deal: d.deal, index: -1, seat: null, move: null, view: d.view });
    for (const s of data.steps) if (s.deal === d.deal) frames.push(s);
  }
  return frames;
}

// Show `data` (already fetched) in `root`; returns {destroy}.
export function showCiruloReplay(root, ctx, data) {
  const viewer = new CiruloReplay(root, ctx, data);
  viewer.start();
  return { destroy: () => viewer.destroy() };
}

class CiruloReplay {
  constructor(root, ctx, data) {
    this.root = root;
    this.ctx = ctx;
    this.id = ctx.tableId;
    this.data = data;
    this.frames = ciruloFrames(data);
    this.pos = 0;
    this.chat = null;
    this.lang = language();
    this.onKey = (e) => this.key(e);
    this.onLanguage = () => {
      this.lang = language();
      this.draw();
    };
  }

  async start() {
    document.addEventListener("keydown", this.onKey);
    window.addEventListener("languagechange", this.onLanguage);
    api("GET", `/api/tables/${encodeURIComponent(this.id)}/chat`).then((c) => {
      this.chat = c.messages;
      this.draw();
    }, () => {});
    await loadSpanishDeck();
    this.draw();
  }

  destroy() {
    this.gone = true;
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener("languagechange", this.onLanguage);
  }

  key(e) {
    if (e.target.closest && e.target.closest("input[type=text], textarea, select, dialog")) return;
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

  // The seats by number, as the record keeps them (name, bot level, bot account).
  seats() {
    const seats = this.data.seats || [];
    return Array.from({ length: this.data.players }, (_, s) => seats.find((x) => x && x.seat === s) || null);
  }

  openHands(view, seats, deck) {
    return h("section", { class: "creplay-hands", "aria-label": t("cirulo.replay.hands") },
      h("h2", {}, t("cirulo.replay.hands")),
      h("ul", {}, view.hands.map((entry) => h("li", { class: "creplay-hand", dataset: { seat: entry.seat } },
        h("span", { class: "cseat-name" }, seatLabel(seats, entry.seat)),
        h("span", { class: "creplay-cards" }, sortHand(entry.cards || [], deck).map((code) => cardElement(code, { deck, lang: this.lang })))))));
  }

  draw() {
    if (this.gone) return;
    const data = this.data;
    const frame = this.frames[this.pos];
    const view = frame.view;
    const deck = (data.rules && data.rules.deck) || "spanish48";
    const seats = this.seats();
    const board = renderBoard({
      view: { seats, status: "finished", config: { players: data.players } },
      deal: view,
      you: null,
      bottom: 0,
      lang: this.lang,
      deck,
      interactive: false,
    });
    const last = this.frames.length - 1;
    const button = (cls, label, target, disabled) =>
      h("button", { type: "button", class: cls, "aria-label": label, title: label, disabled, onclick: () => this.go(target) }, t(`replay.${cls}.symbol`));
    const slider = h("input", { type: "range", min: 0, max: last, value: this.pos, class: "replay-slider", "aria-label": t("replay.position") });
    slider.addEventListener("input", () => this.go(Number(slider.value)));
    const what = frame.index < 0
      ? t("cirulo.replay.hand", { n: frame.deal + 1, dealer: seatLabel(seats, view.dealer) })
      : t("cirulo.replay.move", { name: seatLabel(seats, frame.seat), card: cardName(frame.move, deck, this.lang) });
    const end = this.pos === last
      ? h("section", { class: "end-panel creplay-end" },
          h("h2", {}, t("cirulo.replay.end")),
          h("ul", { class: "final-balances" }, seats.map((_, s) => h("li", {},
            `${seatLabel(seats, s)}: ${formatAmount((data.balances || [])[s] ?? 0, { sign: true })}`))))
      : null;
    const active = document.activeElement;
    const focused = active && this.root.contains(active) ? [...active.classList].find((c) => ["first", "prev", "next", "last", "replay-slider"].includes(c)) : null;
    fill(this.root,
      h("div", { class: "replay-page cirulo-page cirulo-replay table-page", dataset: { game: "cirulo" } },
        h("div", { class: "table-head" },
          h("h1", { class: "table-title" }, t("cirulo.replay.title", { id: this.id })),
          h("p", { class: "replay-where", role: "status" },
            t("cirulo.replay.position", { step: this.pos + 1, steps: last + 1, deal: frame.deal + 1 }))),
        h("div", { class: "replay-controls", role: "toolbar", "aria-label": t("replay.controls") },
          button("first", t("replay.first"), 0, this.pos === 0),
          button("prev", t("replay.prev"), this.pos - 1, this.pos === 0),
          slider,
          button("next", t("replay.next"), this.pos + 1, this.pos === last),
          button("last", t("replay.last"), last, this.pos === last)),
        h("p", { class: "replay-what last-move", "aria-live": "polite" }, what),
        h("div", { class: "table-body cirulo-table" }, h("div", { class: "table-center" }, board)),
        this.openHands(view, seats, deck),
        end,
        this.chat ? chatLog(this.chat) : null,
        h("p", { class: "replay-keys" }, t("replay.keys"))));
    if (focused) {
      const el = this.root.querySelector(`.${focused}`);
      (el && !el.disabled ? el : this.root.querySelector(".replay-slider")).focus({ preventScroll: true });
    }
  }
}
