// The one WebSocket of the client (docs/protocol.md): commands with action ids and
// versions, answers matched to their commands, tables' versions kept so that a
// reconnect asks for exactly the events that were missed. The client never makes up
// state: a table's view is only ever what the server last sent.

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

export class Connection extends EventTarget {
  constructor(url = Connection.defaultUrl()) {
    super();
    this.url = url;
    this.ws = null;
    this.pending = new Map(); // action -> {frame, resolve}
    this.tables = new Map(); // table id -> {version, view, invite}
    this.lobbyWatched = false;
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
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("message", (e) => this.onFrame(JSON.parse(e.data)));
    ws.addEventListener("close", (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.setStatus("offline", e.code);
      if (!this.closedByUs) {
        const wait = Math.min(10000, 500 * 2 ** this.retry);
        this.retry += 1;
        setTimeout(() => this.open(), wait);
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
    for (const [id, t] of this.tables) {
      if (joining.has(id)) continue; // its own join is resent below
      this.raw({ type: "join", action: newAction(), table: id, since: t.version ?? null, invite: t.invite ?? null });
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
      case "lobby":
        this.dispatchEvent(new CustomEvent("lobby", { detail: frame }));
        break;
      default:
        break;
    }
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
