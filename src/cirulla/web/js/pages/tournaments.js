// The tournaments (GET /api/tournaments): registering, running and finished, refreshed
// while the page is shown, and the form that makes one (POST /api/tournaments; registered
// players only, a guest is told to keep the account first). The helpers that describe a
// tournament (format, game, length, clocks, entrants) are shared with tournament.js.
import { api } from "../api.js";
import { language, plural, t } from "../i18n.js";
import { h, fill, link, uid } from "./dom.js";
import { readableError } from "./errors.js";

const FORMATS = ["knockout", "swiss", "round-robin"];
const GROUPS = ["registering", "running", "finished"];
const MOVE_CLOCKS = [null, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300];
const PARTITA_CLOCKS = [null, 300, 600, 900, 1200, 1800, 2700, 3600];
const REFRESH_MS = 5000;

// ---- describing a tournament (also used by tournament.js) ---------------------------------

export function whenText(ms) {
  if (ms === null || ms === undefined) return "";
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "";
  return d.toLocaleString(language() === "it" ? "it-IT" : "en-GB", { dateStyle: "medium", timeStyle: "short" });
}

// The entry fee and the prize pool (docs/chips.md); "—" for a free torneo.
export function prizeText(s) {
  const p = s.prize;
  if (!p) return t("tournament.prize", { prize: "—" });
  const split = (p.prizes || []).map((n) => `${n}%`).join(" / ");
  return [
    t("tournament.prize", { prize: plural("tournament.prize_pool", p.pool, { split }) }),
    plural("tournament.entry_fee", p.entry_fee),
  ].join(" · ");
}

export function formatText(s) {
  const name = t(`tournament.format.${s.format}`);
  if (s.format === "knockout" && s.best_of > 1) return `${name} · ${t("tournament.best_of", { n: s.best_of })}`;
  if (s.format === "swiss" && s.rounds) return `${name} · ${t("tournament.rounds_n", { n: s.rounds })}`;
  return name;
}

export function gameText(s) {
  const preset = s.preset ? t(`preset.${s.preset}`) : t(`game.${s.game || "cirulla"}`);
  const who = s.players === 4 ? t("tournament.pairs") : t("tournament.singles");
  return `${preset} · ${who}`;
}

export function lengthText(s) {
  if (s.hands) return plural("lobby.hands", s.hands);
  if (s.target) return plural("lobby.target", s.target);
  return "";
}

export function clocksText(s) {
  const parts = [];
  if (s.move_seconds) parts.push(t("lobby.move_clock", { s: Math.round(s.move_seconds) }));
  if (s.partita_seconds) parts.push(t("lobby.partita_clock", { m: Math.round(s.partita_seconds / 60) }));
  return parts.length ? parts.join(" · ") : t("lobby.no_clock");
}

export function entrantsText(s) {
  return t("tournament.entrants_count", { n: (s.entrants || []).length, max: s.max_entrants ?? "∞" });
}

export function startText(s) {
  if (s.status === "registering") {
    return s.starts_at ? t("tournament.starts_at", { when: whenText(s.starts_at) }) : t("tournament.starts_by_organiser");
  }
  if (s.status === "running") return t("tournament.round_now", { n: s.round || 1 });
  return s.starts_at ? t("tournament.started_at", { when: whenText(s.starts_at) }) : "";
}

export function statusBadge(status) {
  return h("span", { class: ["status-badge", "tournament-status", status], dataset: { status } },
    t(`tournament.status.${status}`));
}

// ---- the page ---------------------------------------------------------------------------

