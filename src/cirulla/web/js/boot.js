// Opens the one WebSocket while the modules are still on their way: a classic script,
// so it runs as soon as it arrives, a round trip or more before app.js can. socket.js
// adopts the socket and the frames it received meanwhile (takeEarlySocket). Only with
// a session (the HTML's #cirulla-bootstrap says so): the server refuses others.
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
  const frames = [];
  const keep = (e) => frames.push(e);
  ws.addEventListener("message", keep);
  window.cirullaEarlySocket = { ws, frames, stop: () => ws.removeEventListener("message", keep) };
})();
