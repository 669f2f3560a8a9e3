// The one WebSocket of the client (docs/protocol.md): commands with action ids and
// versions, answers matched to their commands, tables' versions kept so that a
// reconnect asks for exactly the events that were missed. The client never makes up
// state: a table's view is only ever what the server last sent.

// A command answered `unavailable` was not applied (docs/protocol.md): it is sent
// again, the same frame with the same action id, after a wait that doubles from
// 0.5 s to 5 s, this many times; then its caller gets the `unavailable` answer (the
// table page shows it). A join of a table still watched is retried for as long
// (`retryJoin`).
export const RESENDS = 6;

let counter = 0;
function newAction() {
  counter += 1;
  const rand = Math.random().toString(36).slice(2, 8);
  return `${Date.now().toString(36)}-${rand}-${counter}`;
}

// The view an event's `changes` make of the one we hold (docs/protocol.md): the keys
// that changed, at the top level and in `deal`, and the keys that went away.
export function applyChanges(base, changes) {
  const view = { ...base, ...changes.set };
  for (const k of changes.unset || []) delete view[k];
  if (changes.deal) {
    const deal = { ...base.deal, ...changes.deal.set };
    for (const k of changes.deal.unset || []) delete deal[k];
    view.deal = deal;
  }
  return view;
}

// The deal's history: a sync's view carries it whole; an event's view leaves it out
// (docs/protocol.md), since each event carries the engine events it caused. A new
// deal's "committed" event starts the history again.
export function keepHistory(t, frame) {
  if (frame.type === "sync") {
    t.history = frame.view && frame.view.deal ? frame.view.deal.history || [] : [];
    return;
  }
  const events = frame.event.events;
  if (frame.event.type === "committed") t.history = [...(events || [])];
  else if (events) t.history = [...(t.history || []), ...events];
  if (frame.view && frame.view.deal) frame.view.deal.history = t.history;
}