export function mountTournaments(root, ctx) {
  const { user } = ctx;
  let alive = true;
  let timer = null;
  const list = h("div", { class: "tournament-groups", "aria-live": "polite", "aria-busy": "true" },
    h("p", { class: "muted" }, t("lobby.loading")));
  const formRoot = h("div", { class: "create-root" });
  root.appendChild(
    h("section", { class: "page tournaments" },
      h("div", { class: "tournaments-list" }, h("h1", {}, t("tournaments.title")), list),
      h("div", { class: "tournaments-create" }, h("h2", {}, t("tournaments.create")), formRoot)));

  function item(s) {
    const mine = (s.entrants || []).some((e) => e.user && e.user === user.id);
    return h("li", { class: ["tournament-item", `status-${s.status}`], dataset: { tournament: s.id } },
      h("div", { class: "lobby-table-head" },
        h("h3", { class: "tournament-name" },
          link(`/tournament/${encodeURIComponent(s.id)}`, s.name || s.id)),
        statusBadge(s.status)),
      h("p", { class: "tournament-meta" }, formatText(s), s.private ? h("span", { class: "badge" }, t("tournament.private")) : null),
      h("p", { class: "tournament-meta" }, [gameText(s), lengthText(s), clocksText(s)].filter(Boolean).join(" · ")),
      s.prize ? h("p", { class: "tournament-meta tournament-fee" }, prizeText(s)) : null,
      h("p", { class: "tournament-meta" },
        h("span", { class: "tournament-entrants" }, entrantsText(s)),
        mine ? h("span", { class: "badge you" }, t("tournament.registered")) : null,
        startText(s) ? ` · ${startText(s)}` : ""));
  }

  function show(tournaments) {
    list.setAttribute("aria-busy", "false");
    const groups = GROUPS.map((status) => {
      const items = tournaments.filter((s) => status === "finished"
        ? s.status === "finished" || s.status === "cancelled"
        : s.status === status);
      if (!items.length) return null;
      return h("section", { class: "tournament-group", dataset: { group: status } },
        h("h2", {}, t(`tournaments.group.${status}`)),
        h("ul", { class: "tournament-list" }, items.map(item)));
    }).filter(Boolean);
    if (!groups.length) fill(list, h("p", { class: "empty" }, t("tournaments.empty")));
    else fill(list, groups);
  }

  async function load() {
    try {
      const data = await api("GET", "/api/tournaments");
      if (alive) show(data.tournaments || []);
    } catch (err) {
      if (alive && list.getAttribute("aria-busy") === "true") {
        fill(list, h("p", { class: "error", role: "alert" }, readableError(err)));
      }
    }
    if (alive) timer = setTimeout(tick, REFRESH_MS);
  }

  function tick() {
    if (!alive) return;
    if (document.visibilityState === "hidden") timer = setTimeout(tick, REFRESH_MS);
    else load();
  }

  load();
  const form = user.guest ? guestNote(formRoot) : mountTournamentForm(formRoot, ctx);

  return {
    unmount() {
      alive = false;
      clearTimeout(timer);
      if (form) form.unmount();
    },
  };
}

function guestNote(root) {
  fill(root, h("p", { class: "muted tournament-guest-note" }, t("tournaments.guest_note"), " ",
    link("/profile", t("tournaments.keep_account"))));
  return null;
}

// ---- the form ---------------------------------------------------------------------------

let choicesPromise = null;
function loadChoices() {
  if (!choicesPromise) {
    choicesPromise = api("GET", "/api/choices").catch((err) => {
      choicesPromise = null;
      throw err;
    });
  }
  return choicesPromise;
}

// The form's values, kept between mounts (a language switch re-mounts the page).
let draft = null;

function newDraft(choices) {
  const d = {
    name: "",
    format: "knockout",
    preset: "cirulla",
    players: 2,
    lengthKind: "target",
    target: 51,
    hands: 4,
    move: 30,
    partita: null,
    rounds: 5,
    best_of: 1,
    startKind: "manual",
    starts_at: "",
    max_entrants: 64,
    entry_fee: 0,
    private: false,
  };
  applyPreset(d, choices, d.preset);
  return d;
}

