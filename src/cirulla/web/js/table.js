// The table page (/table/:id): watches the table over the one Connection and draws
// only what the server sent (the `view` of the last frame). Playing goes through
// table-play.js (U1-U4); declarations, abandoning, sitting and standing are commands.
// An error from the server is shown as a toast and the board is drawn again from the
// last view the server sent (after "stale" the server sends a fresh sync). Only what
// the first view draws is imported here: the rest (sound, the options' popover, chat,
// the coach, the cards' flights, the score sheet) comes with table-extras.js once the
// board is drawn, each use of it here doing without it until then; what it adds goes
// where nothing moves because of it (the options' button is drawn at once, the same).
import { cardNames, loadDecks } from "./cards.js";
import { language, t, whenComplete } from "./i18n.js";
import { parseMove, declarations, passMove } from "./selection.js";
import { renderBoard, sideCount, sideName, sideOf } from "./table-board.js";
import { announce, drawClocks, fill, formatClock, h, hint, toast } from "./table-dom.js";
import { whenStyled } from "./pages/dom.js";
import { cashBadges } from "./pages/chips.js";
import {
  announcements,
  carteViste,
  chooseDeclaration,
  confirmDialog,
  describePlay,
  endPanel,
  errorText,
  lastPanel,
  ManoMemory,
  markLastCapture,
  runningScore,
  seatList,
  TablePeople,
} from "./table-panels.js";
import { PlayController } from "./table-play.js";

export { errorText };

export function mountTable(root, ctx) {
  // A Cirulo table has its own page (cirulo-table.js): known at once when the view is
  // already here, else from the first view the server sends.
  const known = ctx.conn.view(ctx.tableId);
  if (known && known.game === "cirulo") return mountCirulo(root, ctx);
  const page = new TablePage(root, ctx);
  let current = { unmount: () => page.destroy() };
  page.onCirulo = () => {
    page.left = true; // keep watching (and one's seat): the Cirulo page joins again
    page.destroy();
    current = mountCirulo(root, ctx);
  };
  page.start();
  return { unmount: () => current.unmount() };
}

// Cirulo's page and its modules are loaded only for a Cirulo table: a Cirulla table, the
// common case on a phone, does without them (gateway/preload.py preloads table.js's graph).
function mountCirulo(root, ctx) {
  let mounted = null;
  let gone = false;
  Promise.all([import("./cirulo-table.js"), whenComplete(), whenStyled()]).then(
    ([m]) => {
      if (!gone) mounted = m.mountCiruloTable(root, ctx);
    },
    (err) => {
      console.error(err);
      if (!gone) fill(root, h("p", { class: "error", role: "alert" }, t("app.load_failed")));
    },
  );
  return {
    unmount: () => {
      gone = true;
      if (mounted) mounted.unmount();
    },
  };
}

