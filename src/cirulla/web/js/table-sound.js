// What the table sounds like: the sounds (sound.js) that a batch of table records
// calls for, the player's turn coming, and the last seconds of the player's own clocks
// (the move clock and the partita clock, whichever runs out first). Only live events sound: those the server sends again after a reconnect (the
// answer to a join still pending) or that a sync folds in stay silent. What a game's
// records sound like is a parameter (Cirulo's: cirulo-sound.js).
import { playSound } from "./sound.js";
import { sideOf } from "./table-board.js";

const GAP = 0.12; // seconds between the sounds of one batch

// True while a join of this table is unanswered: the events arriving now are what was
// missed (docs/protocol.md, "since"), not moves being made.
function replaying(conn, id) {
  for (const p of conn.pending.values()) if (p.frame.type === "join" && p.frame.table === id) return true;
  for (const table of conn.rejoins.values()) if (table === id) return true;
  return false;
}

// The sounds a batch of live records calls for, in order.
export function soundsFor(records, view) {
  const out = [];
  const you = view.you;
  for (const rec of records) {
    for (const e of rec.events || []) {
      if (e.type === "play") out.push(e.scopa ? "scopa" : e.captured && e.captured.length ? "capture" : "play");
      else if (e.type === "declare") out.push("accuso");
    }
    if (rec.type === "ended") {
      const mine = you === null || you === undefined ? null : sideOf(you, view.config.players);
      if (mine === null || rec.winner === null || rec.winner === undefined) out.push("end");
      else out.push(rec.winner === mine ? "win" : "lose");
    }
  }
  return out;
}

export class TableSound {
  // sounds(records, view): the names a batch of live records calls for (soundsFor here).
  constructor(conn, id, sounds = soundsFor) {
    this.conn = conn;
    this.id = id;
    this.sounds = sounds;
    this.replayed = new WeakSet();
    this.wasMine = null; // null until the first view: arriving at one's turn is silent
    this.lastTick = null;
  }

  // A frame arrived (before it is drawn).
  frame(frame) {
    if (frame.event && replaying(this.conn, this.id)) this.replayed.add(frame.event);
  }

  // The board was drawn after `records`; `mine`: it is now the player's turn.
  rendered(records, view, mine) {
    const live = records.filter((r) => !this.replayed.has(r));
    const names = this.sounds(live, view);
    if (mine && this.wasMine === false && live.length) names.push("turn");
    this.wasMine = mine;
    names.slice(0, 6).forEach((name, i) => playSound(name, i * GAP));
  }

  // Called a few times a second: a tick in each of the last 5 s of one's own clock, the
  // move clock or the partita clock (the one with less time left; one tick a second).
  clock(view, now) {
    const d = view.deal;
    if (!d || d.is_over || view.forfeit || view.status !== "playing" || !view.config) return;
    if (view.you === null || view.you === undefined || d.to_move !== view.you) return;
    const elapsed = Math.max(0, now - view.turn_since);
    const lefts = [];
    if (view.config.move_seconds) lefts.push(view.config.move_seconds * 1000 - elapsed);
    const partita = view.clocks ? view.clocks[view.you] : null; // at the turn's start
    if (typeof partita === "number") lefts.push(partita - elapsed);
    if (!lefts.length) return;
    const second = Math.ceil(Math.min(...lefts) / 1000);
    if (second < 1 || second > 5) return;
    const key = `${view.turn_since}:${second}`;
    if (key === this.lastTick) return;
    this.lastTick = key;
    playSound("tick");
  }
}