// Player counts a tournament may have: 1 against 1 or fixed pairs, as the preset allows.
function allowedPlayers(choices, preset) {
  return (choices.players[preset] || [2, 4]).filter((n) => n === 2 || n === 4);
}

function applyPreset(d, choices, name) {
  const rules = choices.presets[name];
  d.preset = name;
  if (rules.hands) {
    d.lengthKind = "hands";
    d.hands = rules.hands;
  } else {
    d.lengthKind = "target";
    d.target = rules.target;
  }
  const allowed = allowedPlayers(choices, name);
  if (!allowed.includes(d.players)) d.players = allowed[0];
}

// A datetime-local value (the browser's own time zone) as ms since the epoch.
function localMs(value) {
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? null : ms;
}

// The body of POST /api/tournaments; the length only when it differs from the preset.
export function buildTournament(d, choices) {
  const preset = choices.presets[d.preset];
  const options = {};
  if (d.lengthKind === "hands") options.hands = Number(d.hands);
  else if (Number(d.target) !== preset.target || preset.hands) options.target = Number(d.target);
  return {
    name: d.name.trim(),
    format: d.format,
    config: {
      preset: d.preset,
      players: d.players,
      options,
      move_seconds: d.move,
      partita_seconds: d.partita,
    },
    rounds: d.format === "swiss" ? Number(d.rounds) : null,
    best_of: d.format === "knockout" ? Number(d.best_of) : 1,
    starts_at: d.startKind === "at" ? localMs(d.starts_at) : null,
    max_entrants: Number(d.max_entrants),
    entry_fee: Number(d.entry_fee) || 0,
    private: d.private,
  };
}

function problem(d) {
  if (!d.name.trim()) return t("tournaments.need_name");
  const length = Number(d.lengthKind === "hands" ? d.hands : d.target);
  if (!Number.isInteger(length) || length < 1) return t("create.bad_length");
  const max = Number(d.max_entrants);
  if (!Number.isInteger(max) || max < 2 || max > 256) return t("tournaments.bad_max");
  const fee = Number(d.entry_fee || 0);
  if (!Number.isInteger(fee) || fee < 0) return t("tournaments.bad_fee");
  if (d.format === "swiss" && (!Number.isInteger(Number(d.rounds)) || Number(d.rounds) < 1)) return t("tournaments.bad_rounds");
  if (d.startKind === "at") {
    const ms = localMs(d.starts_at);
    if (ms === null || ms <= Date.now()) return t("tournaments.bad_start");
  }
  return null;
}

