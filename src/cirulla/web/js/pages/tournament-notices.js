// A tournament's frames on the socket, anywhere in the app (docs/protocol.md, the
// "tournament" frame): when a round starts, a notice and the player's table opens by
// itself — unless the player is in the middle of another partita, when the notice
// carries a button instead; a bye is a notice only; the end names the winner.
import { api } from "../api.js";
import { t } from "../i18n.js";
import { h } from "./dom.js";

const NOTICE_MS = 6000; // the table has opened: a short word is enough
const BUTTON_MS = 15000; // the player must act on it

// The tournament's summary, for its name and its entrants' names (null if unreachable).
async function summary(id) {
  try {
    return await api("GET", `/api/tournaments/${encodeURIComponent(id)}`);
  } catch {
    return null;
  }
}

// Notices at the top of the screen, below the bar: never over the player's hand.
let region = null;

function notice(text, kind, dataset, button) {
  if (!region || !region.isConnected) {
    region = h("div", { class: "tournament-notices", role: "status", "aria-live": "polite" });
    document.body.appendChild(region);
  }
  const item = h("div", { class: ["toast", `toast-${kind}`, "tournament-notice"], dataset },
    h("span", {}, text), button);
  region.appendChild(item);
  const remove = () => item.remove();
  item.addEventListener("click", remove);
  setTimeout(remove, button ? BUTTON_MS : NOTICE_MS);
  return item;
}

// where(): {page, tableId} of what is shown now; busyAt(tableId): the player is seated
// there in a partita still being played.
export function watchTournaments(conn, { navigate, where, busyAt }) {
  const seen = new Set(); // a round's frame may come again after a reconnect

  async function onFrame(e) {
    const frame = e.detail;
    const event = frame.event || {};
    const id = frame.tournament;
    const key = `${id}:${event.type}:${event.round ?? ""}:${event.table ?? ""}`;
    if (!id || seen.has(key)) return;
    seen.add(key);
    const data = await summary(id);
    const name = (data && data.tournament && data.tournament.name) || id;
    const tournamentPath = `/tournament/${encodeURIComponent(id)}`;
    const goButton = (label, path) => h("button", {
      type: "button", class: "small", name: "tournament-go",
      onclick: () => navigate(path),
    }, label);
    if (event.type === "round") {
      const dataset = { tournament: id, round: String(event.round ?? ""), table: event.table || "" };
      if (event.bye || !event.table) {
        notice(t("tournament.notice.bye", { n: event.round, name }), "info", dataset,
          goButton(t("tournament.notice.see"), tournamentPath));
        return;
      }
      const path = `/table/${encodeURIComponent(event.table)}`;
      const here = where();
      if (here.page === "table" && here.tableId === event.table) return;
      const text = t("tournament.notice.round", { n: event.round, name });
      if (here.page === "table" && here.tableId && busyAt(here.tableId)) {
        notice(text, "info", dataset, goButton(t("tournament.notice.open"), path));
        return;
      }
      notice(text, "ok", dataset);
      navigate(path);
      return;
    }
    if (event.type === "ended") {
      const byId = new Map(((data && data.tournament && data.tournament.entrants) || []).map((en) => [en.id, en.name]));
      const winner = (event.winner || []).map((eid) => byId.get(eid) || eid).join(" & ");
      notice(winner ? t("tournament.notice.ended", { name, winner }) : t("tournament.notice.over", { name }), "ok",
        { tournament: id, event: "ended" }, goButton(t("tournament.notice.see"), tournamentPath));
    }
  }

  conn.addEventListener("tournament", onFrame);
  return () => conn.removeEventListener("tournament", onFrame);
}
