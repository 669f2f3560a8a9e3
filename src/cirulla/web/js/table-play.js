// The player's hands on the board: U1-U4 (selection.js) wired to pointer events (mouse
// and touch alike) and the keyboard. The controller keeps only what the player has
// picked; after every redraw it is re-applied to the new board, and dropped when the
// server's view no longer allows it. It never changes the board's cards: a move is
// sent, and the board changes only when the server's view comes back.
import { cardName, cardElement, cardNames } from "./cards.js";
import { t } from "./i18n.js";
import {
  cardOptions,
  doubleClickPlay,
  dragTarget,
  selectionState,
  toggleTableCard,
} from "./selection.js";
import { h } from "./table-dom.js";

const DOUBLE_MS = 450;
const DRAG_PX = 8;

export class PlayController {
  // onPlay(move) -> Promise (sends it); hint(text, kind) shows a message.
  constructor({ onPlay, hint, style, lang }) {
    this.onPlay = onPlay;
    this.hint = hint;
    this.style = style;
    this.lang = lang;
    this.legal = [];
    this.hand = [];
    this.table = [];
    this.myTurn = false;
    this.card = null; // the selected hand card
    this.picked = []; // table cards picked so far
    this.sending = false;
    this.lastClick = { card: null, at: 0 };
    this.drag = null;
    this.suppressClick = false;
    this.board = null;
    this.confirm = h("button", { type: "button", class: "confirm-capture primary", hidden: true, "aria-keyshortcuts": "c" }, t("table.confirm"));
    this.confirm.addEventListener("click", () => this.confirmCapture());
    this.bar = h("div", { class: "play-bar" }, this.confirm);
    this.onKey = (e) => this.keydown(e);
    document.addEventListener("keydown", this.onKey);
  }

  destroy() {
    document.removeEventListener("keydown", this.onKey);
    this.endDrag();
  }

  setLanguage(lang) {
    this.lang = lang;
    this.confirm.textContent = t("table.confirm");
  }

  // A new board from a new view: keep the selection if it still makes sense.
  attach(board, { legal, hand, table, myTurn }) {
    this.board = board;
    this.legal = legal || [];
    this.hand = hand || [];
    this.table = table || [];
    this.myTurn = Boolean(myTurn);
    if (this.card && (!this.hand.includes(this.card) || !this.myTurn)) this.clear(false);
    this.picked = this.picked.filter((c) => this.table.includes(c));
    board.addEventListener("click", (e) => this.click(e));
    board.addEventListener("pointerdown", (e) => this.pointerdown(e));
    this.sending = false;
    this.apply();
  }

  clear(redraw = true) {
    this.card = null;
    this.picked = [];
    if (redraw) this.apply();
  }

  // Show the selection on the board: classes, the ghost copy (U2), "Conferma presa".
  apply() {
    const board = this.board;
    this.confirm.hidden = true;
    this.confirmMove = null;
    if (!board) return;
    for (const el of board.querySelectorAll(".selected, .picked, .candidate, .drop-capture, .playable, .dimmed")) {
      el.classList.remove("selected", "picked", "candidate", "drop-capture", "playable", "dimmed");
    }
    for (const el of board.querySelectorAll(".hand-card[aria-pressed]")) el.removeAttribute("aria-pressed");
    const ghost = board.querySelector(".ghost-slot");
    if (ghost) {
      ghost.hidden = true;
      ghost.replaceChildren();
    }
    if (this.myTurn) {
      for (const el of board.querySelectorAll(".hand-card")) {
        const opts = cardOptions(this.legal, el.dataset.code);
        el.classList.add(opts.playable ? "playable" : "dimmed");
        el.setAttribute("aria-pressed", String(el.dataset.code === this.card));
      }
    }
    if (!this.card) return;
    const handEl = board.querySelector(`.hand-card[data-code="${this.card}"]`);
    if (handEl) handEl.classList.add("selected");
    const st = selectionState(this.legal, this.card, this.picked);
    for (const code of this.picked) board.querySelector(`.table-card[data-code="${code}"]`)?.classList.add("picked");
    for (const code of st.candidates || []) board.querySelector(`.table-card[data-code="${code}"]`)?.classList.add("candidate");
    if (st.state === "none" && st.plain) this.showGhost(st.plain);
    if (st.state === "complete" && st.confirm) {
      this.confirmMove = st.move;
      this.confirm.hidden = false;
      this.confirm.setAttribute("aria-label", `${t("table.confirm")}: ${cardNames(st.cards, this.style, this.lang)}`);
    }
  }

