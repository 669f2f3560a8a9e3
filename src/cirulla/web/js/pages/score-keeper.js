// The score keeper (/score): for a partita played with real cards. House rules and
// sides first; then per smazzata the 40 cards, each tapped to the side that took it,
// scope and accusi per side; the server's engine (POST /api/score) makes the sheet and
// says when the partita is over. Everything is kept in localStorage, so a reload or a
// phone going to sleep loses nothing. No login: it is a tool.
import { api } from "../api.js";
import { RANKS, SUITS, cardName } from "../cards.js";
import { language, plural, t } from "../i18n.js";
import { scoreSheet } from "../scoresheet.js";
import { h, fill } from "./dom.js";
import { readableError } from "./errors.js";

const STORE = "cirulla.scorekeeper";
const DECK = SUITS.flatMap((s) => RANKS.map((r) => r + s));
const SYMBOL = { D: "\u2666", H: "\u2665", C: "\u2663", S: "\u2660" };
// Options of the house rules that change the score (RULES.md section 14).
const FLAGS = ["piccola_to_seven", "cappotto_scores_only", "dossena"];
const LETTERS = ["A", "B", "C"];

function sidesOf(players) {
  return players === 3 ? 3 : 2;
}

function blankHand(n) {
  return { owner: {}, scope: Array(n).fill(0), bonus: Array(n).fill(0), active: 0 };
}

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE) || "null");
    const ok = saved && saved.version === 1 && saved.setup && Array.isArray(saved.smazzate);
    if (ok && saved.hand && typeof saved.hand.owner === "object") return saved;
  } catch {
    // a damaged entry: start again
  }
  return null;
}

