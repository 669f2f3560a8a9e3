// The lobby: the live list of public tables (WebSocket "lobby" frames) and the
// create-table form (pages/create-table.js). The HTML carries only the words and styles
// of the list (gateway/preload.py): what comes after it (the form, the tournaments, the
// chat) waits for the whole catalog and stylesheets (`complete`).
import { t, whenComplete } from "../i18n.js";
import { botBadge, fill, h, link, playerLink, whenStyled } from "./dom.js";
import { cashBadges } from "./chips.js";

const TOURNAMENTS_SHOWN = 5; // the lobby shows the next few; "Tornei" has them all
const TOURNAMENTS_REFRESH_MS = 10000;

// `load()`'s module once the whole catalog and stylesheets are here too.
function complete(load) {
  return Promise.all([load(), whenComplete(), whenStyled()]).then(([m]) => m);
}

// HTTP calls and the words for an error come when first needed: the list comes over
// the socket (boot.js asks for it as the socket opens), and on a phone each module on
// the way to it is a request more.
async function api(...args) {
  return (await import("../api.js")).api(...args);
}

async function readableError(err) {
  return (await complete(() => import("./errors.js"))).readableError(err);
}

// A Cirulo table in the list: the game, players, hands and the point value (when the
// server's summary carries it): "Cirulo · 5 giocatori · 5 mani · 2 fiches a punto"
// (the clocks are added as for any table).
function isCirulo(tbl) {
  return tbl.game === "cirulo";
}

function ciruloMeta(tbl) {
  const parts = [t("cirulo.name"), t("lobby.players", { n: tbl.players }), t("cirulo.lobby.hands", { n: tbl.hands ?? tbl.players })];
  const pv = tbl.point_value ?? (tbl.options && tbl.options.point_value) ?? null;
  if (pv !== null) parts.push(t("cirulo.lobby.point_value", { n: pv }));
  return parts;
}

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

  // Cirulo (ciruloMeta above): the game, players, hands and the point value.
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
      readableError(err).then((text) => ctx.notify(text, "error"));
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
  // the list boot.js asked for as the socket opened may be here already (socket.js keeps it)
  if (conn.lobby) show(conn.lobby.version, conn.lobby.tables);
  conn.watchLobby();
  api("GET", "/api/tables").then(
    (data) => {
      if (version < 0 || data.version > version) show(data.version, data.tables);
    },
    (err) => {
      if (tables === null) readableError(err).then((text) => fill(list, h("p", { class: "error", role: "alert" }, text)));
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
      const [data, tx] = await Promise.all([api("GET", "/api/tournaments"), complete(() => import("./tournaments.js"))]);
      const live = (data.tournaments || [])
        .filter((s) => s.status === "registering" || s.status === "running")
        .slice(0, TOURNAMENTS_SHOWN);
      fill(tournamentsList, live.length
        ? h("ul", { class: "lobby-tournaments-items" }, live.map((s) => tournamentItem(s, tx)))
        : h("p", { class: "empty" }, t("lobby.no_tournaments")));
    } catch (err) {
      fill(tournamentsList, h("p", { class: "error" }, await readableError(err)));
    }
  }
  loadTournaments();
  const tournamentsTimer = setInterval(loadTournaments, TOURNAMENTS_REFRESH_MS);

  // The create-table form (and its modules and the choices it asks for) comes after the
  // list: on a phone the tables are what is wanted first.
  let form = null;
  let gone = false;
  complete(() => import("./create-table.js")).then(
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
  complete(() => import("../chat.js")).then(
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