  // U2: the semi-transparent copy of a card that captures nothing; click it to play.
  showGhost(move) {
    const ghost = this.board && this.board.querySelector(".ghost-slot");
    if (!ghost) return;
    const copy = cardElement(this.card, { style: this.style, lang: this.lang, tag: "button" });
    copy.classList.add("ghost-card");
    copy.setAttribute("aria-label", t("table.ghost", { card: cardName(this.card, this.style, this.lang) }));
    copy.dataset.move = move;
    ghost.replaceChildren(copy);
    ghost.hidden = false;
  }

  async play(move) {
    if (this.sending) return;
    this.sending = true;
    this.confirm.hidden = true;
    const card = this.card;
    this.card = null;
    this.picked = [];
    this.board?.classList.add("sending");
    try {
      const ok = await this.onPlay(move);
      if (ok) this.hint("", "info");
      else {
        this.card = card;
        this.sending = false;
      }
    } finally {
      this.board?.classList.remove("sending");
      this.apply();
    }
  }

  selectCard(code) {
    this.card = code;
    this.picked = [];
    if (!this.myTurn) {
      this.hint(t("table.hint.not_your_turn"), "info");
    } else {
      const opts = cardOptions(this.legal, code);
      if (!opts.playable) this.hint(t("table.hint.not_playable", { card: cardName(code, this.style, this.lang) }), "error");
      else if (!opts.captures.length) this.hint(t("table.hint.ghost"), "info");
      else this.hint(t("table.hint.pick"), "info");
    }
    this.apply();
  }

  // U4, and Enter on an already selected card from the keyboard.
  playWithoutCapture(code) {
    if (!this.myTurn) {
      this.hint(t("table.hint.not_your_turn"), "error");
      return;
    }
    const res = doubleClickPlay(this.legal, code);
    const name = cardName(code, this.style, this.lang);
    if (res.ok) {
      this.card = code;
      this.play(res.move);
    } else if (res.reason === "must_capture") {
      this.hint(t("table.error.must_capture", { card: name, captures: res.captures.map((c) => cardNames(c.cards, this.style, this.lang)).join(" / ") }), "error");
    } else {
      this.hint(t("table.hint.not_playable", { card: name }), "error");
    }
  }

  click(e) {
    if (this.suppressClick) {
      this.suppressClick = false;
      return;
    }
    const ghost = e.target.closest(".ghost-card");
    if (ghost) {
      this.play(ghost.dataset.move);
      return;
    }
    const handEl = e.target.closest(".hand-card");
    if (handEl && this.board.contains(handEl)) {
      this.clickHand(handEl.dataset.code, e.detail === 0);
      return;
    }
    const tableEl = e.target.closest(".table-card");
    if (tableEl && this.board.contains(tableEl)) this.clickTable(tableEl.dataset.code);
  }

  clickHand(code, keyboard) {
    const now = performance.now();
    const double = !keyboard && this.lastClick.card === code && now - this.lastClick.at < DOUBLE_MS;
    this.lastClick = { card: code, at: double ? 0 : now };
    if (double || (keyboard && this.card === code)) {
      this.playWithoutCapture(code);
      return;
    }
    if (this.card === code) {
      this.clear();
      this.hint("", "info");
      return;
    }
    this.selectCard(code);
  }

  clickTable(code) {
    if (!this.card) {
      this.hint(this.myTurn ? t("table.hint.hand_first") : t("table.hint.not_your_turn"), "info");
      return;
    }
    if (!this.myTurn) return;
    const res = toggleTableCard(this.legal, this.card, this.picked, code);
    if (res.rejected) {
      const name = cardName(code, this.style, this.lang);
      this.hint(res.state === "none"
        ? t("table.hint.captures_nothing", { card: cardName(this.card, this.style, this.lang) })
        : t("table.hint.no_capture_with", { card: name }), "error");
      this.apply();
      return;
    }
    this.picked = res.selected;
    if (res.state === "complete" && !res.confirm) {
      this.play(res.move);
      return;
    }
    if (res.state === "complete") this.hint(t("table.hint.confirm"), "info");
    else if (res.state === "partial") this.hint(t("table.hint.more"), "info");
    this.apply();
  }

  confirmCapture() {
    if (this.confirmMove) this.play(this.confirmMove);
  }

  keydown(e) {
    if (!this.board || !this.board.isConnected) return;
    if (e.target.closest && e.target.closest("input, textarea, select, dialog")) return;
    if (e.key === "Escape" && (this.card || this.picked.length)) {
      this.clear();
      this.hint("", "info");
      e.preventDefault();
    } else if ((e.key === "c" || e.key === "C") && !e.ctrlKey && !e.metaKey && !e.altKey && this.confirmMove) {
      this.confirmCapture();
      e.preventDefault();
    }
  }

