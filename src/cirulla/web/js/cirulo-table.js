// The Cirulo table page (/table/:id when the view says game "cirulo"): the board drawn
// from the server's view (cirulo-board.js), playing a card, the settlement after each
// hand and the end (cirulo-panels.js), playing a card (cirulo-play.js). What the
// Cirulla table has around the board serves here too: sound (table-sound.js with
// cirulo-sound.js), the "Opzioni" popover (sound and volume: Cirulo has no declarations
// and one Spanish deck style), the spectators and "Invita un amico", and the chat.
// Whatever the client sends, the server decides: an error becomes a toast and the page
// draws the last view it sent.
import { cardElement, cardName, loadSpanishDeck } from "./cirulo-cards.js";
import { lastTrick, renderBoard, seatLabel } from "./cirulo-board.js";
import { balancesPanel, configSummary, endPanel, infoStrip, seatList, settlementPanel } from "./cirulo-panels.js";
import { CiruloPlay } from "./cirulo-play.js";
import { ciruloSounds } from "./cirulo-sound.js";
import { chatPanel } from "./chat.js";
import { language, plural, t } from "./i18n.js";
import { confirmDialog, errorText, TablePeople } from "./table-panels.js";
import { announce, drawClocks, fill, h, hint, toast } from "./table-dom.js";
import { tableOptions } from "./table-options.js";
import { TableSound } from "./table-sound.js";

export function mountCiruloTable(root, ctx) {
  const page = new CiruloPage(root, ctx);
  page.start();
  return { unmount: () => page.destroy() };
}