class TablePage {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.id = ctx.tableId;
    this.conn = ctx.conn;
    this.lang = language();
    this.style = (ctx.options && ctx.options.deck_style) || "french";
    this.view = null;
    this.pending = []; // records received since the last view
    this.sheet = null; // {index, auto, deal, docked} when the score sheet is open
    this.lastAnnounced = null;
    this.clockSkew = null; // Date.now() - server time, estimated from fresh events
    this.destroyed = false;
    this.fatal = null;
    this.controller = new PlayController({
      onPlay: (move) => this.sendMove(move),
      hint: (text, kind) => this.hint(text, kind),
      style: this.style,
      lang: this.lang,
    });
    this.manos = new ManoMemory(); // the previous mano (table-panels.js)
    this.people = new TablePeople(this.conn, this.id, ctx.invite); // spectators, "Invita un amico"
    // table-extras.js once loaded (its adoptExtras): its module, then sound, options,
    // chat and coach; the sound's calls made before are kept for it
    this.x = null;
    this.optionsButton = h("details", { class: "table-options" }, // its place until then
      h("summary", { class: "table-options-button" }, t("options.button")));
    this.extrasAsked = false;
    this.soundCalls = [];
    this.onTable = (e) => this.frame(e.detail);
    this.onStatus = () => this.showStatus();
    this.onLanguage = () => {
      this.lang = language();
      this.controller.setLanguage(this.lang);
      if (this.options) this.options.render();
      else this.optionsButton.firstChild.textContent = t("options.button");
      this.build();
      this.render({ records: [], animate: false });
    };
    this.build();
  }

  // The page's fixed parts; the board and panels are redrawn into them.
  build() {
    this.els = {
      status: h("p", { class: "table-status", role: "status" }),
      stakes: h("p", { class: "table-stakes" }), // cash table and rated (pages/wallet.js)
      conn: h("p", { class: "table-conn", role: "status", hidden: true }),
      totals: h("div", { class: "table-totals" }),
      actions: h("div", { class: "table-actions" }),
      main: h("div", { class: "table-main" }),
      turnbar: h("div", { class: "turn-bar" }),
      hint: h("p", { class: "play-hint", "aria-live": "polite" }),
      side: h("aside", { class: "table-side" }),
      sheet: h("div", { class: "sheet-layer", hidden: true }),
      announce: h("div", { class: "announce", "aria-live": "polite" }),
      toasts: h("div", { class: "table-toasts", "aria-live": "assertive" }),
      last: h("p", { class: "last-move", "aria-live": "polite" }),
    };
    const e = this.els;
    fill(this.root,
      h("div", { class: "table-page" },
        h("div", { class: "table-head" },
          h("h1", { class: "table-title" }, this.title()),
          e.stakes, e.status, e.conn, e.totals, e.actions, this.options ? this.options.el : this.optionsButton, this.people.el),
        h("div", { class: "table-body" },
          h("div", { class: "table-center" }, h("div", { class: "announce-band" }, e.announce), e.main, e.turnbar, e.last),
          e.side),
        this.chat?.el, e.sheet, e.toasts));
  }

  title() {
    const cfg = this.view && this.view.config;
    if (!cfg) return t("table.title", { id: this.id });
    return cfg.name ? cfg.name : t("table.title.preset", { preset: cfg.preset, players: cfg.players });
  }

  async start() {
    this.conn.addEventListener("table", this.onTable);
    this.conn.addEventListener("status", this.onStatus);
    window.addEventListener("languagechange", this.onLanguage);
    this.tick = setInterval(() => this.updateClocks(), 250);
    this.showStatus();
    await loadDecks();
    if (this.ctx.early) await this.ctx.early; // boot.js's join of this table (app.js)
    if (this.destroyed) return;
    const known = this.conn.view(this.id);
    if (known && known !== this.view) {
      const first = !this.view;
      this.view = known;
      this.render({ records: [], animate: false });
      if (first && this.ctx.early) this.announceFresh(); // as a first sync would
    } else if (!this.view) {
      fill(this.els.main, h("p", { class: "loading" }, t("table.loading")));
    }
    const answer = await this.conn.watchTable(this.id, this.ctx.invite || null);
    if (this.destroyed) return;
    this.loadExtras(); // drawn or not by now (an open table, an error), the rest may come
    if (answer && answer.type === "error") {
      this.fatal = answer;
      fill(this.els.main, h("div", { class: "table-fatal", role: "alert" },
        h("p", {}, errorText(answer)),
        h("button", { type: "button", class: "primary", onclick: () => this.ctx.navigate("/lobby") }, t("table.end.lobby"))));
      return;
    }
    if (!this.view && this.conn.view(this.id)) {
      this.view = this.conn.view(this.id);
      this.render({ records: [], animate: false });
    }
  }

  destroy() {
    this.destroyed = true;
    clearInterval(this.tick);
    this.conn.removeEventListener("table", this.onTable);
    this.conn.removeEventListener("status", this.onStatus);
    window.removeEventListener("languagechange", this.onLanguage);
    this.controller.destroy();
    this.people.destroy();
    if (this.x) {
      this.chat.destroy();
      this.options.destroy();
    }
    for (const d of document.querySelectorAll("dialog.table-dialog")) d.remove();
    document.querySelector(".fly-layer")?.remove();
    // Stop watching; before the start this also frees one's seat (docs/protocol.md).
    if (!this.left) this.conn.leaveTable(this.id);
  }

  // ---- frames from the server ------------------------------------------------------------
  frame(frame) {
    if (frame.table !== this.id || this.destroyed) return;
    this.soundCall("frame", frame);
    if (frame.type === "sync") {
      const first = !this.view;
      this.pending = [];
      this.view = frame.view;
      this.render({ records: [], animate: false });
      if (first) this.announceFresh();
      return;
    }
    if (frame.event) {
      this.pending.push(frame.event);
      if (typeof frame.event.at === "number") {
        const skew = Date.now() - frame.event.at;
        // events that arrive late (a replay after reconnecting) only ever raise the estimate
        if (this.clockSkew === null || skew < this.clockSkew) this.clockSkew = skew;
      }
    }
    if (frame.view) {
      const records = this.pending;
      const before = this.view;
      this.pending = [];
      this.view = frame.view;
      // cards fly only while the board stays where it was (not when the partita ends)
      const animate = Boolean(before && before.status === frame.view.status);
      this.render({ records, animate });
    }
  }

  showStatus() {
    const s = this.conn.status;
    this.els.conn.hidden = s === "online";
    this.els.conn.textContent = s === "online" ? "" : t(`table.conn.${s}`, { status: s });
  }

  serverNow() {
    return Date.now() - (this.clockSkew ?? 0);
  }

  // ---- drawing -----------------------------------------------------------------------------
  render({ records, animate }) {
    const view = this.view;
    if (!view || this.destroyed) return;
    if (view.game === "cirulo" && this.onCirulo) {
      this.onCirulo();
      return;
    }
    const before = animate && this.x && this.els.main.querySelector(".board") ? this.x.snapshot(this.els.main) : null;
    const focus = this.focusKey();
    this.root.querySelector(".table-title").textContent = this.title();
    this.renderHead();
    this.people.update(view);
    const sideNames = this.sideNames();
    if (view.status === "open") {
      this.renderOpen();
    } else if (view.status === "closed") {
      fill(this.els.main, h("div", { class: "table-closed" },
        h("p", {}, t("table.closed")),
        h("button", { type: "button", class: "primary", onclick: () => this.goLobby() }, t("table.end.lobby"))));
      fill(this.els.turnbar);
      fill(this.els.side);
    } else {
      this.renderPlay(sideNames);
    }
    this.restoreFocus(focus);
    // announcements show in their band above the board, never over the cards
    if (view.status === "finished") this.els.announce.replaceChildren();
    if (records.length) this.handleRecords(records, before, animate);
    this.soundCall("rendered", records, view, this.myTurn());
    this.updateClocks();
    this.loadExtras();
  }

  // ---- what is not needed to play (table-extras.js) ------------------------------------------
  // Loaded once, after the board is drawn (when the browser is idle, or soon anyway).
  loadExtras() {
    if (this.extrasAsked) return;
    this.extrasAsked = true;
    // with the whole catalog: the page's HTML may have carried only the board's part
    const load = () => Promise.all([import("./table-extras.js"), whenComplete()]).then(([x]) => {
      if (!this.destroyed) x.adoptExtras(this, x);
    }, (err) => console.error(err));
    if (window.requestIdleCallback) requestIdleCallback(load, { timeout: 300 });
    else setTimeout(load, 50);
  }

  // The sound's calls before it is here are kept, but for the clock's (of a moment past).
  soundCall(name, ...args) {
    if (this.sound) this.sound[name](...args);
    else if (this.soundCalls && name !== "clock") this.soundCalls.push([name, ...args]);
  }

  sideNames() {
    const v = this.view;
    const n = v.config.players;
    return Array.from({ length: sideCount(n) }, (_, i) => sideName(v.seats, n, i));
  }

  renderHead() {
    const v = this.view;
    const names = this.sideNames();
    fill(this.els.totals, runningScore(v, names)); // totals, and scope and accusi as they happen
    fill(this.els.stakes, cashBadges(v.config));
    const seated = v.you !== null && v.you !== undefined;
    const buttons = [];
    if (v.status === "playing") {
      buttons.push(h("button", { type: "button", class: "open-sheet", onclick: () => this.toggleSheet() }, t("table.sheet")));
    }
    if (v.status === "playing" && seated && !v.forfeit) {
      buttons.push(h("button", { type: "button", class: "abandon danger", onclick: () => this.abandon() }, t("table.abandon")));
    }
    buttons.push(h("button", { type: "button", class: "leave", onclick: () => this.leave() },
      v.status === "open" && seated ? t("table.leave_seat") : t("table.leave")));
    fill(this.els.actions, buttons);
    let status = "";
    if (v.status === "open") status = t("table.status.open");
    else if (v.status === "finished") status = t("table.status.finished");
    else if (v.status === "closed") status = t("table.status.closed");
    else if (v.deal) {
      const d = v.deal;
      const who = d.to_move;
      if (d.is_over || who === null || who === undefined) status = t("table.status.between");
      else if (who === v.you) status = t("table.status.your_turn");
      else status = t("table.status.turn", { name: v.seats[who] ? v.seats[who].name : who + 1 });
      status = `${t("table.status.smazzata", { n: v.deal_index + 1 })} \u00b7 ${status}`;
      if (v.spareggio) status += ` \u00b7 ${t("table.status.spareggio", { n: v.spareggio })}`;
    }
    this.els.status.textContent = status;
  }

  renderOpen() {
    const v = this.view;
    const invite = this.ctx.invite || null;
    const link = v.config.private && invite ? `${location.origin}/table/${this.id}?invite=${invite}` : null;
    fill(this.els.main,
      seatList(v, {
        me: this.ctx.user,
        onSit: (seat) => this.command({ type: "sit", seat, invite }),
        onStand: () => this.command({ type: "stand" }),
      }),
      link ? h("p", { class: "invite" }, t("table.invite"), " ", h("input", { type: "text", readonly: true, value: link, class: "invite-link", "aria-label": t("table.invite") })) : null);
    fill(this.els.turnbar);
    fill(this.els.side, this.configSummary());
  }

  configSummary() {
    const c = this.view.config;
    const opts = Object.entries(c.options || {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ");
    return h("section", { class: "config-summary" },
      h("h2", {}, t("table.config")),
      h("dl", {},
        h("dt", {}, t("table.config.preset")), h("dd", {}, c.preset),
        h("dt", {}, t("table.config.players")), h("dd", {}, String(c.players)),
        h("dt", {}, t("table.config.move_clock")), h("dd", {}, c.move_seconds ? formatClock(c.move_seconds * 1000) : "\u2013"),
        h("dt", {}, t("table.config.partita_clock")), h("dd", {}, c.partita_seconds ? formatClock(c.partita_seconds * 1000) : "\u2013"),
        opts ? [h("dt", {}, t("table.config.options")), h("dd", {}, opts)] : null));
  }

  myTurn() {
    const v = this.view;
    return Boolean(v && v.status === "playing" && !v.forfeit && v.deal && !v.deal.is_over &&
      v.you !== null && v.you !== undefined && v.deal.to_move === v.you && v.deal.legal_moves);
  }

  renderPlay(sideNames) {
    const v = this.view;
    const d = v.deal;
    const you = v.you ?? null;
    const model = {
      players: v.config.players,
      bottom: you ?? 0,
      you,
      clockwise: Boolean(d && d.rules.clockwise),
      seats: v.seats,
      deal: d,
      style: this.style,
      lang: this.lang,
      interactive: you !== null && v.status === "playing",
      centerNote: t("table.status.between"),
    };
    const { board } = renderBoard(model);
    if (d) markLastCapture(board, v);
    const content = [board];
    if (v.status === "finished") {
      // the end: the winner, then the whole sheet in the page (no overlay to close)
      content.unshift(
        endPanel(v, { sideNames, onReplay: () => this.ctx.navigate(`/replay/${this.id}`), onLobby: () => this.goLobby() }),
        (v.scores || []).length && this.x ? this.x.scoreSheet({ scores: v.scores, totals: v.totals, sideNames, rules: d ? d.rules : null }) : null,
      );
      this.sheet = null;
    }
    fill(this.els.main, content);
    const legal = this.myTurn() ? d.legal_moves : [];
    // the server's legal moves, for tests and tools reading the page
    if (legal.length) board.dataset.legal = legal.join(" ");
    this.controller.attach(board, { legal, hand: d ? d.hand : [], table: d ? d.table.map((x) => x.card) : [], myTurn: this.myTurn() });
    this.renderTurnBar(legal);
    if (this.x) this.coach.mark(board, v);
    this.renderSide(sideNames);
    this.renderSheet(sideNames);
  }

  // Beside the board: the last capture and the previous mano, the carte viste, the sheet.
  renderSide(sideNames) {
    const v = this.view;
    const d = v.deal;
    const opts = { style: this.style, lang: this.lang };
    fill(this.els.side,
      lastPanel(v, this.manos, opts),
      d && d.carte_viste ? carteViste(d.carte_viste, opts) : null,
      this.lastSheetSummary(sideNames));
  }

  renderTurnBar(legal) {
    const buttons = [];
    const decls = declarations(legal);
    if (decls.length) {
      buttons.push(h("button", { type: "button", class: "accuso primary", onclick: () => this.declare() }, t("table.accuso")));
    }
    const pass = passMove(legal);
    if (pass) buttons.push(h("button", { type: "button", class: "pass", onclick: () => this.sendMove(pass) }, t("table.pass")));
    const coach = this.x ? this.coach.button(this.view, this.myTurn()) : null;
    if (coach) buttons.push(coach);
    const mine = this.myTurn();
    fill(this.els.turnbar,
      h("p", { class: ["turn-note", mine ? "mine" : null] }, mine ? t("table.status.your_turn") : ""),
      this.els.hint,
      this.controller.bar,
      buttons);
  }

  // The last finished smazzata's totals beside the board (the whole sheet on demand).
  lastSheetSummary(sideNames) {
    const scores = this.view.scores || [];
    if (!scores.length || this.view.status === "finished") return null;
    return h("section", { class: "mini-sheet" },
      h("h2", {}, t("score.title")),
      h("p", {}, t("score.after", { n: scores.length })),
      h("button", { type: "button", class: "open-sheet-side", onclick: () => this.toggleSheet() }, t("table.sheet")));
  }

  // The head's button opens the sheet over the table (or brings a docked one back).
  toggleSheet(index = null) {
    this.sheet = this.sheet && !this.sheetDocked() ? null : { index, auto: false, deal: this.view.deal_index };
    if (this.sheet) this.x?.finishFlights(); // nothing flies over the sheet
    this.renderSheet(this.sideNames());
    if (this.sheet) this.els.sheet.querySelector(".close-sheet")?.focus();
  }

  // The sheet opened by the end of a smazzata covers the table only during the pause
  // before the next deal (no clock runs then); once that deal is here it docks beside
  // the board (below it on a phone), to be read or closed (docs/table-flow.md).
  sheetDocked() {
    const sh = this.sheet;
    return Boolean(sh && sh.auto && this.view && this.view.deal_index > sh.deal);
  }

  renderSheet(sideNames) {
    const v = this.view;
    const layer = this.els.sheet;
    if (!this.sheet || !v || !(v.scores || []).length || !this.x) {
      layer.hidden = true;
      layer.replaceChildren();
      return;
    }
    const rules = v.deal ? v.deal.rules : null;
    const docked = this.sheetDocked();
    (docked ? this.els.side : this.root.querySelector(".table-page")).append(layer);
    layer.hidden = false;
    layer.classList.toggle("auto", Boolean(this.sheet.auto));
    layer.classList.toggle("docked", docked);
    fill(layer, this.x.scoreSheet({
      scores: v.scores,
      index: this.sheet.index,
      totals: v.totals,
      sideNames,
      rules,
      onClose: () => {
        this.sheet = null;
        this.renderSheet(sideNames);
      },
    }));
  }

  // ---- what a batch of records did ----------------------------------------------------------
  handleRecords(records, before, animate) {
    const opts = { style: this.style, lang: this.lang };
    const v = this.view;
    const plays = [];
    let lastPlay = null;
    let dealt = false; // a new smazzata: the last move of the one before is no news
    for (const rec of records) {
      if (rec.type === "committed") [lastPlay, dealt] = [null, true];
      for (const e of rec.events || []) if (e.type === "play") plays.push(lastPlay = e);
    }
    if (lastPlay) this.els.last.textContent = describePlay(lastPlay, v.seats, opts);
    else if (dealt) this.els.last.textContent = "";
    const lines = announcements(records, v, opts);
    if (v.status !== "finished") {
      for (const line of lines) if (line.kind === "big" || records.length < 8) this.announce(line.text, line.kind);
    }
    const revealed = records.filter((r) => r.type === "revealed");
    if (revealed.length && (v.scores || []).length && v.status !== "finished") {
      const last = revealed[revealed.length - 1];
      this.sheet = { index: last.deal, auto: true, deal: last.deal };
      this.renderSheet(this.sideNames());
    }
    if (this.sheet && !this.sheetDocked()) this.x?.finishFlights(); // never over the open sheet
    else if (animate && before && this.x) {
      this.x.animatePlays(this.els.main, before, plays, { side: (s) => sideOf(s, v.config.players), ...opts });
    }
  }

  // Arriving at a smazzata that has just begun (the table was made and dealt before
  // the page opened): what the deal announced, such as the dealer's bonus.
  announceFresh() {
    const v = this.view;
    const d = v && v.deal;
    if (!d || v.status !== "playing" || d.is_over) return;
    const plays = d.history.filter((e) => e.type === "play").length;
    if (plays >= v.config.players) return;
    const opts = { style: this.style, lang: this.lang };
    for (const line of announcements([{ type: "fresh", events: d.history }], v, opts)) {
      if (line.kind === "big") this.announce(line.text, line.kind);
    }
  }

  announce(text, kind = "info") {
    announce(this.els, text, kind, 3000);
  }

  hint(text, kind = "info") {
    hint(this.els, text, kind);
  }

  toast(text, kind = "error") {
    toast(this.els, text, kind);
  }


  // ---- clocks ------------------------------------------------------------------------------
  updateClocks() {
    const v = this.view;
    if (!v || v.status !== "playing" || !v.deal) return;
    drawClocks(this.els.main, v, this.serverNow());
    this.soundCall("clock", v, this.serverNow());
  }

  // Another deck style from the table's options: the cards are drawn again at once.
  setStyle(style) {
    this.style = style;
    this.controller.style = style;
    this.render({ records: [], animate: false });
  }

  // ---- focus across redraws ------------------------------------------------------------------
  focusKey() {
    const a = document.activeElement;
    if (!a || !this.root.contains(a)) return null;
    if (a.dataset && a.dataset.code) {
      const zone = a.classList.contains("hand-card") ? "hand-card" : a.classList.contains("table-card") ? "table-card" : null;
      if (zone) return `.${zone}[data-code="${a.dataset.code}"]`;
    }
    for (const cls of ["confirm-capture", "accuso", "pass", "open-sheet", "sit", "stand"]) {
      if (a.classList.contains(cls)) return `.${cls}`;
    }
    return null;
  }

  restoreFocus(selector) {
    if (!selector) return;
    const el = this.root.querySelector(selector);
    if (el && !el.hidden) el.focus({ preventScroll: true });
  }

  // ---- commands --------------------------------------------------------------------------------
  async command(cmd) {
    const answer = await this.conn.tableCommand(this.id, cmd);
    if (this.destroyed) return answer;
    if (answer.type === "error") {
      this.toast(errorText(answer));
      // Draw again from what the server last sent ("stale" is followed by a sync).
      const latest = this.conn.view(this.id);
      if (latest) this.view = latest;
      this.render({ records: [], animate: false });
    }
    return answer;
  }

  async sendMove(move) {
    const answer = await this.command({ type: "play", move });
    return answer.type === "ack";
  }

  async declare() {
    const legal = this.myTurn() ? this.view.deal.legal_moves : [];
    const move = await chooseDeclaration(legal, { style: this.style, lang: this.lang, rules: this.view.deal.rules });
    if (move && this.myTurn()) {
      const m = parseMove(move);
      const ok = await this.sendMove(move);
      if (ok) this.announce(t("table.accuso.sent", { cards: cardNames(m.cards, this.style, this.lang) }), "info");
    }
  }

  async abandon() {
    const ok = await confirmDialog(t("table.abandon.title"), t("table.abandon.text"), t("table.abandon.confirm"));
    if (ok) await this.command({ type: "abandon" });
  }

  goLobby() {
    this.ctx.navigate("/lobby");
  }

  async leave() {
    const v = this.view;
    if (v && v.status === "playing" && v.you !== null && v.you !== undefined && !v.forfeit) {
      const ok = await confirmDialog(t("table.leave.title"), t("table.leave.text"), t("table.leave"));
      if (!ok) return;
    }
    this.left = true;
    await this.conn.leaveTable(this.id);
    this.goLobby();
  }
}
