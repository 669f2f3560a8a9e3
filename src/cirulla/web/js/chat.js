// Chat at a table and in the lobby (docs/chat.md). The socket keeps each chat's
// messages (socket.js `chats`); this panel shows them, sends text and quick phrases
// (ids, shown in the reader's language) and mutes senders on this browser only. A bot
// account's messages wear its BOT badge (bot-badge.js), as its seat does.
import { botBadge } from "./bot-badge.js";
import { hasKey, t } from "./i18n.js";
import { fill, h } from "./pages/dom.js";

export const PHRASES = ["ciao", "bravo", "grazie", "buona_fortuna", "che_fortuna", "ben_giocato", "peccato", "un_attimo", "arrivederci"];
export const CHAT_MAX = 200;
const MUTED_KEY = "cirulla.chat.muted";

export function mutedNames() {
  try {
    const list = JSON.parse(localStorage.getItem(MUTED_KEY) || "[]");
    return new Set(Array.isArray(list) ? list.filter((n) => typeof n === "string") : []);
  } catch {
    return new Set();
  }
}

function setMuted(name, on) {
  const names = mutedNames();
  if (on) names.add(name);
  else names.delete(name);
  localStorage.setItem(MUTED_KEY, JSON.stringify([...names]));
  window.dispatchEvent(new CustomEvent("chatmute"));
}

// What a message says, in the reader's language for a quick phrase.
export function messageText(m) {
  return m.phrase ? t(`chat.phrase.${m.phrase}`) : m.text;
}

function timeText(at) {
  return new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

// One message as a list item; `mute` (optional) adds the sender's mute toggle.
export function messageItem(m, { me = null, mute = null } = {}) {
  const mine = me && m.from === me.name;
  return h("li", { class: ["chat-message", m.audience === "spectators" ? "rail" : null, mine ? "mine" : null], dataset: { id: m.id, from: m.from } },
    h("span", { class: "chat-time" }, timeText(m.at)), " ",
    h("span", { class: "chat-from" }, m.from), " ",
    m.bot_account ? [botBadge(), " "] : null,
    m.audience === "spectators" ? h("span", { class: "chat-rail", title: t("chat.rail.title") }, t("chat.rail")) : null, " ",
    h("span", { class: ["chat-text", m.phrase ? "phrase" : null] }, messageText(m)),
    mute && !mine
      ? h("button", { type: "button", class: "chat-mute", "aria-label": t("chat.mute.label", { name: m.from }), title: t("chat.mute.label", { name: m.from }), onclick: () => mute(m.from) }, t("chat.mute"))
      : null);
}

// The panel for chat `chat` (a table's id, or null: the lobby).
export function chatPanel({ conn, chat = null }) {
  const key = chat ?? "";
  const list = h("ol", { class: "chat-messages", "aria-live": "polite" });
  const note = h("p", { class: "chat-note", hidden: true });
  const muted = h("p", { class: "chat-muted", hidden: true });
  const error = h("p", { class: "chat-error", role: "alert", hidden: true });
  let edits = 0; // the input's edits so far: a send's answer clears only its own text
  const input = h("input", { type: "text", class: "chat-input", maxlength: CHAT_MAX, autocomplete: "off", oninput: () => { edits += 1; } });
  const sendButton = h("button", { type: "submit", class: "chat-send" });
  const phrases = h("div", { class: "chat-phrases", role: "group" });
  const title = h("h2", { class: "chat-title" });
  const form = h("form", { class: "chat-form", onsubmit: (e) => { e.preventDefault(); send({ text: input.value }); } }, input, sendButton);
  const el = h("section", { class: "chat-panel", dataset: { chat: key } }, title, note, list, muted, error, phrases, form);

  async function send(what) {
    if (what.text !== undefined && !what.text.trim()) return;
    error.hidden = true;
    const sent = edits;
    const answer = await conn.send({ type: "chat", table: chat, ...what });
    if (answer.type === "error") {
      error.textContent = hasKey(`chat.error.${answer.code}`) ? t(`chat.error.${answer.code}`) : `${t("chat.error.generic")} (${answer.message})`;
      error.hidden = false;
    } else if (what.text !== undefined && edits === sent) {
      input.value = ""; // not what was typed since: the answer may come after the next is begun
    }
  }

  function drawMessages() {
    const names = mutedNames();
    const shown = (conn.chats?.get(key) || []).filter((m) => !names.has(m.from));
    fill(list, shown.map((m) => messageItem(m, { me: conn.user, mute: (n) => setMuted(n, true) })));
    if (shown.length) list.scrollTop = list.scrollHeight; // (a forced layout: not for none)
    fill(muted, names.size ? [t("chat.muted"), " ", [...names].map((n) => h("button", { type: "button", class: "chat-unmute", dataset: { name: n }, "aria-label": t("chat.unmute.label", { name: n }), onclick: () => setMuted(n, false) }, n))] : []);
    muted.hidden = !names.size;
  }

  // Spectators during a partita: what they write only spectators read.
  function drawNote() {
    if (chat === null) return;
    const v = conn.view(chat);
    const rail = Boolean(v && v.status === "playing" && (v.you === null || v.you === undefined));
    note.hidden = !rail;
    note.textContent = rail ? t("chat.spectators_note") : "";
  }

  function draw() {
    title.textContent = t(chat === null ? "chat.title.lobby" : "chat.title.table");
    input.placeholder = t("chat.placeholder");
    input.setAttribute("aria-label", t("chat.placeholder"));
    sendButton.textContent = t("chat.send");
    phrases.setAttribute("aria-label", t("chat.phrases"));
    fill(phrases, PHRASES.map((p) => h("button", { type: "button", class: "chat-phrase", dataset: { phrase: p }, onclick: () => send({ phrase: p }) }, t(`chat.phrase.${p}`))));
    drawNote();
    drawMessages();
  }

  const onChat = (e) => { if (e.detail.chat === key) drawMessages(); };
  const onTable = (e) => { if (e.detail.table === chat) drawNote(); };
  conn.addEventListener("chat", onChat);
  conn.addEventListener("table", onTable);
  window.addEventListener("chatmute", drawMessages);
  window.addEventListener("languagechange", draw);
  draw();
  return {
    el,
    destroy() {
      conn.removeEventListener("chat", onChat);
      conn.removeEventListener("table", onTable);
      window.removeEventListener("chatmute", drawMessages);
      window.removeEventListener("languagechange", draw);
    },
  };
}

// The replay's chat: everything said at the table, read only (GET /api/tables/:id/chat).
export function chatLog(messages) {
  const names = mutedNames();
  const shown = messages.filter((m) => !names.has(m.from));
  return h("section", { class: "chat-panel chat-log" },
    h("h2", { class: "chat-title" }, t("chat.title.replay")),
    shown.length ? h("ol", { class: "chat-messages" }, shown.map((m) => messageItem(m))) : h("p", { class: "empty" }, t("chat.empty")));
}