  // ---- U3: dragging a hand card over the table -----------------------------------------
  pointerdown(e) {
    const handEl = e.target.closest(".hand-card");
    if (!handEl || !this.board.contains(handEl) || !e.isPrimary || e.button > 0) return;
    const start = { x: e.clientX, y: e.clientY, code: handEl.dataset.code, el: handEl, id: e.pointerId };
    const move = (ev) => {
      if (ev.pointerId !== start.id) return;
      if (!this.drag) {
        if (Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < DRAG_PX) return;
        this.startDrag(start, ev);
      }
      this.moveDrag(ev);
    };
    const up = (ev) => {
      if (ev.pointerId !== start.id) return;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
      if (this.drag) this.drop(ev.type === "pointerup");
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
  }

  startDrag(start, ev) {
    const rect = start.el.getBoundingClientRect();
    const avatar = cardElement(start.code, { style: this.style, lang: this.lang, label: false });
    avatar.classList.add("drag-avatar");
    avatar.style.width = `${rect.width}px`;
    avatar.style.height = `${rect.height}px`;
    avatar.setAttribute("aria-hidden", "true");
    document.body.append(avatar);
    start.el.classList.add("dragging");
    this.drag = { code: start.code, el: start.el, avatar, dx: ev.clientX - rect.left, dy: ev.clientY - rect.top, target: null };
    if (this.card !== start.code) {
      this.card = start.code;
      this.picked = [];
      this.apply();
    }
  }

  moveDrag(ev) {
    const d = this.drag;
    d.avatar.style.left = `${ev.clientX - d.dx}px`;
    d.avatar.style.top = `${ev.clientY - d.dy}px`;
    const under = document.elementFromPoint(ev.clientX, ev.clientY);
    const felt = under && under.closest(".felt");
    const over = felt && this.board.contains(felt);
    const hoverEl = over ? under.closest(".table-card") : null;
    const target = over && this.myTurn ? dragTarget(this.legal, d.code, hoverEl ? hoverEl.dataset.code : null) : null;
    d.target = target;
    for (const el of this.board.querySelectorAll(".drop-capture")) el.classList.remove("drop-capture");
    // over a table card that is in several captures: say at once to pick card by card
    this.board.querySelector(".drop-ambiguous")?.classList.remove("drop-ambiguous");
    if (target && target.kind === "ambiguous" && hoverEl) {
      hoverEl.classList.add("drop-ambiguous");
      if (!d.warned) this.hint(t("table.hint.drag_ambiguous"), "info");
      d.warned = true;
    }
    this.board.querySelector(".felt")?.classList.toggle("drop-ok", Boolean(target && (target.kind === "capture" || target.kind === "ghost")));
    const ghost = this.board.querySelector(".ghost-slot");
    if (target && target.kind === "capture") {
      for (const code of target.cards) this.board.querySelector(`.table-card[data-code="${code}"]`)?.classList.add("drop-capture");
      if (ghost && ghost.dataset.drag) {
        ghost.hidden = true;
        delete ghost.dataset.drag;
      }
    } else if (target && target.kind === "ghost") {
      if (ghost && !ghost.dataset.drag) {
        this.showGhost(target.move);
        ghost.dataset.drag = "1";
      }
    }
  }

  drop(released) {
    const d = this.drag;
    this.endDrag();
    this.suppressClick = true;
    setTimeout(() => { this.suppressClick = false; }, 0);
    if (!released || !d.target) {
      this.apply();
      return;
    }
    if (d.target.kind === "capture" || d.target.kind === "ghost") {
      this.card = d.code;
      this.play(d.target.move);
    } else if (d.target.kind === "ambiguous") {
      this.card = d.code;
      this.picked = [];
      this.hint(t("table.hint.ambiguous"), "info");
      this.apply();
    } else {
      this.hint(t("table.hint.not_playable", { card: cardName(d.code, this.style, this.lang) }), "error");
      this.apply();
    }
  }

  endDrag() {
    const d = this.drag;
    if (!d) return;
    d.avatar.remove();
    d.el.classList.remove("dragging");
    this.drag = null;
    if (this.board) {
      for (const el of this.board.querySelectorAll(".drop-capture, .drop-ambiguous")) el.classList.remove("drop-capture", "drop-ambiguous");
      this.board.querySelector(".felt")?.classList.remove("drop-ok");
      const ghost = this.board.querySelector(".ghost-slot");
      if (ghost) delete ghost.dataset.drag;
    }
  }
}