export function mountTournamentForm(root, ctx) {
  let choices = null;
  let alive = true;
  const error = h("p", { class: "error", role: "alert", hidden: true });
  fill(root, h("p", { class: "muted" }, t("lobby.loading")));

  loadChoices().then(
    (c) => {
      if (!alive) return;
      choices = c;
      if (!draft || !choices.presets[draft.preset]) draft = newDraft(choices);
      render();
    },
    (err) => {
      if (alive) fill(root, h("p", { class: "error", role: "alert" }, readableError(err)));
    },
  );

  function labelled(label, make) {
    const id = uid("t");
    return [h("label", { for: id }, label), make(id)];
  }

  function radios(legend, name, values, current, text, onpick) {
    return h("fieldset", { class: "field inline" },
      h("legend", {}, legend),
      values.map((v) => h("label", { class: "choice" },
        h("input", {
          type: "radio", name, value: String(v), checked: v === current,
          onchange: () => { onpick(v); render(); },
        }),
        text(v))));
  }

  function render() {
    const d = draft;
    const form = h("form", { class: "form tournament-form", novalidate: true },
      h("div", { class: "field" },
        ...labelled(t("tournaments.name"), (id) => h("input", {
          id, name: "name", maxlength: 40, required: true, value: d.name, placeholder: t("tournaments.name_placeholder"),
          oninput: (e) => { d.name = e.target.value; },
        }))),
      radios(t("tournaments.format"), "format", FORMATS, d.format, (f) => t(`tournament.format.${f}`), (f) => { d.format = f; }),
      h("small", { class: "hint" }, t(`tournament.format.${d.format}.help`)),
      h("div", { class: "field" },
        ...labelled(t("create.preset"), (id) => h("select", {
          id, name: "preset",
          onchange: (e) => { applyPreset(d, choices, e.target.value); render(); },
        }, Object.keys(choices.presets).filter((p) => allowedPlayers(choices, p).length).map((p) =>
          h("option", { value: p, selected: p === d.preset }, t(`preset.${p}`)))))),
      radios(t("create.players"), "players", allowedPlayers(choices, d.preset), d.players,
        (n) => (n === 4 ? t("tournaments.players_pairs") : t("tournaments.players_singles")), (n) => { d.players = n; }),
      lengthField(),
      clocksField(),
      d.format === "swiss" ? h("div", { class: "field" },
        ...labelled(t("tournaments.rounds"), (id) => h("input", {
          id, type: "number", name: "rounds", min: 1, max: 20, step: 1, value: d.rounds,
          oninput: (e) => { d.rounds = e.target.value; },
        }))) : null,
      d.format === "knockout"
        ? radios(t("tournaments.best_of"), "best_of", [1, 3], Number(d.best_of),
          (n) => (n === 1 ? t("tournaments.one_partita") : t("tournament.best_of", { n })), (n) => { d.best_of = n; })
        : null,
      h("div", { class: "field" },
        ...labelled(t("tournaments.max_entrants"), (id) => h("input", {
          id, type: "number", name: "max_entrants", min: 2, max: 256, step: 1, value: d.max_entrants,
          oninput: (e) => { d.max_entrants = e.target.value; },
        }))),
      h("div", { class: "field" },
        ...labelled(t("tournaments.entry_fee"), (id) => h("input", {
          id, type: "number", name: "entry_fee", min: 0, step: 1, value: d.entry_fee,
          oninput: (e) => { d.entry_fee = e.target.value; },
        })),
        h("small", { class: "hint" }, t("tournaments.entry_fee_help"))),
      startField(),
      h("div", { class: "check" },
        h("input", {
          type: "checkbox", id: "tournament-private", name: "private", checked: d.private,
          onchange: (e) => { d.private = e.target.checked; },
        }),
        h("label", { for: "tournament-private" }, t("create.private")),
        h("small", { class: "hint" }, t("tournaments.private_help"))),
      error,
      h("button", { type: "submit", class: "primary big", name: "create-tournament" }, t("tournaments.submit")));
    form.addEventListener("submit", submit);
    fill(root, form);
  }

  function lengthField() {
    const d = draft;
    const number = (name, value, max, label, kind) => h("input", {
      type: "number", name, min: 1, max, step: 1, value, "aria-label": label, disabled: d.lengthKind !== kind,
      oninput: (e) => { d[name] = e.target.value; },
    });
    const radio = (kind, text, input) => h("label", { class: "choice" },
      h("input", {
        type: "radio", name: "length", value: kind, checked: d.lengthKind === kind,
        onchange: () => { d.lengthKind = kind; render(); },
      }),
      text, " ", input);
    return h("fieldset", { class: "field" },
      h("legend", {}, t("create.length")),
      radio("target", t("create.length_target"), number("target", d.target, 1000, t("create.target_points"), "target")),
      radio("hands", t("create.length_hands"), number("hands", d.hands, 100, t("create.hands_count"), "hands")));
  }

  // A clock is needed (an absent player must lose by E6, never stall a round).
  function clocksField() {
    const d = draft;
    const select = (name, key, values, label, text) => h("div", { class: "field" },
      ...labelled(label, (id) => h("select", {
        id, name,
        onchange: (e) => { d[key] = e.target.value === "" ? null : Number(e.target.value); render(); },
      }, values.map((v) => h("option", { value: v === null ? "" : String(v), selected: v === d[key] },
        v === null ? t("create.no_clock") : text(v))))));
    const moves = d.partita === null ? MOVE_CLOCKS.filter((v) => v !== null) : MOVE_CLOCKS;
    const partite = d.move === null ? PARTITA_CLOCKS.filter((v) => v !== null) : PARTITA_CLOCKS;
    return h("fieldset", { class: "field clocks" },
      h("legend", {}, t("create.clocks")),
      select("move_seconds", "move", moves, t("create.move_clock"), (v) => t("create.seconds", { n: v })),
      select("partita_seconds", "partita", partite, t("create.partita_clock"), (v) => t("create.minutes", { n: v / 60 })),
      h("small", { class: "hint" }, t("tournaments.clocks_hint")));
  }

  function startField() {
    const d = draft;
    const at = h("input", {
      type: "datetime-local", name: "starts_at", value: d.starts_at, disabled: d.startKind !== "at",
      "aria-label": t("tournaments.start_time"),
      oninput: (e) => { d.starts_at = e.target.value; },
    });
    const radio = (kind, text, extra) => h("label", { class: "choice" },
      h("input", {
        type: "radio", name: "start", value: kind, checked: d.startKind === kind,
        onchange: () => { d.startKind = kind; render(); },
      }),
      text, extra ? " " : null, extra);
    return h("fieldset", { class: "field" },
      h("legend", {}, t("tournaments.start")),
      radio("manual", t("tournaments.start_manual")),
      radio("at", t("tournaments.start_at"), at));
  }

  async function submit(e) {
    e.preventDefault();
    const button = e.target.querySelector("button[type=submit]");
    error.hidden = true;
    const bad = problem(draft);
    if (bad) {
      error.textContent = bad;
      error.hidden = false;
      return;
    }
    button.disabled = true;
    try {
      const data = await api("POST", "/api/tournaments", buildTournament(draft, choices));
      const id = data.tournament.id;
      draft.name = "";
      const path = `/tournament/${encodeURIComponent(id)}`;
      if (data.link || data.invite) showInvite(data.link || `${path}?invite=${encodeURIComponent(data.invite)}`);
      else ctx.navigate(path);
    } catch (err) {
      error.textContent = readableError(err);
      error.hidden = false;
      button.disabled = false;
    }
  }

  // A private tournament: the invite link to copy, then on to its page.
  function showInvite(path) {
    const url = new URL(path, location.origin).href;
    const input = h("input", { class: "create-invite-link", name: "invite-link", readonly: true, value: url, "aria-label": t("create.invite_link") });
    const copied = h("span", { class: "create-copied", role: "status" });
    const copy = h("button", {
      type: "button", name: "copy-invite",
      onclick: async () => {
        input.select();
        try {
          await navigator.clipboard.writeText(url);
        } catch {
          document.execCommand("copy");
        }
        copied.textContent = t("create.copied");
      },
    }, t("create.copy"));
    const target = new URL(url);
    const dialog = h("dialog", { class: "create-invite-dialog", "aria-labelledby": "tournament-invite-title" },
      h("h2", { id: "tournament-invite-title" }, t("tournaments.invite_title")),
      h("p", {}, t("tournaments.invite_text")),
      h("div", { class: "create-invite-row" }, input, copy),
      copied,
      h("div", { class: "create-dialog-actions" },
        h("button", {
          type: "button", class: "primary", name: "go-tournament",
          onclick: () => { dialog.close(); ctx.navigate(target.pathname + target.search); },
        }, t("tournaments.go"))));
    dialog.addEventListener("cancel", (ev) => ev.preventDefault());
    dialog.addEventListener("close", () => dialog.remove());
    root.appendChild(dialog);
    dialog.showModal();
    input.select();
  }

  return {
    unmount() {
      alive = false;
      const dialog = root.querySelector("dialog[open]");
      if (dialog) dialog.close();
    },
  };
}
