// The lobby: the live list of public tables (WebSocket "lobby" frames) and the
// create-table form (pages/create-table.js).
import { botBadge } from "../bot-badge.js";
import { api } from "../api.js";
import { ciruloMeta, isCirulo } from "../cirulo-lobby.js";
import { t } from "../i18n.js";
import { h, fill, link, playerLink } from "./dom.js";
import { readableError } from "./errors.js";
import { cashBadges } from "./wallet.js";

const TOURNAMENTS_SHOWN = 5; // the lobby shows the next few; "Tornei" has them all
const TOURNAMENTS_REFRESH_MS = 10000;

export function mountLobby(root, ctx) {
  const { conn, user } = ctx;
  let version = -1;
  let tables = null;
  let busy = false;

  const list = h("div", { class: "lobby-list", "aria-live": "polite", "aria-busy": "true" },
    h("p", { class: "muted" }, t("lobby.loading")));
  const formRoot = h("div", { class: "create-root" });
  const tournamentsList = h("div", { class: "lobby-tournaments-list", "aria-live": "polite" });
  const tournamentsBox = h("section", { class: "lobby-tournaments" },
    h("h2", {}, t("tournaments.title")),
    tournamentsList,
    link("/tournaments", t("lobby.all_tournaments"), { class: "lobby-all-tournaments" }));
  root.appendChild(
    h("section", { class: "page lobby" },
      h("div", { class: "lobby-tables" },
        h("h1", {}, t("lobby.title")),
        list,
        tournamentsBox),
      h("div", { class: "lobby-create" },
        h("h2", {}, t("create.title")),
        formRoot)));

  function show(frameVersion, frameTables) {
    if (typeof frameVersion === "number" && frameVersion < version) return; // an older list
    version = typeof frameVersion === "number" ? frameVersion : version;
    tables = frameTables || [];
    render();
  }

  function render() {
    list.setAttribute("aria-busy", "false");
    if (!tables || tables.length === 0) {
      fill(list, h("p", { class: "empty" }, t("lobby.empty")));
      return;
    }
    fill(list, h("ul", { class: "lobby-tables-list" }, tables.map(tableItem)));
  }

  function seatLabel(seat, i) {
    if (!seat) return h("li", { class: "lobby-seat free" }, t("lobby.seat_free", { n: i + 1 }));
    const mine = seat.user && seat.user === user.id;
    return h("li", { class: ["lobby-seat", seat.bot ? "bot" : "person", mine ? "mine" : null] },
      h("span", { class: "lobby-seat-name" }, seat.bot ? seat.name || "?" : playerLink(seat.name)),
      seat.bot && !(seat.name || "").includes(seat.bot)
        ? h("span", { class: "badge" }, t("lobby.bot", { level: t(`level.${seat.bot}`) }))
        : null,
      seat.bot_account ? botBadge() : null,
      mine ? h("span", { class: "badge you" }, t("lobby.you")) : null);
  }

  function lengthText(tbl) {
    if (tbl.hands) return t("lobby.hands", { n: tbl.hands });
    if (tbl.target) return t("lobby.target", { n: tbl.target });
    return "";
  }

  function clockText(tbl) {
    const parts = [];
    if (tbl.move_seconds) parts.push(t("lobby.move_clock", { s: Math.round(tbl.move_seconds) }));
    if (tbl.partita_seconds) parts.push(t("lobby.partita_clock", { m: Math.round(tbl.partita_seconds / 60) }));
    return parts.length ? parts.join(" · ") : t("lobby.no_clock");
  }

  // Cirulo (cirulo-lobby.js): the game, players, hands and the point value.
  function metaText(tbl) {
    const parts = isCirulo(tbl)
      ? ciruloMeta(tbl)
      : [t(`preset.${tbl.preset}`), t("lobby.players", { n: tbl.players }), lengthText(tbl)];
    parts.push(clockText(tbl));
    return parts.join(" · ");
  }

  function tableItem(tbl) {
    const seats = tbl.seats || [];
    const mine = seats.some((s) => s && s.user === user.id);
    const free = seats.some((s) => !s);
    const buttons = [];
    if (mine) {
      buttons.push(h("button", { type: "button", class: "primary", dataset: { action: "back", table: tbl.id }, onclick: () => go(tbl.id) }, t("lobby.back")));
    } else {
      if (tbl.status === "open" && free) {
        buttons.push(h("button", { type: "button", class: "primary", dataset: { action: "sit", table: tbl.id }, onclick: (e) => sit(tbl.id, e.currentTarget) }, t("lobby.sit")));
      }
      buttons.push(h("button", { type: "button", dataset: { action: "watch", table: tbl.id }, onclick: () => go(tbl.id) }, t("lobby.watch")));
    }
    const title = tbl.name || t("lobby.table_named", { id: tbl.id });
    return h("li", { class: ["lobby-table", `status-${tbl.status}`, isCirulo(tbl) ? "game-cirulo" : null], dataset: { table: tbl.id, game: tbl.game || "cirulla" } },
      h("div", { class: "lobby-table-head" },
        h("h3", { class: "lobby-table-name" }, title),
        h("span", { class: ["status-badge", tbl.status] }, t(`lobby.status.${tbl.status}`))),
      h("p", { class: "lobby-table-cash" }, cashBadges(tbl)),
      h("p", { class: "lobby-table-meta" }, metaText(tbl)),
      h("ul", { class: "lobby-seats", "aria-label": t("lobby.seats") }, seats.map(seatLabel)),
      h("div", { class: "lobby-table-actions" }, buttons));
  }

  function go(id) {
    ctx.navigate(`/table/${encodeURIComponent(id)}`);
  }

  // Sit at the first free seat, then open the table. The join makes the server send the
  // table's state (and version), which a sit must name; a stale answer is retried.
  async function sit(id, button) {
    if (busy) return;
    busy = true;
    button.disabled = true;
    try {
      const joined = await conn.watchTable(id);
      if (joined.type === "error") throw joined;
      let answer = null;
      for (let attempt = 0; attempt < 4; attempt += 1) {
        if (conn.version(id) === 0) await tableFrame(id);
        answer = await conn.tableCommand(id, { type: "sit", seat: null });
        if (!(answer.type === "error" && answer.code === "stale")) break;
        await tableFrame(id);
      }
      if (answer.type === "error") throw answer;
      go(id);
    } catch (err) {
      ctx.notify(readableError(err), "error");
      button.disabled = false;
    } finally {
      busy = false;
    }
  }

  // Resolves at the next event/sync frame of table `id` (or after a short wait).
  function tableFrame(id, ms = 2000) {
    return new Promise((resolve) => {
      const done = () => {
        conn.removeEventListener("table", onTable);
        clearTimeout(timer);
        resolve();
      };
      const onTable = (e) => {
        if (e.detail.table === id) done();
      };
      const timer = setTimeout(done, ms);
      conn.addEventListener("table", onTable);
    });
  }

  const onLobby = (e) => show(e.detail.version, e.detail.tables);
  conn.addEventListener("lobby", onLobby);
  conn.watchLobby();
  api("GET", "/api/tables").then(
    (data) => {
      if (version < 0 || data.version > version) show(data.version, data.tables);
    },
    (err) => {
      if (tables === null) fill(list, h("p", { class: "error", role: "alert" }, readableError(err)));
    },
  );

  // The tournaments about to start or being played, beside the tables (the issue's
  // "see the tournaments in the lobby"); the whole list and the form are on /tournaments.
  // Its words come from the tournaments page's module, fetched with the list rather
  // than before the lobby can run (each module is a round trip on a phone).
  function tournamentItem(s, tx) {
    return h("li", { class: "lobby-tournament", dataset: { tournament: s.id } },
      link(`/tournament/${encodeURIComponent(s.id)}`, s.name || s.id, { class: "lobby-tournament-name" }),
      " ", tx.statusBadge(s.status),
      h("p", { class: "lobby-table-meta" },
        [tx.formatText(s), tx.gameText(s), tx.startText(s), tx.entrantsText(s)].filter(Boolean).join(" · ")));
  }

  async function loadTournaments() {
    try {
      const [data, tx] = await Promise.all([api("GET", "/api/tournaments"), import("./tournaments.js")]);
      const live = (data.tournaments || [])
        .filter((s) => s.status === "registering" || s.status === "running")
        .slice(0, TOURNAMENTS_SHOWN);
      fill(tournamentsList, live.length
        ? h("ul", { class: "lobby-tournaments-items" }, live.map((s) => tournamentItem(s, tx)))
        : h("p", { class: "empty" }, t("lobby.no_tournaments")));
    } catch (err) {
      fill(tournamentsList, h("p", { class: "error" }, readableError(err)));
    }
  }
  loadTournaments();
  const tournamentsTimer = setInterval(loadTournaments, TOURNAMENTS_REFRESH_MS);

  // The create-table form (and its modules and the choices it asks for) comes after the
  // list: on a phone the tables are what is wanted first.
  let form = null;
  let gone = false;
  import("./create-table.js").then(
    (m) => {
      if (!gone) form = m.mountCreateTable(formRoot, ctx);
    },
    (err) => {
      console.error(err);
      if (!gone) fill(formRoot, h("p", { class: "error", role: "alert" }, t("app.load_failed")));
    },
  );
  // The lobby's chat (js/chat.js), like the form, after the list.
  let chat = null;
  import("../chat.js").then(
    ({ chatPanel }) => {
      if (gone) return;
      chat = chatPanel({ conn, chat: null });
      root.querySelector(".page.lobby").append(chat.el);
    },
    (err) => console.error(err),
  );

  return {
    unmount() {
      conn.removeEventListener("lobby", onLobby);
      conn.unwatchLobby();
      clearInterval(tournamentsTimer);
      gone = true;
      if (form) form.unmount();
      if (chat) chat.destroy();
    },
  };
}
