// Opens the one WebSocket while the modules are still on their way: a classic script
// the HTML carries (gateway/preload.py), so it runs as the page is read, a round trip or
// more before app.js can. socket.js adopts the socket and the frames it received
// meanwhile (takeEarlySocket). Only with a session (the HTML's #cirulla-bootstrap says
// so): the server refuses others.
//
// It also asks at once, as the socket opens, for what the page shows first, so that it
// is here by the time the page is: on a table's page it joins the table (the table's
// frames and the join's answer are set aside in `table` for app.js's adoptEarlyJoin,
// which hands them to the connection before the page joins the table itself); in the
// lobby it watches the lobby (socket.js keeps the list the server sends, conn.lobby).
// The answers to these commands are theirs: no other listener sees them.
(() => {
  const boot = document.getElementById("cirulla-bootstrap");
  let me = null;
  try {
    me = boot ? JSON.parse(boot.textContent).me : null;
  } catch {
    return;
  }
  if (!me || !me.user || !("WebSocket" in window)) return;
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${location.host}/ws`);
  // these listeners first: they take their frames before the others see them
  const table = /^\/table\/[^/]+$/.test(location.pathname) ? joinEarly(ws) : null;
  if (location.pathname === "/lobby") ask(ws, { type: "lobby" });
  const frames = [];
  const keep = (e) => frames.push(e);
  ws.addEventListener("message", keep);
  window.cirullaEarlySocket = { ws, frames, table, stop: () => ws.removeEventListener("message", keep) };

  // Send `command` as the socket opens; `settle(answer)` gets its ack or error (or a
  // "disconnected" error if the socket closes first), which no other listener sees.
  // `take(frame)` sees every other frame until then, and returns true to keep it too.
  function ask(socket, command, { settle = () => {}, take = () => false } = {}) {
    const action = `boot-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    let done = false;
    const finish = (answer) => {
      if (done) return;
      done = true;
      socket.removeEventListener("message", listen);
      settle(answer);
    };
    const listen = (e) => {
      let frame;
      try {
        frame = JSON.parse(e.data);
      } catch {
        return;
      }
      if (frame.action === action && (frame.type === "ack" || frame.type === "error")) {
        e.stopImmediatePropagation();
        finish(frame);
      } else if (take(frame)) {
        e.stopImmediatePropagation();
      }
    };
    socket.addEventListener("message", listen);
    socket.addEventListener("open", () => socket.send(JSON.stringify({ ...command, action })));
    socket.addEventListener("close", () => finish({ type: "error", code: "disconnected" }));
  }

  // {id, invite, frames, answer, onAnswer}: the join of this page's table, its frames.
  function joinEarly(socket) {
    let id;
    try {
      id = decodeURIComponent(location.pathname.split("/")[2]);
    } catch {
      return null;
    }
    const invite = new URLSearchParams(location.search).get("invite");
    const early = { id, invite, frames: [], answer: null, onAnswer: null };
    const mine = (f) =>
      (f.table === id && (f.type === "sync" || f.type === "event")) || (f.type === "watchers" && f.watching === id);
    ask(socket, { type: "join", table: id, since: null, invite }, {
      settle: (answer) => {
        early.answer = answer;
        if (early.onAnswer) early.onAnswer();
      },
      take: (frame) => mine(frame) && early.frames.push(frame) > 0,
    });
    return early;
  }
})();
