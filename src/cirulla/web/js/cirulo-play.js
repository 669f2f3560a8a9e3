// Playing a card at the Cirulo table (cirulo-table.js): a click (tap) picks a card and a
// second click or "Gioca" plays it, a double click plays at once, the keyboard moves
// along the hand (arrows), picks and plays (Enter, Space) and drops the pick (Escape).
// Only the server's legal_moves are playable; a refused card says why (CI3), and the
// hand keeps its focus across redraws. The page owns the view and sends the command.
import { cardName, suitName, suitOf } from "./cirulo-cards.js";
import { t } from "./i18n.js";
import { h } from "./table-dom.js";

export class CiruloPlay {
  // page: the CiruloPage (its view, legal(), myTurn(), deck(), lang, root, hint(),
  // render() and command()).
  constructor(page) {
    this.page = page;
    this.selected = null;
    this.sending = false;
    this.hintKept = false; // the hint of the last pick outlives one redraw
  }

  name(code) {
    return cardName(code, this.page.deck(), this.page.lang);
  }

  // A redraw from a new view: a sent card is answered, a pick the view no longer
  // allows is dropped.
  reset() {
    this.sending = false;
    if (this.selected && !this.page.legal().includes(this.selected)) this.selected = null;
  }

  bind(board) {
    for (const el of board.querySelectorAll("button.chand-card")) {
      const code = el.dataset.code;
      el.addEventListener("click", (e) => {
        e.preventDefault();
        this.choose(code);
      });
      el.addEventListener("dblclick", (e) => {
        e.preventDefault();
        if (this.page.legal().includes(code)) this.play(code);
      });
    }
  }

  // The turn bar's hint (what to lead or follow) and "Gioca" for the card picked.
  turnBar(mine) {
    const d = this.page.view.deal;
    const lang = this.page.lang;
    if (!this.hintKept) {
      let text = "";
      if (mine && d.led) {
        const suit = suitName(d.led, lang);
        text = d.hand.some((c) => suitOf(c) === d.led) ? t("cirulo.hint.follow", { suit }) : t("cirulo.hint.void", { suit });
      } else if (mine) {
        text = t("cirulo.hint.lead");
      }
      this.page.hint(text, "info");
    }
    this.hintKept = false;
    if (!mine || !this.selected) return null;
    return h("button", { type: "button", class: "cplay primary", onclick: () => this.play(this.selected) },
      t("cirulo.play", { card: this.name(this.selected) }));
  }

  // Why `code` cannot be played now, or null when it can.
  refusal(code) {
    const page = this.page;
    const v = page.view;
    if (!v || v.status !== "playing") return t("cirulo.hint.not_playing");
    if (!page.myTurn()) return t("table.hint.not_your_turn");
    if (page.legal().includes(code)) return null;
    const d = v.deal;
    if (d.led && suitOf(code) !== d.led) {
      return t("cirulo.hint.must_follow", { card: this.name(code), suit: suitName(d.led, page.lang) });
    }
    return t("table.hint.not_playable", { card: this.name(code) });
  }

  // The rule a refused card broke (CI3), in the page's language, for the server's error.
  explainIllegal(code) {
    const d = this.page.view && this.page.view.deal;
    if (!d || !d.led || suitOf(code) === d.led || !(d.hand || []).some((c) => suitOf(c) === d.led)) return null;
    return t("cirulo.hint.must_follow", { card: this.name(code), suit: suitName(d.led, this.page.lang) });
  }

  choose(code) {
    if (this.sending) return;
    const why = this.refusal(code);
    if (why) {
      this.page.hint(why, "error");
      return;
    }
    if (this.selected === code) {
      this.play(code);
      return;
    }
    this.selected = code;
    this.page.hint(t("cirulo.hint.selected", { card: this.name(code) }), "info");
    this.hintKept = true;
    this.page.render([]);
  }

  async play(code) {
    if (this.sending) return false;
    const why = this.refusal(code);
    if (why) {
      this.page.hint(why, "error");
      return false;
    }
    const root = this.page.root;
    this.sending = true;
    this.selected = null;
    root.querySelector(".cboard")?.classList.add("sending");
    const answer = await this.page.command({ type: "play", move: code });
    this.sending = false;
    root.querySelector(".cboard")?.classList.remove("sending");
    return answer.type === "ack";
  }

  // Keys on the hand: arrows move between cards, Escape drops the pick. (Enter and Space
  // press the focused card's button: pick, then play.)
  key(e) {
    const el = e.target;
    if (e.key === "Escape" && this.selected) {
      this.selected = null;
      this.page.render([]);
      return;
    }
    if (!el.classList || !el.classList.contains("chand-card")) return;
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      const cards = [...this.page.root.querySelectorAll("button.chand-card")];
      const i = cards.indexOf(el);
      const next = cards[(i + (e.key === "ArrowRight" ? 1 : -1) + cards.length) % cards.length];
      if (next) next.focus();
      e.preventDefault();
    }
  }

  // ---- focus across redraws ------------------------------------------------------------
  focusKey() {
    const root = this.page.root;
    const a = document.activeElement;
    if (!a || !root.contains(a)) return null;
    if (a.classList.contains("chand-card")) {
      const cards = [...root.querySelectorAll("button.chand-card")].map((x) => x.dataset.code);
      const i = cards.indexOf(a.dataset.code);
      return { code: a.dataset.code, after: cards.slice(i + 1), before: cards.slice(0, i).reverse() };
    }
    for (const cls of ["cplay", "open-settle", "sit", "stand"]) if (a.classList.contains(cls)) return { selector: `.${cls}` };
    return null;
  }

  restoreFocus(key) {
    if (!key) return;
    const root = this.page.root;
    if (key.selector) {
      root.querySelector(key.selector)?.focus({ preventScroll: true });
      return;
    }
    // the same card, else its neighbour (after a card was played)
    for (const code of [key.code, ...key.after, ...key.before]) {
      const el = root.querySelector(`button.chand-card[data-code="${code}"]`);
      if (el) {
        el.focus({ preventScroll: true });
        return;
      }
    }
  }
}
