// The create-table form: every option POST /api/tables takes (docs/protocol.md, "A table's
// config"), offered from GET /api/choices: the game (Cirulla, or Cirulo with its own
// options from cirulo-form.js), preset, players (only the counts the preset allows),
// length, clocks, carte viste / scoperte, house rules with one-line explanations,
// who sits where (you, a person, a bot of a level), private with an invite link.
import { api } from "../api.js";
import * as cirulo from "../cirulo-form.js";
import { hasKey, plural, t } from "../i18n.js";
import { h, fill, uid } from "./dom.js";
import { readableError } from "./errors.js";
import { cashField, cashProblem, cashRequest } from "./wallet.js";

// Options the form shows elsewhere (game comes with the preset; length; O1/O2).
const SHOWN_APART = new Set(["game", "target", "hands", "carte_viste", "carte_scoperte"]);
// Cirulla-only options (src/cirulla/rules.py _CIRULLA_ONLY): not offered for Scopa.
const CIRULLA_ONLY = new Set([
  "luzzati", "may_decline_capture", "ace_choice", "bonuses_stack", "no_decino", "matta_choice",
  "matta_keeps_value", "declare_at_deal", "dealer_nine", "dossena", "piccola_to_seven",
  "cappotto_scores_only", "stages", "declared_first", "declare_all_at_once", "wild_card",
]);
const MOVE_CLOCKS = [null, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300];
const PARTITA_CLOCKS = [null, 300, 600, 900, 1200, 1800, 2700, 3600, 5400];
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"];
const SUITS = { H: "♥", D: "♦", C: "♣", S: "♠" };

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
    game: "cirulla", // or "cirulo" (cirulo-form.js: its own options, no preset)
    cirulo: cirulo.ciruloDefaults(),
    preset: "cirulla",
    players: 4,
    seats: ["you", "person", "person", "person", "person", "person"],
    lengthKind: "target",
    target: 51,
    hands: 4,
    move: 60,
    partita: null,
    carte_viste: false,
    carte_scoperte: false,
    rules: {},
    private: false,
    cash: false, // a cash table (wallet.js): stake and max_loss
    stake: 1,
    max_loss: 100,
    rated: true,
  };
  applyPreset(d, choices, "cirulla");
  return d;
}

// A preset sets the house rules, the length and the player counts back to its own.
function applyPreset(d, choices, name) {
  const rules = choices.presets[name];
  d.preset = name;
  d.rules = {};
  for (const o of choices.options) {
    if (!SHOWN_APART.has(o.name)) d.rules[o.name] = rules[o.name];
  }
  d.carte_viste = Boolean(rules.carte_viste);
  d.carte_scoperte = Boolean(rules.carte_scoperte);
  if (rules.hands) {
    d.lengthKind = "hands";
    d.hands = rules.hands;
  } else {
    d.lengthKind = "target";
    d.target = rules.target;
  }
  const allowed = choices.players[name] || [2, 3, 4];
  if (!allowed.includes(d.players)) d.players = allowed[allowed.length - 1];
}