export function mountScoreKeeper(root) {
  let state = load() || {
    version: 1,
    started: false,
    setup: { preset: "cirulla", players: 2, target: 51, hands: null, names: ["", "", ""], flags: {} },
    rules: null, // the rules the server answered with (rules.to_dict())
    smazzate: [], // [{piles, scope, bonus, sheet, standing}]
    hand: blankHand(2),
  };
  let choices = null; // GET /api/choices: presets and the players each allows
  let busy = false;
  let alive = true;
  const page = h("section", { class: "page score-keeper" });
  root.appendChild(page);

  const save = () => localStorage.setItem(STORE, JSON.stringify(state));
  const sides = () => sidesOf(state.setup.players);
  const names = () => LETTERS.slice(0, sides()).map((x, i) => state.setup.names[i]?.trim() || x);
  const standing = () => state.smazzate.at(-1)?.standing ?? null;
  const totals = () => standing()?.totals ?? Array(sides()).fill(0);
  const scopa = () => state.setup.preset === "scopa";

  function options() {
    const s = state.setup;
    const out = s.hands ? { hands: s.hands } : { target: s.target };
    // every flag said, so that unticking one the preset sets (Dossena) counts too
    if (!scopa()) for (const flag of FLAGS) out[flag] = Boolean(s.flags[flag]);
    return out;
  }

  // ---- house rules --------------------------------------------------------------------

  function presetDefaults(name) {
    const rules = choices?.presets?.[name];
    const s = state.setup;
    s.target = rules?.target ?? 51;
    s.hands = null;
    s.flags = Object.fromEntries(FLAGS.map((f) => [f, Boolean(rules?.[f])]));
    const allowed = choices?.players?.[name] ?? [2, 3, 4];
    if (!allowed.includes(s.players)) s.players = allowed[0];
  }

  function setupForm() {
    const s = state.setup;
    const presets = choices ? Object.keys(choices.presets) : [s.preset];
    const allowed = choices?.players?.[s.preset] ?? [2, 3, 4];
    // Saved as typed (no redraw: a redraw would swallow the click on "start"); a target
    // and a number of smazzate exclude each other (RULES.md E1, E2).
    const number = (name, value, min, max, onvalue) => h("input", {
      type: "number", id: `keeper-${name}`, name, min, max, inputmode: "numeric", value: value ?? "",
      oninput: (e) => {
        const v = Math.trunc(Number(e.target.value));
        onvalue(e.target.value === "" || !(v >= min && v <= max) ? null : v, e.target.form);
        save();
      },
    });
    const row = (id, label, control, help = null) => h("div", { class: "check select-option" },
      h("label", { for: id }, label), control, help ? h("span", { class: "hint" }, help) : null);
    const flags = FLAGS.filter(() => !scopa()).map((flag) => h("div", { class: "check" },
      h("input", {
        type: "checkbox", id: `keeper-${flag}`, name: flag, checked: Boolean(s.flags[flag]),
        onchange: (e) => { s.flags[flag] = e.target.checked; save(); },
      }),
      h("label", { for: `keeper-${flag}` }, t(`option.${flag}`)),
      h("span", { class: "hint" }, t(`option.${flag}.help`))));
    return h("form", { class: "keeper-setup form", onsubmit: (e) => { e.preventDefault(); start(); } },
      h("h2", {}, t("keeper.rules")),
      row("keeper-preset", t("keeper.preset"), h("select", {
        id: "keeper-preset", name: "preset",
        onchange: (e) => { s.preset = e.target.value; presetDefaults(s.preset); save(); draw(); },
      }, presets.map((p) => h("option", { value: p, selected: p === s.preset }, t(`preset.${p}`))))),
      row("keeper-players", t("keeper.players"), h("select", {
        id: "keeper-players", name: "players",
        onchange: (e) => { s.players = Number(e.target.value); save(); draw(); },
      }, allowed.map((n) => h("option", { value: n, selected: n === s.players }, t(`keeper.players.${n}`))))),
      row("keeper-target", t("option.target"), number("target", s.hands ? null : s.target, 1, 1000, (v, form) => {
        s.target = v || choices?.presets?.[s.preset]?.target || 51;
        if (v) { s.hands = null; form.elements.hands.value = ""; }
      }), t("option.target.help")),
      row("keeper-hands", t("option.hands"), number("hands", s.hands, 1, 100, (v, form) => {
        s.hands = v;
        if (v) form.elements.target.value = "";
      }), t("option.hands.help")),
      flags,
      h("fieldset", { class: "keeper-names" },
        h("legend", {}, t("keeper.names")),
        LETTERS.slice(0, sides()).map((x, i) => h("label", { class: "keeper-name" },
          t(state.setup.players === 4 ? "keeper.pair" : "keeper.side", { x }),
          h("input", {
            type: "text", name: `name-${i}`, maxlength: 24, value: s.names[i] || "", placeholder: x,
            oninput: (e) => { s.names[i] = e.target.value; save(); },
          })))),
      h("button", { type: "submit", class: "primary big" }, t("keeper.start")));
  }

  function start() {
    state.started = true;
    state.smazzate = [];
    state.rules = null;
    state.hand = blankHand(sides());
    save();
    draw();
  }

  function restart() {
    if (state.smazzate.length && !standing()?.over && !window.confirm(t("keeper.new.confirm"))) return;
    state.started = false;
    state.smazzate = [];
    state.hand = blankHand(sides());
    save();
    draw();
  }

  // ---- one smazzata: the cards, scope and accusi --------------------------------------

  // A tap on a free card gives it to the chosen side; on a taken card, to the next
  // side, and after the last side back to nobody.
  function tap(card) {
    const hand = state.hand;
    const owner = hand.owner[card];
    if (owner === undefined) hand.owner[card] = hand.active;
    else if (owner + 1 < sides()) hand.owner[card] = owner + 1;
    else delete hand.owner[card];
    save();
    drawHand();
  }

  function restTo(side) {
    for (const card of DECK) if (state.hand.owner[card] === undefined) state.hand.owner[card] = side;
    save();
    drawHand();
  }

  function bump(what, side, by) {
    const list = state.hand[what];
    list[side] = Math.max(0, Math.min(99, (list[side] || 0) + by));
    save();
    drawHand();
  }

  function cardButton(card) {
    const owner = state.hand.owner[card];
    const sideName = owner === undefined ? t("keeper.nobody") : names()[owner];
    return h("button", {
      type: "button",
      class: ["keeper-card", `suit-${card[1]}`, owner === undefined ? "free" : `side-${owner}`],
      dataset: { card, side: owner === undefined ? "" : String(owner) },
      "aria-label": `${cardName(card, "french", language())}: ${sideName}`,
      onclick: () => tap(card),
    }, h("span", { class: "face" }, card[0], SYMBOL[card[1]]),
    h("span", { class: "who" }, owner === undefined ? "" : LETTERS[owner]));
  }

  function counter(what, side, steps) {
    const value = state.hand[what][side] || 0;
    const label = t(`keeper.${what}`);
    return h("div", { class: "keeper-counter", dataset: { what, side } },
      h("span", { class: "label" }, label),
      h("button", { type: "button", class: "small", "aria-label": t("keeper.less", { what: label, side: names()[side] }), onclick: () => bump(what, side, -1), disabled: value === 0 }, "\u2212"),
      h("output", { class: "value", "aria-live": "polite" }, String(value)),
      steps.map((n) => h("button", { type: "button", class: "small", "aria-label": t("keeper.more", { what: label, side: names()[side], n }), onclick: () => bump(what, side, n) }, `+${n}`)));
  }

  const handBox = h("div", { class: "keeper-hand" });

  function drawHand() {
    if (!alive) return;
    const hand = state.hand;
    const counts = Array(sides()).fill(0);
    for (const side of Object.values(hand.owner)) counts[side] += 1;
    const free = DECK.length - counts.reduce((a, b) => a + b, 0);
    fill(handBox,
      h("h2", {}, t("score.smazzata", { n: state.smazzate.length + 1 })),
      h("div", { class: "segmented keeper-active", role: "group", "aria-label": t("keeper.tap_for") },
        h("span", { class: "segmented-label" }, t("keeper.tap_for")),
        names().map((name, i) => h("button", {
          type: "button", class: `side-${i}`, "aria-pressed": String(hand.active === i),
          onclick: () => { hand.active = i; save(); drawHand(); },
        }, name))),
      h("p", { class: "keeper-counts", "aria-live": "polite" },
        names().map((name, i) => h("span", { class: `side-${i}` }, `${name}: ${plural("keeper.cards", counts[i])}`)),
        h("span", { class: "free" }, plural("keeper.free", free))),
      SUITS.map((s) => h("div", { class: "keeper-suit", role: "group", "aria-label": t(`keeper.suit.${s}`) },
        DECK.filter((c) => c[1] === s).map(cardButton))),
      h("div", { class: "keeper-rest" }, names().map((name, i) => h("button", {
        type: "button", class: `rest side-${i}`, disabled: free === 0, onclick: () => restTo(i),
      }, t("keeper.rest_to", { side: name })))),
      h("div", { class: "keeper-counters" }, names().map((name, i) => h("div", { class: `keeper-side side-${i}` },
        h("h3", {}, name),
        counter("scope", i, [1]),
        scopa() ? null : counter("bonus", i, [1, 3, 10])))),
      h("p", { class: "keeper-error error", role: "alert" }),
      h("button", { type: "button", class: "primary big keeper-score", disabled: busy, onclick: score }, t("keeper.score")));
  }

  async function score() {
    if (busy) return;
    const n = sides();
    const piles = Array.from({ length: n }, () => []);
    for (const card of DECK) {
      const side = state.hand.owner[card];
      if (side !== undefined) piles[side].push(card);
    }
    const body = {
      preset: state.setup.preset,
      options: options(),
      players: state.setup.players,
      piles,
      scope: state.hand.scope.slice(0, n),
      bonus: scopa() ? null : state.hand.bonus.slice(0, n),
      before: state.smazzate.map((x) => x.sheet.sides.map((s) => s.total)),
    };
    busy = true;
    let answer;
    try {
      answer = await api("POST", "/api/score", body);
    } catch (err) {
      busy = false;
      if (!alive) return;
      const missing = DECK.filter((c) => state.hand.owner[c] === undefined);
      const box = handBox.querySelector(".keeper-error");
      box.textContent = err.status === 422 && missing.length && missing.length < DECK.length
        ? t("keeper.missing", { n: plural("keeper.cards", missing.length), cards: missing.map((c) => c[0] + SYMBOL[c[1]]).join(" ") })
        : readableError(err);
      return;
    }
    busy = false;
    if (!alive) return;
    state.rules = answer.rules;
    state.smazzate.push({ piles, scope: body.scope, bonus: body.bonus, sheet: answer.sheet, standing: {
      totals: answer.totals, over: answer.over, winner: answer.winner, reason: answer.reason,
    } });
    state.hand = blankHand(n);
    save();
    draw();
  }

  function undo() {
    state.smazzate.pop();
    save();
    draw();
  }

  // ---- the partita so far -------------------------------------------------------------

  function result() {
    const st = standing();
    const box = h("div", { class: "keeper-result" });
    if (!st) return box;
    const line = names().map((name, i) => `${name} ${st.totals[i]}`).join(" \u2013 ");
    box.append(h("p", { class: "keeper-totals" }, t("score.totals", { totals: line })));
    if (st.over) {
      box.append(h("p", { class: "keeper-winner", role: "status" },
        t(`keeper.winner.${st.reason}`, { side: names()[st.winner] })));
    } else {
      const s = state.setup;
      const left = s.hands ? s.hands - state.smazzate.length : null;
      const tied = s.hands ? left <= 0 : Math.max(...st.totals) >= s.target;
      box.append(h("p", { class: "hint keeper-goal" }, tied
        ? t("keeper.tie")
        : s.hands ? plural("keeper.to_hands", left) : t("keeper.to_target", { target: s.target })));
    }
    box.append(scoreSheet({ scores: state.smazzate.map((x) => x.sheet), totals: st.totals, sideNames: names(), rules: state.rules }));
    box.append(h("button", { type: "button", class: "keeper-undo", onclick: undo }, t("keeper.undo")));
    return box;
  }

  function summary() {
    const s = state.setup;
    const goal = s.hands ? plural("keeper.smazzate", s.hands) : t("keeper.points", { target: s.target });
    const flags = FLAGS.filter((f) => s.flags[f]).map((f) => t(`option.${f}`));
    return h("div", { class: "keeper-summary" },
      h("p", {}, [t(`preset.${s.preset}`), t(`keeper.players.${s.players}`), goal, ...flags].join(" \u00b7 ")),
      h("button", { type: "button", class: "small keeper-new", onclick: restart }, t("keeper.new")));
  }

  function draw() {
    if (!alive) return;
    const body = [h("h1", {}, t("keeper.title"))];
    if (!state.started) {
      body.push(h("p", { class: "hint" }, t("keeper.intro")), setupForm());
    } else {
      body.push(summary());
      if (!standing()?.over) {
        body.push(handBox);
        drawHand();
      }
      body.push(result());
    }
    fill(page, ...body);
  }

  draw();
  api("GET", "/api/choices").then((data) => {
    choices = data;
    if (alive && !state.started) draw();
  }).catch(() => {}); // the form works with what it has

  return { unmount() { alive = false; } };
}
