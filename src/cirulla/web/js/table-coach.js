// The coach's hint at a practice table (Cirulla, every other seat a server bot, no chips):
// on the player's turn a button asks POST /api/tables/:id/hint; the answer, the coach's
// best move from the player's own view, is said in words and drawn on the board (its
// card and captures lit) until the position changes. The server counts the hint, and
// the partita's record and history say hints were used (gateway/coach.py).
import { api } from "./api.js";
import { cardName, cardNames } from "./cards.js";
import { t } from "./i18n.js";
import { parseMove } from "./selection.js";
import { h } from "./table-dom.js";

// Is this a table where the seated player may ask the coach?
export function isPractice(view) {
  if (!view || view.game !== "cirulla" || view.you === null || view.you === undefined) return false;
  if (view.config && view.config.stake) return false;
  return (view.seats || []).every((s, i) => i === view.you || (s && s.bot && !s.bot_account));
}

// A move in words: "7 di quadri prende asso di cuori, 3 di fiori".
export function moveWords(text, { style, lang }) {
  const m = parseMove(text);
  if (m.kind === "play") {
    const card = cardName(m.card, style, lang);
    return m.captured.length ? t("coach.move.capture", { card, cards: cardNames(m.captured, style, lang) }) : t("coach.move.lay", { card });
  }
  if (m.kind === "declare") return t("coach.move.declare", { bonus: m.bonus, cards: cardNames(m.cards, style, lang) });
  if (m.kind === "pass") return t("coach.move.pass");
  return text;
}

// Light the move's card (in the hand, or a seat's open hand) and its captures on `board`.
export function drawMove(board, text, cls = "coach-best") {
  const m = parseMove(text);
  if (m.kind !== "play") return;
  for (const el of board.querySelectorAll(`.card[data-code="${m.card}"]`)) {
    if (!el.closest(".pile, .declared")) el.classList.add(cls);
  }
  for (const code of m.captured) {
    for (const el of board.querySelectorAll(`.table-card[data-code="${code}"]`)) el.classList.add(`${cls}-take`);
  }
}

export class TableCoach {
  constructor(page) {
    this.page = page;
    this.advice = null; // {version, best, values, hints}
    this.busy = false;
  }

  // The hint button for the turn bar, or null where no hint may be asked.
  button(view, myTurn) {
    if (!myTurn || !isPractice(view)) return null;
    return h("button", {
      type: "button",
      class: "coach-hint",
      disabled: this.busy,
      title: t("coach.hint.title"),
      onclick: () => this.ask(),
    }, this.busy ? t("coach.hint.thinking") : t("coach.hint"));
  }

  async ask() {
    const page = this.page;
    const version = page.view && page.view.version;
    this.busy = true;
    page.renderTurnBar(page.myTurn() ? page.view.deal.legal_moves : []);
    try {
      const advice = await api("POST", `/api/tables/${encodeURIComponent(page.id)}/hint`);
      this.advice = { ...advice, version };
    } catch (err) {
      page.toast(err.message || String(err));
    } finally {
      this.busy = false;
    }
    if (page.destroyed || !page.view) return;
    page.render({ records: [], animate: false });
  }

  // After the board is drawn: the hint for this very position, if one was asked.
  mark(board, view) {
    const a = this.advice;
    if (!a || !view) return;
    if (a.version !== view.version) { // the position moved on: the hint is stale
      this.advice = null;
      if (this.page.els.hint.dataset.kind === "coach") this.page.hint("", "info");
      return;
    }
    drawMove(board, a.best);
    const words = moveWords(a.best, { style: this.page.style, lang: this.page.lang });
    this.page.hint(t("coach.hint.best", { move: words }), "coach");
    board.dataset.coachBest = a.best;
  }
}