// The lobby's order (docs/protocol.md): open tables first, then newest first, then by id.
export function lobbyOrder(a, b) {
  const open = (a.status === "open" ? 0 : 1) - (b.status === "open" ? 0 : 1);
  if (open) return open;
  const age = (b.created || 0) - (a.created || 0);
  if (age) return age;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

// The lobby list a "lobby" frame makes of the one held (null: none): a whole list, or
// its changes since the version held; null when the changes do not follow on from it.
export function applyLobby(held, frame) {
  if (!frame.changes) return { version: frame.version, tables: frame.tables || [] };
  if (!held || held.version !== frame.since) return null;
  const byId = new Map(held.tables.map((t) => [t.id, t]));
  for (const id of frame.changes.remove || []) byId.delete(id);
  for (const entry of frame.changes.set || []) byId.set(entry.id, entry);
  return { version: frame.version, tables: [...byId.values()].sort(lobbyOrder) };
}

// The socket js/boot.js opened before the modules arrived, with the frames it received
// meanwhile: taken once, and only while it is still usable.
function takeEarlySocket(url) {
  const early = window.cirullaEarlySocket;
  if (!early) return null;
  window.cirullaEarlySocket = null;
  early.stop();
  if (early.ws.url !== url || early.ws.readyState > WebSocket.OPEN) {
    early.ws.close();
    return null;
  }
  return early;
}

export class Connection extends EventTarget {
  constructor(url = Connection.defaultUrl()) {
    super();
    this.url = url;
    this.ws = null;
    this.pending = new Map(); // action -> {frame, resolve, resends}
    this.resending = new Map(); // action -> the same: answered unavailable, sent again soon
    this.resendLimit = RESENDS;
    this.tables = new Map(); // table id -> {version, view, invite}
    this.lobbyWatched = false;
    this.lobby = null; // {version, tables}: the lobby list as last sent, changes applied
    this.chats = new Map(); // chat ("" the lobby, else a table id) -> its messages (keepChat)
    this.lobbyAsked = false; // the whole list was asked for again after a gap
    this.rejoins = new Map(); // action -> table id: the joins sent again after a reconnect
    this.joinWait = new Map(); // table id -> ms before a join answered unavailable is resent
    this.user = null;
    this.status = "connecting";
    this.retry = 0;
    this.closedByUs = false;
    this.open();
  }

  static defaultUrl() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws`;
  }

  open() {
    this.setStatus("connecting");
    const early = takeEarlySocket(this.url);
    const ws = early ? early.ws : new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("message", (e) => this.onFrame(JSON.parse(e.data)));
    if (early && early.frames.length) {
      // after the caller's listeners are in place, before any frame still to come
      queueMicrotask(() => {
        for (const e of early.frames) if (this.ws === ws) this.onFrame(JSON.parse(e.data));
      });
    }
    ws.addEventListener("close", (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.setStatus("offline", e.code);
      if (!this.closedByUs) {
        // 4000: the session ended (docs/protocol.md). The page checks the session when
        // the socket goes offline and closes this connection if it is gone; wait longer
        // than that check, so that only a session that lives on (a claimed guest's new
        // one) connects again. 4001 (too slow) and the rest: connect again and rejoin.
        const wait = e.code === 4000 ? 3000 : Math.min(10000, 500 * 2 ** this.retry);
        this.retry += 1;
        setTimeout(() => {
          if (!this.closedByUs) this.open();
        }, wait);
      }
    });
  }

  close() {
    this.closedByUs = true;
    if (this.ws) this.ws.close();
  }

  setStatus(status, code) {
    this.status = status;
    this.dispatchEvent(new CustomEvent("status", { detail: { status, code } }));
  }

  // After (re)connecting: watch again what was watched, resend unanswered commands
  // with their original action ids (the server answers a repeat, never applies it twice).
  onWelcome(frame) {
    this.retry = 0;
    this.user = frame.user;
    this.setStatus("online");
    const waiting = [...this.pending.values()].map((p) => p.frame);
    const joining = new Set(waiting.filter((f) => f.type === "join").map((f) => f.table));
    if (this.lobbyWatched && !waiting.some((f) => f.type === "lobby")) {
      this.raw({ type: "lobby", action: newAction() });
    }
    this.rejoins.clear();
    for (const [id, t] of this.tables) {
      if (joining.has(id)) continue; // its own join is resent below
      const action = newAction();
      this.rejoins.set(action, id);
      this.raw({ type: "join", action, table: id, since: t.version ?? null, invite: t.invite ?? null });
    }
    for (const frame of waiting) {
      // a join resent after a reconnect asks for what was missed since the last version seen
      this.raw(frame.type === "join" ? { ...frame, since: this.tables.get(frame.table)?.version ?? null } : frame);
    }
  }

  onFrame(frame) {
    switch (frame.type) {
      case "welcome":
        this.onWelcome(frame);
        break;
      case "ack":
      case "error":
      case "pong": {
        const p = this.pending.get(frame.action);
        const joined = p ? (p.frame.type === "join" ? p.frame.table : undefined) : this.rejoins.get(frame.action);
        this.rejoins.delete(frame.action);
        if (joined !== undefined && frame.type === "error" && frame.code === "unavailable" && this.tables.has(joined)) {
          // The table is moving between nodes (docs/protocol.md): join it again shortly.
          this.pending.delete(frame.action);
          this.retryJoin(joined, p, frame);
          break;
        }
        if (joined !== undefined && frame.type === "ack") this.joinWait.delete(joined);
        if (p && frame.type === "error" && frame.code === "unavailable" && this.resendLater(p, frame)) {
          this.pending.delete(frame.action);
          break;
        }
        if (p) {
          this.pending.delete(frame.action);
          p.resolve(frame);
        }
        if (frame.type === "error" && !p) {
          this.dispatchEvent(new CustomEvent("servererror", { detail: frame }));
        }
        break;
      }
      case "event":
      case "sync": {
        const t = this.tables.get(frame.table);
        if (!t) break;
        // An event held already: a join's replay of what a broadcast brought (a join
        // sent while the event was on its way). Applied again, its plays would be in
        // the history twice.
        if (frame.type === "event" && t.version != null && frame.version <= t.version) break;
        if (frame.changes) {
          if (!t.view) {
            // changes to a view we do not hold: ask for the whole table again
            t.version = null;
            this.send({ type: "join", table: frame.table, since: null, invite: t.invite });
            break;
          }
          frame.view = applyChanges(t.view, frame.changes);
        }
        t.version = frame.version;
        keepHistory(t, frame);
        if (frame.view) t.view = frame.view;
        this.dispatchEvent(new CustomEvent("table", { detail: frame }));
        break;
      }
      case "lobby": {
        // A whole list, or its changes since the list we hold; after a gap (changes
        // that do not follow on), ask for the whole list again.
        const lobby = applyLobby(this.lobby, frame);
        if (!lobby) {
          this.lobby = null;
          if (this.lobbyWatched && !this.lobbyAsked) {
            this.lobbyAsked = true; // once, until the whole list comes
            this.raw({ type: "lobby", action: newAction() });
          }
          break;
        }
        this.lobbyAsked = false;
        this.lobby = lobby;
        this.dispatchEvent(new CustomEvent("lobby", { detail: { type: "lobby", ...lobby } }));
        break;
      }
      case "watchers": {
        // who watches a table without a seat (unversioned: no view changes)
        const t = this.tables.get(frame.watching);
        if (!t) break;
        t.watchers = { count: frame.count, names: frame.names || [] };
        this.dispatchEvent(new CustomEvent("watchers", { detail: { table: frame.watching, ...t.watchers } }));
        break;
      }
      case "chat":
      case "chat_history":
      case "chat_hidden":
        this.keepChat(frame);
        break;
      case "tournament":
        // a round started or a tournament ended (pages/tournament-notices.js)
        this.dispatchEvent(new CustomEvent("tournament", { detail: frame }));
        break;
      default:
        break;
    }
  }

  // Chat (docs/chat.md), unversioned: each chat's messages ("" is the lobby's), a
  // history replacing what is held but for newer messages, a hidden one dropped.
  keepChat(frame) {
    const key = frame.chat ?? "";
    let list = this.chats.get(key) || [];
    if (frame.type === "chat_history") {
      const last = Math.max(0, ...frame.messages.map((m) => m.id));
      list = [...frame.messages, ...list.filter((m) => m.id > last)];
    } else if (frame.type === "chat") {
      list = [...list.filter((m) => m.id !== frame.id), frame].slice(-200);
    } else {
      list = list.filter((m) => m.id !== frame.id);
    }
    this.chats.set(key, list);
    this.dispatchEvent(new CustomEvent("chat", { detail: { chat: key, messages: list } }));
  }

  // A join answered `unavailable`, sent again after a wait that doubles from 0.5 s to 5 s,
  // with a new action (the old one's answer stays the same), for as long as the table is
  // watched; the promise of the first join resolves with the answer that ends it.
  retryJoin(id, p, answer) {
    const wait = this.joinWait.get(id) ?? 500;
    this.joinWait.set(id, Math.min(5000, wait * 2));
    setTimeout(() => {
      const t = this.tables.get(id);
      if (!t || this.closedByUs) {
        this.joinWait.delete(id);
        if (p) p.resolve(answer);
        return;
      }
      const frame = { type: "join", action: newAction(), table: id, since: t.version ?? null, invite: t.invite ?? null };
      if (p) this.pending.set(frame.action, { frame, resolve: p.resolve });
      else this.rejoins.set(frame.action, id);
      this.raw(frame);
    }, wait);
  }

  // Send `p`'s command again after a wait (see RESENDS); false when it has been sent
  // enough times, is a join (see retryJoin) or this connection is closed: its caller
  // gets the `answer` then.
  resendLater(p, answer) {
    const resends = p.resends ?? 0;
    if (resends >= this.resendLimit || p.frame.type === "join" || this.closedByUs) return false;
    p.resends = resends + 1;
    const action = p.frame.action;
    this.resending.set(action, p);
    setTimeout(() => {
      if (this.resending.get(action) !== p) return;
      this.resending.delete(action);
      if (this.closedByUs) {
        p.resolve(answer);
        return;
      }
      // Pending again: sent now, or by onWelcome if the socket is reconnecting.
      this.pending.set(action, p);
      this.raw(p.frame);
    }, Math.min(5000, 500 * 2 ** resends));
    return true;
  }

  raw(frame) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
  }

  // Send a command; resolves with its ack or error frame.
  send(command) {
    const frame = { ...command, action: newAction() };
    return new Promise((resolve) => {
      this.pending.set(frame.action, { frame, resolve });
      this.raw(frame);
    });
  }

  watchLobby() {
    this.lobbyWatched = true;
    return this.send({ type: "lobby" });
  }

  unwatchLobby() {
    this.lobbyWatched = false;
    this.lobby = null;
    return this.send({ type: "lobby", watch: false });
  }

  watchTable(id, invite = null) {
    if (!this.tables.has(id)) this.tables.set(id, { version: null, view: null, invite });
    const t = this.tables.get(id);
    return this.send({ type: "join", table: id, since: t.version, invite });
  }

  leaveTable(id) {
    this.tables.delete(id);
    return this.send({ type: "leave", table: id });
  }

  version(id) {
    const t = this.tables.get(id);
    return t ? t.version ?? 0 : 0;
  }

  view(id) {
    const t = this.tables.get(id);
    return t ? t.view : null;
  }

  // A command against a table, sent with the last version seen.
  tableCommand(id, command) {
    return this.send({ ...command, table: id, version: this.version(id) });
  }
}