function same(a, b) {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

// Seats of the players in the game (4, 5 or 6 for Cirulo): "you" in one of them.
function seatChoices(d) {
  const out = d.seats.slice(0, d.players);
  while (out.length < d.players) out.push("person");
  if (!out.includes("you")) {
    const free = out.findIndex((s) => !s.startsWith("bot:"));
    out[free >= 0 ? free : 0] = "you";
  }
  return out;
}

// The body for POST /api/tables: only the options that differ from the preset
// (Cirulo: its own options, see cirulo-form.js).
export function buildRequest(d, choices) {
  if (d.game === "cirulo") return ciruloRequest(d);
  const preset = choices.presets[d.preset];
  const options = {};
  for (const [name, value] of Object.entries(d.rules)) {
    if (!same(value, preset[name])) options[name] = value;
  }
  if (d.lengthKind === "hands") options.hands = Number(d.hands);
  else if (Number(d.target) !== preset.target || preset.hands) options.target = Number(d.target);
  if (d.carte_viste !== Boolean(preset.carte_viste)) options.carte_viste = d.carte_viste;
  if (d.carte_scoperte !== Boolean(preset.carte_scoperte)) options.carte_scoperte = d.carte_scoperte;
  const bots = {};
  let seat = 0;
  for (let i = 0; i < d.players; i += 1) {
    const who = d.seats[i] || "person";
    if (who === "you") seat = i;
    else if (who.startsWith("bot:")) bots[String(i)] = who.slice(4);
  }
  const config = {
    preset: d.preset,
    players: d.players,
    options,
    move_seconds: d.move,
    partita_seconds: d.partita,
    private: d.private,
    bots,
    ...cashRequest(d),
  };
  if (d.name.trim()) config.name = d.name.trim();
  return { config, seat };
}

function ciruloRequest(d) {
  const bots = {};
  let seat = 0;
  seatChoices(d).forEach((who, i) => {
    if (who === "you") seat = i;
    else if (who.startsWith("bot:")) bots[String(i)] = who.slice(4);
  });
  const config = {
    game: "cirulo",
    players: d.players,
    options: cirulo.ciruloOptions(d),
    move_seconds: d.move,
    partita_seconds: d.partita,
    private: d.private,
    bots,
  };
  if (d.name.trim()) config.name = d.name.trim();
  return { config, seat };
}

function optionLabel(name) {
  return hasKey(`option.${name}`) ? t(`option.${name}`) : name;
}

function optionHelp(o) {
  return hasKey(`option.${o.name}.help`) ? t(`option.${o.name}.help`) : o.meaning;
}

function levelHelp(name, choices) {
  return hasKey(`level.${name}.help`) ? t(`level.${name}.help`) : choices.levels[name] || "";
}

function cardText(code) {
  return `${code[0]}${SUITS[code[1]] || code[1]}`;
}

export function mountCreateTable(root, ctx) {
  let choices = null;
  let alive = true;
  const error = h("p", { class: "error", role: "alert", hidden: true });
  fill(root, h("p", { class: "muted" }, t("lobby.loading")));

  loadChoices().then(
    (c) => {
      if (!alive) return;
      choices = c;
      if (!draft || !choices.presets[draft.preset]) draft = newDraft(choices);
      if (!draft.cirulo) draft.cirulo = cirulo.ciruloDefaults();
      while (draft.seats.length < 6) draft.seats.push("person");
      render();
    },
    (err) => {
      if (alive) fill(root, h("p", { class: "error", role: "alert" }, readableError(err)));
    },
  );

  function render() {
    const isCirulo = draft.game === "cirulo";
    draft.seats.splice(0, draft.players, ...seatChoices(draft));
    for (let i = draft.players; i < draft.seats.length; i += 1) if (draft.seats[i] === "you") draft.seats[i] = "person";
    const form = h("form", { class: ["form", "create-form", isCirulo ? "cirulo-form" : null], novalidate: true },
      h("div", { class: "field" },
        ...labelled(t("create.name"), (id) => h("input", {
          id, name: "name", maxlength: 40, value: draft.name, placeholder: t("create.name_placeholder"),
          oninput: (e) => { draft.name = e.target.value; },
        }))),
      cirulo.gameField(draft, setGame),
      isCirulo ? null : presetField(),
      isCirulo ? cirulo.playersField(draft, (n) => { draft.players = n; render(); }) : playersField(),
      seatsField(),
      isCirulo ? cirulo.ciruloFields(draft) : lengthField(),
      clocksField(),
      isCirulo ? null : visibilityField(),
      isCirulo ? null : rulesField(),
      isCirulo ? null : cashField(draft, choices, render),
      privateField(),
      error,
      h("button", { type: "submit", class: "primary big", name: "create" }, t("create.submit")));
    form.addEventListener("submit", submit);
    fill(root, form);
  }

  // Cirulla (with its presets) or Cirulo (4-6 players, its own options).
  function setGame(game) {
    draft.game = game;
    if (game === "cirulo" && !cirulo.CIRULO_PLAYERS.includes(draft.players)) draft.players = 4;
    if (game === "cirulla") {
      const allowed = choices.players[draft.preset] || [2, 3, 4];
      if (!allowed.includes(draft.players)) draft.players = allowed[allowed.length - 1];
    }
    render();
  }

  function labelled(label, make) {
    const id = uid("c");
    return [h("label", { for: id }, label), make(id)];
  }

  function presetField() {
    const game = choices.presets[draft.preset].game;
    return h("div", { class: "field" },
      ...labelled(t("create.preset"), (id) => h("select", {
        id, name: "preset",
        onchange: (e) => { applyPreset(draft, choices, e.target.value); render(); },
      }, Object.keys(choices.presets).map((name) =>
        h("option", { value: name, selected: name === draft.preset }, t(`preset.${name}`))))),
      h("small", { class: "hint" }, t(`preset.${draft.preset}.help`), " ", t("create.game", { game: t(`game.${game}`) })));
  }

  function playersField() {
    const allowed = choices.players[draft.preset] || [2, 3, 4];
    return h("fieldset", { class: "field inline" },
      h("legend", {}, t("create.players")),
      [2, 3, 4].filter((n) => allowed.includes(n)).map((n) =>
        h("label", { class: "choice" },
          h("input", {
            type: "radio", name: "players", value: String(n), checked: n === draft.players,
            onchange: () => { draft.players = n; render(); },
          }),
          t("create.players_n", { n }))));
  }

  function seatsField() {
    const levels = Object.keys(choices.levels);
    const rows = [];
    for (let i = 0; i < draft.players; i += 1) {
      const value = draft.seats[i] || "person";
      rows.push(h("div", { class: "create-seat-row" },
        ...labelled(t("create.seat", { n: i + 1 }), (id) => h("select", {
          id, name: `seat-${i}`, dataset: { seat: String(i) },
          onchange: (e) => setSeat(i, e.target.value),
        },
        h("option", { value: "you", selected: value === "you" }, t("create.seat_you")),
        h("option", { value: "person", selected: value === "person" }, t("create.seat_person")),
        levels.map((level) => h("option", { value: `bot:${level}`, selected: value === `bot:${level}` },
          t("create.seat_bot", { level: t(`level.${level}`) })))))));
    }
    return h("fieldset", { class: "field" },
      h("legend", {}, t("create.seats")),
      h("div", { class: "create-seat-rows" }, rows),
      h("div", { class: "create-seat-tools" },
        h("button", { type: "button", class: "small", name: "all-bots", onclick: allBots }, t("create.all_bots"))),
      h("details", { class: "levels" },
        h("summary", {}, t("create.levels")),
        h("dl", {}, levels.map((level) => [
          h("dt", {}, t(`level.${level}`)),
          h("dd", {}, levelHelp(level, choices)),
        ]))),
      h("small", { class: "hint" }, draft.game === "cirulo" ? cirulo.seatsHint() : t("create.seats_hint")));
  }

  function setSeat(i, value) {
    if (value === "you") {
      for (let k = 0; k < draft.seats.length; k += 1) if (draft.seats[k] === "you") draft.seats[k] = "person";
    }
    draft.seats[i] = value;
    if (!draft.seats.slice(0, draft.players).includes("you")) {
      const free = draft.seats.findIndex((s, k) => k < draft.players && !s.startsWith("bot:"));
      draft.seats[free >= 0 ? free : 0] = "you";
    }
    render();
  }

  function allBots() {
    let you = draft.seats.slice(0, draft.players).indexOf("you");
    if (you < 0) you = 0;
    for (let i = 0; i < draft.seats.length; i += 1) draft.seats[i] = i === you ? "you" : "bot:normale";
    render();
  }

  function lengthField() {
    const target = h("input", {
      type: "number", name: "target", min: 1, max: 1000, step: 1, value: draft.target ?? 51,
      "aria-label": t("create.target_points"), disabled: draft.lengthKind !== "target",
      oninput: (e) => { draft.target = e.target.value; },
    });
    const hands = h("input", {
      type: "number", name: "hands", min: 1, max: 100, step: 1, value: draft.hands ?? 4,
      "aria-label": t("create.hands_count"), disabled: draft.lengthKind !== "hands",
      oninput: (e) => { draft.hands = e.target.value; },
    });
    const radio = (kind, text, input) => h("label", { class: "choice" },
      h("input", {
        type: "radio", name: "length", value: kind, checked: draft.lengthKind === kind,
        onchange: () => { draft.lengthKind = kind; render(); },
      }),
      text, " ", input);
    return h("fieldset", { class: "field" },
      h("legend", {}, t("create.length")),
      radio("target", t("create.length_target"), target),
      radio("hands", t("create.length_hands"), hands));
  }

  // Every table needs a clock (the server refuses one with neither): "no limit" is
  // offered for one clock only while the other has a limit.
  function clocksField() {
    const select = (name, values, current, label, text) => h("div", { class: "field" },
      ...labelled(label, (id) => h("select", {
        id, name,
        onchange: (e) => {
          draft[name === "move_seconds" ? "move" : "partita"] = e.target.value === "" ? null : Number(e.target.value);
          render();
        },
      }, values.map((v) => h("option", { value: v === null ? "" : String(v), selected: v === current }, v === null ? t("create.no_clock") : text(v))))));
    const moves = draft.partita === null ? MOVE_CLOCKS.filter((v) => v !== null) : MOVE_CLOCKS;
    const partite = draft.move === null ? PARTITA_CLOCKS.filter((v) => v !== null) : PARTITA_CLOCKS;
    return h("fieldset", { class: "field clocks" },
      h("legend", {}, t("create.clocks")),
      select("move_seconds", moves, draft.move, t("create.move_clock"), (v) => t("create.seconds", { n: v })),
      select("partita_seconds", partite, draft.partita, t("create.partita_clock"), (v) => t("create.minutes", { n: v / 60 })),
      h("small", { class: "hint" }, t("create.clocks_hint")));
  }

  function checkbox(name, checked, label, help, { disabled = false, onchange, rule } = {}) {
    const id = uid("o");
    return h("div", { class: ["check", disabled ? "disabled" : null] },
      h("input", { type: "checkbox", id, name, checked, disabled, "aria-describedby": `${id}-help`, onchange }),
      h("label", { for: id }, label, rule ? h("span", { class: "rule-ref" }, ` ${rule}`) : null),
      h("small", { id: `${id}-help`, class: "hint" }, help));
  }

  function optionInfo(name) {
    return choices.options.find((o) => o.name === name) || { name, meaning: "", rule: "" };
  }

  function visibilityField() {
    const viste = optionInfo("carte_viste");
    const scoperte = optionInfo("carte_scoperte");
    return h("fieldset", { class: "field" },
      h("legend", {}, t("create.visibility")),
      checkbox("carte_viste", draft.carte_viste, optionLabel("carte_viste"), optionHelp(viste), {
        rule: viste.rule, onchange: (e) => { draft.carte_viste = e.target.checked; },
      }),
      checkbox("carte_scoperte", draft.carte_scoperte && draft.players === 4, optionLabel("carte_scoperte"),
        draft.players === 4 ? optionHelp(scoperte) : t("create.scoperte_needs_four"), {
          rule: scoperte.rule, disabled: draft.players !== 4,
          onchange: (e) => { draft.carte_scoperte = e.target.checked; },
        }));
  }

  function rulesField() {
    const scopa = choices.presets[draft.preset].game === "scopa";
    const items = choices.options.filter((o) => !SHOWN_APART.has(o.name)).map((o) => {
      const disabled = scopa && CIRULLA_ONLY.has(o.name);
      const value = draft.rules[o.name];
      if (o.name === "wild_card") return wildCardField(o, value, disabled);
      if (o.name === "stages") return stagesField(o, value, disabled);
      return checkbox(`rule-${o.name}`, Boolean(value), optionLabel(o.name), optionHelp(o), {
        rule: o.rule, disabled,
        onchange: (e) => { draft.rules[o.name] = e.target.checked; },
      });
    });
    const changed = Object.entries(draft.rules).filter(([n, v]) => !same(v, choices.presets[draft.preset][n])).length;
    return h("details", { class: "field house-rules", open: changed > 0 },
      h("summary", {}, t("create.house_rules"), changed ? ` (${plural("create.changed", changed)})` : ""),
      scopa ? h("p", { class: "hint" }, t("create.scopa_rules")) : null,
      h("div", { class: "rules-list" }, items));
  }

  function wildCardField(o, value, disabled) {
    const codes = [];
    // any card but a diamond (denari): the engine refuses a diamond matta (C4)
    for (const s of Object.keys(SUITS)) if (s !== "D") for (const r of RANKS) codes.push(r + s);
    const id = uid("o");
    return h("div", { class: ["check", "select-option", disabled ? "disabled" : null] },
      h("label", { for: id }, optionLabel(o.name), h("span", { class: "rule-ref" }, ` ${o.rule}`)),
      h("select", {
        id, name: "rule-wild_card", disabled, "aria-describedby": `${id}-help`,
        onchange: (e) => { draft.rules.wild_card = e.target.value || null; },
      },
      h("option", { value: "", selected: value === null }, t("create.no_matta")),
      codes.map((c) => h("option", { value: c, selected: c === value }, cardText(c)))),
      h("small", { id: `${id}-help`, class: "hint" }, optionHelp(o)));
  }

  function stagesField(o, value, disabled) {
    const id = uid("o");
    return h("div", { class: ["check", "select-option", disabled ? "disabled" : null] },
      h("label", { for: id }, optionLabel(o.name), h("span", { class: "rule-ref" }, ` ${o.rule}`)),
      h("input", {
        id, name: "rule-stages", disabled, inputmode: "numeric", placeholder: t("create.stages_placeholder"),
        value: Array.isArray(value) ? value.join(", ") : "", "aria-describedby": `${id}-help`,
        pattern: "\\s*\\d+(\\s*,\\s*\\d+)*\\s*",
        oninput: (e) => {
          const text = e.target.value.trim();
          draft.rules.stages = text ? text.split(/[\s,]+/).filter(Boolean).map(Number) : null;
        },
      }),
      h("small", { id: `${id}-help`, class: "hint" }, optionHelp(o)));
  }

  function privateField() {
    return h("fieldset", { class: "field" },
      h("legend", {}, t("create.privacy")),
      checkbox("private", draft.private, t("create.private"), t("create.private_help"), {
        onchange: (e) => { draft.private = e.target.checked; },
      }));
  }

  async function submit(e) {
    e.preventDefault();
    const button = e.target.querySelector("button[type=submit]");
    error.hidden = true;
    const problem = draft.game === "cirulo" ? cirulo.ciruloProblem(draft) : cashProblem(draft);
    if (problem) {
      error.textContent = problem;
      error.hidden = false;
      return;
    }
    const lengthValue = Number(draft.lengthKind === "hands" ? draft.hands : draft.target);
    if (draft.game !== "cirulo" && (!Number.isInteger(lengthValue) || lengthValue < 1)) {
      error.textContent = t("create.bad_length");
      error.hidden = false;
      return;
    }
    if (draft.game !== "cirulo" && draft.rules.stages && draft.rules.stages.some((n) => !Number.isInteger(n) || n < 1)) {
      error.textContent = t("create.bad_stages");
      error.hidden = false;
      return;
    }
    draft.carte_scoperte = draft.carte_scoperte && draft.players === 4;
    button.disabled = true;
    try {
      const body = buildRequest(draft, choices);
      const data = await api("POST", "/api/tables", body);
      const id = data.table.id;
      if (data.link) showInvite(id, data.link);
      else ctx.navigate(`/table/${encodeURIComponent(id)}`);
    } catch (err) {
      error.textContent = readableError(err);
      error.hidden = false;
      button.disabled = false;
    }
  }

  // A private table: the invite link to copy, then on to the table.
  function showInvite(id, path) {
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
    const dialog = h("dialog", { class: "create-invite-dialog", "aria-labelledby": "invite-title" },
      h("h2", { id: "invite-title" }, t("create.invite_title")),
      h("p", {}, t("create.invite_text")),
      h("div", { class: "create-invite-row" }, input, copy),
      copied,
      h("div", { class: "create-dialog-actions" },
        h("button", {
          type: "button", class: "primary", name: "go-table",
          onclick: () => { dialog.close(); ctx.navigate(path); },
        }, t("create.go_table"))));
    dialog.addEventListener("cancel", (e) => e.preventDefault()); // the table is reached by its link only
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