class CiruloPage {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.id = ctx.tableId;
    this.conn = ctx.conn;
    this.lang = language();
    this.view = null;
    this.pending = [];
    this.hand = new CiruloPlay(this);
    this.settle = null; // {index, auto, hand, at} while the settlement is shown
    this.shownTrick = new Set();
    this.clockSkew = null;
    this.destroyed = false;
    this.sound = new TableSound(this.conn, this.id, ciruloSounds);
    this.options = tableOptions(this, ctx, { autoDeclare: false, styles: null });
    this.people = new TablePeople(this.conn, this.id, ctx.invite);
    this.chat = chatPanel({ conn: this.conn, chat: this.id });
    this.onTable = (e) => this.frame(e.detail);
    this.onStatus = () => this.showStatus();
    this.onLanguage = () => {
      this.lang = language();
      this.options.render();
      this.build();
      this.render([]);
    };
    this.onKey = (e) => this.hand.key(e);
    this.build();
  }

  build() {
    this.els = {
      title: h("h1", { class: "table-title" }, t("cirulo.name")),
      status: h("p", { class: "table-status", role: "status" }),
      conn: h("p", { class: "table-conn", role: "status", hidden: true }),
      actions: h("div", { class: "table-actions" }),
      main: h("div", { class: "cirulo-main" }),
      info: h("div", { class: "cirulo-info-wrap" }),
      turnbar: h("div", { class: "turn-bar cturn-bar" }),
      hint: h("p", { class: "play-hint", id: "cirulo-hint", "aria-live": "polite" }),
      last: h("p", { class: "last-move", "aria-live": "polite" }),
      side: h("aside", { class: "table-side cirulo-side" }),
      settle: h("div", { class: "csettle-layer", hidden: true }),
      announce: h("div", { class: "announce", "aria-live": "polite" }),
      toasts: h("div", { class: "table-toasts", "aria-live": "assertive" }),
    };
    const e = this.els;
    fill(this.root,
      h("div", { class: "table-page cirulo-page" },
        h("div", { class: "table-head" }, e.title, e.status, e.conn, e.actions, this.options.el, this.people.el),
        h("div", { class: "cirulo-body" },
          h("div", { class: "cirulo-center" }, e.main, e.turnbar, e.info, e.last),
          e.side),
        this.chat.el, e.settle, e.announce, e.toasts));
  }

  async start() {
    this.conn.addEventListener("table", this.onTable);
    this.conn.addEventListener("status", this.onStatus);
    window.addEventListener("languagechange", this.onLanguage);
    this.root.addEventListener("keydown", this.onKey);
    this.tick = setInterval(() => this.updateClocks(), 250);
    this.showStatus();
    await loadSpanishDeck();
    if (this.destroyed) return;
    const known = this.conn.view(this.id);
    if (known) {
      this.view = known;
      this.render([]);
    } else {
      fill(this.els.main, h("p", { class: "loading" }, t("table.loading")));
    }
    const answer = await this.conn.watchTable(this.id, this.ctx.invite || null);
    if (this.destroyed) return;
    if (answer && answer.type === "error") {
      fill(this.els.main, h("div", { class: "table-fatal", role: "alert" },
        h("p", {}, errorText(answer)),
        h("button", { type: "button", class: "primary", onclick: () => this.ctx.navigate("/lobby") }, t("table.end.lobby"))));
      return;
    }
    if (!this.view && this.conn.view(this.id)) {
      this.view = this.conn.view(this.id);
      this.render([]);
    }
  }

  destroy() {
    this.destroyed = true;
    clearInterval(this.tick);
    this.conn.removeEventListener("table", this.onTable);
    this.conn.removeEventListener("status", this.onStatus);
    window.removeEventListener("languagechange", this.onLanguage);
    this.root.removeEventListener("keydown", this.onKey);
    this.people.destroy();
    this.chat.destroy();
    this.options.destroy();
    for (const d of document.querySelectorAll("dialog.table-dialog")) d.remove();
    if (!this.left) this.conn.leaveTable(this.id);
  }

  // ---- frames ----------------------------------------------------------------------------
  frame(frame) {
    if (frame.table !== this.id || this.destroyed) return;
    this.sound.frame(frame);
    if (frame.type === "sync") {
      this.pending = [];
      this.view = frame.view;
      this.render([]);
      return;
    }
    if (frame.event) {
      this.pending.push(frame.event);
      if (typeof frame.event.at === "number") {
        const skew = Date.now() - frame.event.at;
        if (this.clockSkew === null || skew < this.clockSkew) this.clockSkew = skew;
      }
    }
    if (frame.view) {
      const records = this.pending;
      this.pending = [];
      this.view = frame.view;
      this.render(records);
    }
  }

  showStatus() {
    const s = this.conn.status;
    this.els.conn.hidden = s === "online";
    this.els.conn.textContent = s === "online" ? "" : t(`table.conn.${s}`, { status: s });
  }

  // ---- what the view says -------------------------------------------------------------------
  deck() {
    const d = this.view && this.view.deal;
    return (d && d.rules.deck) || (this.view && (this.view.config.options || {}).deck) || "spanish48";
  }

  seated() {
    const v = this.view;
    return Boolean(v && v.you !== null && v.you !== undefined);
  }

  myTurn() {
    const v = this.view;
    return Boolean(v && v.status === "playing" && !v.forfeit && v.deal && !v.deal.is_over &&
      this.seated() && v.deal.to_move === v.you && v.deal.legal_moves);
  }

  legal() {
    return this.myTurn() ? this.view.deal.legal_moves : [];
  }

  name(s) {
    return seatLabel(this.view.seats, s);
  }

  // ---- drawing ---------------------------------------------------------------------------------
  render(records) {
    const v = this.view;
    if (!v || this.destroyed) return;
    const focus = this.hand.focusKey();
    this.hand.reset();
    const cfg = v.config;
    this.els.title.textContent = cfg.name ? `${cfg.name} \u00b7 ${t("cirulo.name")}` : t("cirulo.title", { players: cfg.players });
    this.renderHead();
    this.people.update(v);
    if (v.status === "open") {
      fill(this.els.main, seatList(v, {
        me: this.ctx.user,
        onSit: (seat) => this.command({ type: "sit", seat, invite: this.ctx.invite || null }),
        onStand: () => this.command({ type: "stand" }),
      }), this.inviteLink());
      fill(this.els.turnbar);
      fill(this.els.info);
      fill(this.els.side, configSummary(v));
    } else if (v.status === "closed") {
      fill(this.els.main, h("div", { class: "table-closed" },
        h("p", {}, t("table.closed")),
        h("button", { type: "button", class: "primary", onclick: () => this.ctx.navigate("/lobby") }, t("table.end.lobby"))));
      fill(this.els.turnbar);
      fill(this.els.info);
      fill(this.els.side);
    } else {
      this.renderPlay();
    }
    this.hand.restoreFocus(focus);
    // announcements show over the felt (at the top of the page when there is none)
    if (v.status === "finished") this.els.announce.replaceChildren();
    (this.els.main.querySelector(".cfelt") || this.root.querySelector(".cirulo-page")).append(this.els.announce);
    if (records.length) this.handleRecords(records);
    this.sound.rendered(records, v, this.myTurn());
    this.renderSettle();
    this.updateClocks();
  }

  inviteLink() {
    const invite = this.ctx.invite || null;
    if (!this.view.config.private || !invite) return null;
    const link = `${location.origin}/table/${this.id}?invite=${invite}`;
    return h("p", { class: "invite" }, t("table.invite"), " ",
      h("input", { type: "text", readonly: true, value: link, class: "invite-link", "aria-label": t("table.invite") }));
  }

  renderHead() {
    const v = this.view;
    const d = v.deal;
    let status = "";
    if (v.status === "open") status = t("table.status.open");
    else if (v.status === "finished") status = t("cirulo.status.finished");
    else if (v.status === "closed") status = t("table.status.closed");
    else if (d) {
      const who = d.to_move;
      let turn;
      if (d.is_over || who === null || who === undefined) turn = t("cirulo.status.between");
      else if (who === v.you) turn = t("table.status.your_turn");
      else turn = t("table.status.turn", { name: this.name(who) });
      status = `${t("cirulo.status.hand", { n: v.deal_index + 1, of: v.hands ?? "?" })} \u00b7 ${turn}`;
    }
    this.els.status.textContent = status;
    const buttons = [];
    if (v.status === "playing" && this.seated() && !v.forfeit) {
      buttons.push(h("button", { type: "button", class: "abandon danger", onclick: () => this.abandon() }, t("table.abandon")));
    }
    buttons.push(h("button", { type: "button", class: "leave", onclick: () => this.leave() },
      v.status === "open" && this.seated() ? t("table.leave_seat") : t("table.leave")));
    fill(this.els.actions, buttons);
  }

  renderPlay() {
    const v = this.view;
    const d = v.deal;
    const deck = this.deck();
    const you = this.seated() ? v.you : null;
    const fresh = new Set();
    if (d) {
      for (const { card } of d.trick) if (!this.shownTrick.has(card)) fresh.add(card);
      this.shownTrick = new Set(d.trick.map((x) => x.card));
    }
    const board = renderBoard({
      view: v,
      deal: d,
      you,
      bottom: you ?? 0,
      lang: this.lang,
      deck,
      interactive: you !== null && v.status === "playing",
      legal: this.legal(),
      selected: this.hand.selected,
      myTurn: this.myTurn(),
      fresh,
      centerNote: t("cirulo.status.between"),
    });
    const legal = this.legal();
    if (legal.length) board.dataset.legal = legal.join(" ");
    if (d && d.led) board.dataset.led = d.led;
    this.hand.bind(board);
    const content = [board];
    const scores = v.scores || [];
    if (v.status === "finished") {
      // the end: final balances, then every hand's settlement (one at a time), then the board
      content.unshift(
        endPanel(v, { onLobby: () => this.ctx.navigate("/lobby") }),
        scores.length ? settlementPanel(v, Math.min(this.settleIndex ?? scores.length - 1, scores.length - 1), {
          onPick: (i) => {
            this.settleIndex = i;
            this.render([]);
          },
        }) : null,
      );
    }
    fill(this.els.main, content);
    fill(this.els.info, d ? infoStrip(v, d, { deck, lang: this.lang, cardElement, cardName, lastTrick }) : null);
    this.renderTurnBar();
    const finished = v.status === "finished";
    fill(this.els.side, balancesPanel(v, { onSettle: finished ? null : () => this.openSettle(scores.length - 1) }));
  }

  renderTurnBar() {
    const mine = this.myTurn();
    const play = this.hand.turnBar(mine); // sets the hint first
    fill(this.els.turnbar, h("p", { class: ["turn-note", mine ? "mine" : null] }, mine ? t("table.status.your_turn") : ""), this.els.hint, play);
  }

  // ---- the settlement after a hand ----------------------------------------------------------
  openSettle(index, auto = false) {
    if (index < 0) return;
    this.settle = { index, auto, hand: this.view.deal_index, at: performance.now() };
    this.renderSettle();
    if (!auto) this.els.settle.querySelector(".close-settle")?.focus();
  }

  settleExpired() {
    const s = this.settle;
    return Boolean(s && s.auto && this.myTurn() && this.view.deal_index > s.hand && performance.now() - s.at > 5000);
  }

  renderSettle() {
    const v = this.view;
    const layer = this.els.settle;
    if (this.settleExpired() || (v && v.status !== "playing")) this.settle = null;
    if (!this.settle || !v || !(v.scores || [])[this.settle.index]) {
      layer.hidden = true;
      layer.replaceChildren();
      return;
    }
    layer.hidden = false;
    fill(layer, settlementPanel(v, this.settle.index, {
      onClose: () => {
        this.settle = null;
        this.renderSettle();
      },
      onPick: (i) => {
        this.settle = { ...this.settle, index: i, auto: false };
        this.renderSettle();
      },
    }));
  }

  // ---- what records say -------------------------------------------------------------------------
  handleRecords(records) {
    const v = this.view;
    const deck = this.deck();
    for (const rec of records) {
      if (rec.type === "committed" && v.status === "playing") this.announce(t("cirulo.event.hand", { n: rec.deal + 1 }));
      if (rec.type === "forfeit" && v.status === "playing") this.announce(t(`cirulo.end.forfeit.${rec.reason}`, { name: this.name(rec.seat) }), "big");
      for (const e of rec.events || []) {
        if (e.type === "play") this.els.last.textContent = t("cirulo.event.play", { name: this.name(e.seat), card: cardName(e.card, deck, this.lang) });
        if (e.type === "trick") {
          const text = e.encirculated
            ? plural("cirulo.event.trick_coins", e.coins, { name: this.name(e.winner) })
            : t("cirulo.event.trick_clean", { name: this.name(e.winner) });
          this.els.last.textContent = text;
          if (e.encirculated && v.status === "playing") this.announce(text, "info");
        }
      }
    }
    const revealed = records.filter((r) => r.type === "revealed");
    if (revealed.length && v.status === "playing") this.openSettle(revealed[revealed.length - 1].deal, true);
  }

  announce(text, kind = "info") {
    announce(this.els, text, kind, 2500);
  }

  hint(text, kind = "info") {
    hint(this.els, text, kind);
  }

  toast(text, kind = "error") {
    toast(this.els, text, kind);
  }


  // ---- clocks ----------------------------------------------------------------------------------------
  updateClocks() {
    const v = this.view;
    if (this.settleExpired()) {
      this.settle = null;
      this.renderSettle();
    }
    if (!v || v.status !== "playing" || !v.deal) return;
    const now = Date.now() - (this.clockSkew ?? 0);
    drawClocks(this.els.main, v, now);
    this.sound.clock(v, now);
  }

  // ---- commands ----------------------------------------------------------------------------------------
  async command(cmd) {
    const answer = await this.conn.tableCommand(this.id, cmd);
    if (this.destroyed) return answer;
    if (answer.type === "error") {
      const why = cmd.type === "play" && answer.code === "illegal_move" ? this.hand.explainIllegal(cmd.move) : null;
      this.toast(why ? `${t("table.error.illegal_move")} ${why}` : errorText(answer));
      const latest = this.conn.view(this.id);
      if (latest) this.view = latest;
      this.render([]);
    }
    return answer;
  }

  async abandon() {
    const ok = await confirmDialog(t("table.abandon.title"), t("cirulo.abandon.text"), t("table.abandon.confirm"));
    if (ok) await this.command({ type: "abandon" });
  }

  async leave() {
    const v = this.view;
    if (v && v.status === "playing" && this.seated() && !v.forfeit) {
      const ok = await confirmDialog(t("table.leave.title"), t("table.leave.text"), t("table.leave"));
      if (!ok) return;
    }
    this.left = true;
    await this.conn.leaveTable(this.id);
    this.ctx.navigate("/lobby");
  }
}

