// One tournament (GET /api/tournaments/:id?invite=): its summary, entrants, registration
// (with a partner when it is played in pairs), the organiser's tools (bots, start,
// cancel), the bracket of a knockout or the standings of a VP tournament (with the
// format's tie-break and the partite won), each match with every partita: its points and
// spareggi once over, with its replay, or its table while it is played; the winner and
// the prize. Refreshed in place every 3 s while shown, and at once on a "tournament"
// socket frame for it (docs/tournaments.md, "Following a tournament in the browser").
import { botBadge } from "../bot-badge.js";
import { api } from "../api.js";
import { plural, t } from "../i18n.js";
import { h, fill, link, uid } from "./dom.js";
import { readableError } from "./errors.js";
import { clocksText, entrantsText, formatText, gameText, lengthText, prizeText, startText, statusBadge } from "./tournaments.js";

const REFRESH_MS = 3000;
const LEVELS = ["facile", "normale", "difficile", "campione"];
// Endings worth a word beside a partita's points (not on points, nor by a spareggio).
const END_NOTES = ["last_capture", "cappotto", "timeout", "abandon", "luzzati_table", "luzzati_three_misdeals"];

export function mountTournament(root, ctx) {
  const { conn, user } = ctx;
  const id = ctx.params[0];
  const invite = ctx.query.get("invite");
  let alive = true;
  let timer = null;
  let data = null;
  let busy = false;
  let loading = null;
  let gone = false; // unknown or private without the invite: nothing to refresh
  // what the player typed survives the refreshes (the page is drawn again each time)
  const typed = { partner: "", level: "normale", count: 1 };

  const body = h("div", { class: "tournament-body", "aria-busy": "true" }, h("p", { class: "muted" }, t("lobby.loading")));
  const actionError = h("p", { class: "error", role: "alert", hidden: true });
  root.appendChild(h("section", { class: "page tournament", dataset: { tournament: id } }, body));

  const query = invite ? `?invite=${encodeURIComponent(invite)}` : "";

  function load() {
    if (loading) return loading;
    loading = api("GET", `/api/tournaments/${encodeURIComponent(id)}${query}`).then(
      (fresh) => {
        loading = null;
        if (!alive) return;
        data = fresh;
        render();
      },
      (err) => {
        loading = null;
        if (!alive) return;
        if (!data || err.status === 404 || err.status === 403) {
          data = null;
          gone = err.status === 404 || err.status === 403;
          fill(body, h("p", { class: "error", role: "alert" }, readableError(err)),
            link("/tournaments", t("tournament.back"), { class: "button" }));
        }
      },
    );
    return loading;
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      if (!alive) return;
      if (document.visibilityState !== "hidden" && !busy) await load();
      if (alive && !gone) schedule();
    }, REFRESH_MS);
  }

  // ---- names ------------------------------------------------------------------------------

  function entrantsById() {
    return new Map((data.tournament.entrants || []).map((e) => [e.id, e]));
  }

  function sideNames(side, byId) {
    return (side || []).map((eid) => (byId.get(eid) ? byId.get(eid).name : eid)).join(" & ");
  }

  function isMine(side) {
    const me = data.me && data.me.entrant;
    return Boolean(me && (side || []).includes(me));
  }

  // ---- drawing ----------------------------------------------------------------------------

  function render() {
    const s = data.tournament;
    body.setAttribute("aria-busy", "false");
    const byId = entrantsById();
    const knockout = s.format === "knockout";
    fill(body,
      header(s),
      winnerLine(s, byId),
      myTable(),
      actions(s),
      actionError,
      knockout ? bracket(s, byId) : standings(byId),
      knockout ? null : roundsList(byId),
      entrants(s));
  }

  function header(s) {
    const organiser = s.organiser ? s.organiser.name : t("tournament.operator");
    return h("header", { class: "tournament-head" },
      h("div", { class: "lobby-table-head" },
        h("h1", { class: "tournament-title" }, s.name || s.id),
        statusBadge(s.status)),
      h("p", { class: "tournament-meta" }, formatText(s), s.private ? h("span", { class: "badge" }, t("tournament.private")) : null),
      h("p", { class: "tournament-meta" }, [gameText(s), lengthText(s), clocksText(s)].filter(Boolean).join(" · ")),
      h("p", { class: "tournament-meta" },
        [entrantsText(s), startText(s), t("tournament.organiser", { name: organiser })].filter(Boolean).join(" · ")),
      h("p", { class: "tournament-prize" }, prizeText(s)),
      s.prize && s.prize.paid && s.prize.paid.length
        ? h("p", { class: "tournament-meta tournament-paid" },
          s.prize.paid.map((a) => plural("tournament.prize_paid", a.chips, { name: a.name })).join(" · "))
        : null);
  }

  function winnerLine(s, byId) {
    if (s.status === "cancelled") return h("p", { class: "tournament-winner cancelled" }, t("tournament.cancelled"));
    if (!data.winner || !data.winner.length) return null;
    return h("p", { class: ["tournament-winner", isMine(data.winner) ? "mine" : null], role: "status" },
      t("tournament.winner", { name: sideNames(data.winner, byId) }));
  }

  function myTable() {
    const table = data.me && data.me.table;
    if (!table) return null;
    return h("p", { class: "tournament-my-table" },
      link(`/table/${encodeURIComponent(table)}`, t("tournament.go_table"), { class: "button primary", dataset: { table } }));
  }

  function actions(s) {
    const out = [];
    const registered = Boolean(data.me && data.me.entrant);
    const organiser = s.organiser && s.organiser.id === user.id;
    if (s.status === "registering") {
      if (registered) {
        out.push(h("div", { class: "tournament-register" },
          h("span", { class: "badge you" }, t("tournament.registered")),
          h("button", { type: "button", name: "unregister", onclick: (e) => act(e, "unregister", {}) }, t("tournament.unregister"))));
      } else {
        const partnerId = uid("t");
        out.push(h("form", {
          class: "tournament-register",
          onsubmit: (e) => {
            e.preventDefault();
            act(e, "register", { invite: invite || null, partner: typed.partner.trim() || null });
          },
        },
        s.players === 4 ? [
          h("label", { for: partnerId }, t("tournament.partner")),
          h("input", {
            id: partnerId, name: "partner", maxlength: 40, value: typed.partner, placeholder: t("tournament.partner_placeholder"),
            oninput: (e) => { typed.partner = e.target.value; },
          }),
        ] : null,
        h("button", { type: "submit", class: "primary", name: "register" }, t("tournament.register")),
        s.players === 4 ? h("small", { class: "hint" }, t("tournament.partner_hint")) : null));
      }
      if (organiser) out.push(organiserTools(s));
    }
    if (!out.length) return null;
    return h("div", { class: "tournament-actions panel" }, out);
  }

  function organiserTools(s) {
    const levelId = uid("t");
    const countId = uid("t");
    const sides = s.players === 4 ? Math.floor((s.entrants || []).length / 2) : (s.entrants || []).length;
    return h("div", { class: "tournament-organiser" },
      h("h2", {}, t("tournament.organiser_tools")),
      h("form", {
        class: "tournament-bots",
        onsubmit: (e) => {
          e.preventDefault();
          act(e, "bots", { level: typed.level, count: Number(typed.count) });
        },
      },
      h("label", { for: levelId }, t("tournament.bot_level")),
      h("select", { id: levelId, name: "bot-level", onchange: (e) => { typed.level = e.target.value; } },
        LEVELS.map((l) => h("option", { value: l, selected: l === typed.level }, t(`level.${l}`)))),
      h("label", { for: countId }, t("tournament.bot_count")),
      h("input", {
        id: countId, type: "number", name: "bot-count", min: 1, max: 255, step: 1, value: typed.count,
        oninput: (e) => { typed.count = e.target.value; },
      }),
      h("button", { type: "submit", name: "add-bots" }, t("tournament.add_bots"))),
      h("div", { class: "tournament-organiser-buttons" },
        h("button", {
          type: "button", class: "primary", name: "start", disabled: sides < 2,
          onclick: (e) => act(e, "start", {}),
        }, t("tournament.start")),
        h("button", {
          type: "button", class: "danger", name: "cancel",
          onclick: (e) => {
            if (window.confirm(t("tournament.cancel_confirm"))) act(e, "cancel", {});
          },
        }, t("tournament.cancel"))),
      sides < 2 ? h("small", { class: "hint" }, t("tournament.need_two")) : null);
  }

  async function act(e, what, payload) {
    if (busy) return;
    busy = true;
    const button = e.currentTarget.querySelector ? e.currentTarget.querySelector("button[type=submit]") || e.currentTarget : e.currentTarget;
    if (button) button.disabled = true;
    actionError.hidden = true;
    try {
      await api("POST", `/api/tournaments/${encodeURIComponent(id)}/${what}`, payload);
      if (what === "register") typed.partner = "";
      await load();
    } catch (err) {
      actionError.textContent = readableError(err);
      actionError.hidden = false;
      if (button) button.disabled = false;
    } finally {
      busy = false;
    }
  }

  // ---- matches ------------------------------------------------------------------------------

  function scoreText(m) {
    if (m.bye) return t("tournament.bye");
    if (m.vp && m.mp) return t("tournament.score", { a: m.vp[0], b: m.vp[1], ma: m.mp[0], mb: m.mp[1] });
    if (m.vp) return t("tournament.score_vp", { a: m.vp[0], b: m.vp[1] });
    if (m.mp) return t("tournament.score_mp", { ma: m.mp[0], mb: m.mp[1] });
    return "";
  }

  // A partita's link: its table while it is played, its replay once it is over.
  function partitaLink(p) {
    const table = encodeURIComponent(p.table);
    if (p.status === "playing") {
      return link(`/table/${table}`, t("tournament.watch_table"), { class: "button small", dataset: { action: "table" } });
    }
    return link(`/replay/${table}`, t("tournament.replay"), { class: "button small", dataset: { action: "replay" } });
  }

  // "8–5": side 0's points first, as the sides are listed; `winner`'s in bold.
  function points(pair, winner) {
    return h("span", { class: "partita-points" },
      h("span", { class: ["pts", winner === 0 ? "won" : null] }, String(pair[0])), "–",
      h("span", { class: ["pts", winner === 1 ? "won" : null] }, String(pair[1])));
  }

  // Each partita of the match (a best of three has up to three) with its points, its
  // spareggi (E3) marked as such, how it ended when not on points, and its link.
  function partite(m) {
    const scores = m.scores || [];
    if (!scores.length) return null;
    return h("ol", { class: "match-partite" }, scores.map((p, i) => {
      const spareggi = p.spareggi || [];
      const bySpareggio = ["spareggio", "last_capture"].includes(p.end);
      return h("li", {
        class: ["match-partita", `status-${p.status}`],
        dataset: { table: p.table, status: p.status, winner: p.winner ?? "", spareggi: String(spareggi.length) },
      },
      h("span", { class: "partita-name" }, t("tournament.partita_n", { n: i + 1 })),
      p.points
        ? points(p.points, bySpareggio ? null : p.winner)
        : h("span", { class: "partita-state" }, t(`tournament.match.${p.status}`)),
      spareggi.map((sp, k) => h("span", { class: "partita-spareggio", dataset: { spareggio: String(k + 1) } },
        t("tournament.spareggio_n", { n: k + 1 }), " ",
        points(sp, bySpareggio && k === spareggi.length - 1 ? p.winner : null))),
      END_NOTES.includes(p.end) ? h("span", { class: "partita-end" }, t(`history.reason.${p.end}`)) : null,
      partitaLink(p));
    }));
  }

  function match(m, byId, round, index) {
    const sides = m.sides || [];
    const row = (side, k) => h("li", {
      class: ["match-side", m.winner === k ? "winner" : null, m.winner !== null && m.winner !== undefined && m.winner !== k ? "loser" : null,
        isMine(side) ? "mine" : null, m.bye && !(side || []).length ? "empty-side" : null],
    },
    h("span", { class: "match-side-name" }, sideNames(side, byId) || (m.bye ? t("tournament.bye_side") : t("tournament.tbd"))),
    m.vp && !m.bye ? h("span", { class: "match-side-vp" }, String(m.vp[k])) : null);
    return h("li", {
      class: ["match", `status-${m.status}`, m.bye ? "bye" : null],
      dataset: { round: String(round), match: String(index), status: m.status, winner: m.winner ?? "", table: m.table || "" },
    },
    h("ul", { class: "match-sides" }, sides.map(row), m.bye && sides.length < 2 ? h("li", { class: "match-side empty-side" }, t("tournament.bye_side")) : null),
    partite(m),
    h("div", { class: "match-foot" },
      h("span", { class: "match-score" }, scoreText(m) || t(`tournament.match.${m.status}`))));
  }

  // Knockout: one column per round; the rounds still to come as empty matches.
  function bracket(s, byId) {
    const rounds = data.rounds || [];
    const planned = Math.max(s.rounds || 0, rounds.length);
    const columns = rounds.map((r) => column(r.round, r.matches.map((m, i) => match(m, byId, r.round, i))));
    // before the start: a draw of 2^planned places, so 2^(planned - 1) first matches
    let size = rounds.length ? rounds[rounds.length - 1].matches.length : 2 ** planned;
    for (let r = rounds.length + 1; r <= planned; r += 1) {
      size = Math.max(1, Math.ceil(size / 2));
      const empty = [];
      for (let i = 0; i < size; i += 1) {
        empty.push(h("li", { class: "match status-waiting future" },
          h("ul", { class: "match-sides" },
            h("li", { class: "match-side" }, h("span", { class: "match-side-name" }, t("tournament.tbd"))),
            h("li", { class: "match-side" }, h("span", { class: "match-side-name" }, t("tournament.tbd"))))));
      }
      columns.push(column(r, empty));
    }
    if (!columns.length) return h("p", { class: "muted tournament-not-started" }, t("tournament.not_started"));
    return h("section", { class: "tournament-bracket-wrap" },
      h("h2", {}, t("tournament.bracket")),
      h("div", { class: "tournament-bracket", role: "list" }, columns));
  }

  function column(round, items) {
    const s = data.tournament;
    const planned = Math.max(s.rounds || 0, (data.rounds || []).length);
    const title = round === planned && planned > 1 ? t("tournament.final") : t("tournament.round", { n: round });
    return h("div", { class: ["bracket-round", round === s.round && s.status === "running" ? "current" : null], role: "listitem", dataset: { round: String(round) } },
      h("h3", {}, title),
      h("ol", { class: "bracket-matches" }, items));
  }

  // VP formats: the standings, in the order they rank (VP, MP, the format's tie-break,
  // partite won), then every round's matches.
  function standings(byId) {
    const rows = data.standings || [];
    if (!rows.length) return h("p", { class: "muted tournament-not-started" }, t("tournament.not_started"));
    const tiebreak = data.tournament.format === "swiss" ? "buchholz" : "head_to_head";
    const columns = ["vp", "mp", tiebreak, "partite_won", "played", "won", "byes"];
    // the figures' headers are short: their title says what they count
    const th = (key) => h("th", { scope: "col", title: columns.includes(key) ? t(`tournament.col.${key}.title`) : null, dataset: { col: key } },
      t(`tournament.col.${key}`));
    return h("section", { class: "tournament-standings-wrap" },
      h("h2", {}, t("tournament.standings")),
      h("div", { class: "table-scroll" },
        h("table", { class: "tournament-standings" },
          h("thead", {}, h("tr", {}, th("rank"), th("side"), columns.map(th))),
          h("tbody", {}, rows.map((r) => h("tr", { class: isMine(r.side) ? "mine" : null },
            h("td", { dataset: { col: "rank" } }, String(r.rank)),
            h("td", { class: "standing-side", dataset: { col: "side" } }, sideNames(r.side, byId)),
            columns.map((key) => h("td", { dataset: { col: key } }, String(r[key] ?? "—")))))))),
      h("small", { class: "hint" }, t(`tournament.tiebreak.${data.tournament.format}`)));
  }

  function roundsList(byId) {
    const rounds = data.rounds || [];
    if (!rounds.length) return null;
    return h("section", { class: "tournament-rounds" },
      h("h2", {}, t("tournament.rounds")),
      [...rounds].reverse().map((r) => h("div", { class: "tournament-round", dataset: { round: String(r.round) } },
        h("h3", {}, t("tournament.round", { n: r.round })),
        h("ol", { class: "round-matches" }, r.matches.map((m, i) => match(m, byId, r.round, i))))));
  }

  function entrants(s) {
    const list = s.entrants || [];
    return h("section", { class: "tournament-entrants-wrap" },
      h("h2", {}, t("tournament.entrants"), " ", h("span", { class: "muted" }, `(${list.length})`)),
      list.length
        ? h("ul", { class: "lobby-seats tournament-entrants" }, list.map((e) => h("li", {
          class: ["lobby-seat", e.bot ? "bot" : "person", data.me && data.me.entrant === e.id ? "mine" : null],
          dataset: { entrant: e.id },
        },
        h("span", { class: "lobby-seat-name" }, e.name),
        e.bot && !(e.name || "").includes(e.bot) ? h("span", { class: "badge" }, t("lobby.bot", { level: t(`level.${e.bot}`) })) : null,
        e.bot_account ? botBadge() : null,
        data.me && data.me.entrant === e.id ? h("span", { class: "badge you" }, t("lobby.you")) : null)))
        : h("p", { class: "muted" }, t("tournament.no_entrants")));
  }

  // ---- live --------------------------------------------------------------------------------

  const onFrame = (e) => {
    if (e.detail.tournament === id) load();
  };
  if (conn) conn.addEventListener("tournament", onFrame);
  load().then(() => alive && schedule());

  return {
    unmount() {
      alive = false;
      clearTimeout(timer);
      if (conn) conn.removeEventListener("tournament", onFrame);
    },
  };
}
