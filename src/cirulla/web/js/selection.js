// Playing a card, RULES.md U1-U4, as pure functions of the legal moves the server sent
// (move notation) and what the player has picked. No DOM here: table-play.js wires
// these to pointer and keyboard events, tests/test_web_selection.py runs them in node.
//
// U1  select a hand card, then table cards one by one: the capture happens as soon as
//     the selection is a complete capture that no further table card extends into a
//     different capture; a complete capture that could still be extended waits for
//     "Conferma presa". A selection that only one capture contains is that capture.
// U2  a card that captures nothing shows a semi-transparent copy on the table.
// U3  dragging: the only capture, or the one left by the table card under the pointer.
// U4  double-click: play without capture, or say why the card must capture.

// "5C" | "5Cx7H3C" | "!cirulla:7H3C4D=A" | "!pass" -> a plain object.
export function parseMove(text) {
  if (text === "!pass") return { kind: "pass", text };
  if (text.startsWith("!")) {
    const m = /^!([a-z_]+):([A-Za-z0-9]+?)(?:=([A2-7JQK]))?$/.exec(text);
    if (!m) return { kind: "unknown", text };
    return { kind: "declare", text, bonus: m[1], cards: chunks(m[2]), matta: m[3] ?? null };
  }
  const [card, captured] = text.split("x");
  return { kind: "play", text, card, captured: captured ? chunks(captured) : [] };
}

function chunks(s) {
  const out = [];
  for (let i = 0; i + 1 < s.length; i += 2) out.push(s.slice(i, i + 2).toUpperCase());
  return out;
}

function sameSet(a, b) {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function subset(small, big) {
  return small.every((x) => big.includes(x));
}

// Everything the legal moves allow a hand card: its captures (each {move, cards}), the
// plain play without capture (notation or null), and whether it may be played at all.
export function cardOptions(legal, card) {
  const captures = [];
  let plain = null;
  for (const text of legal || []) {
    const m = parseMove(text);
    if (m.kind !== "play" || m.card !== card) continue;
    if (m.captured.length) captures.push({ move: text, cards: m.captured });
    else plain = text;
  }
  return { captures, plain, playable: captures.length > 0 || plain !== null };
}

// The hand cards that have at least one legal play.
export function playableCards(legal) {
  const out = new Set();
  for (const text of legal || []) {
    const m = parseMove(text);
    if (m.kind === "play") out.add(m.card);
  }
  return out;
}

export function declarations(legal) {
  return (legal || []).map(parseMove).filter((m) => m.kind === "declare");
}

export function passMove(legal) {
  return (legal || []).includes("!pass") ? "!pass" : null;
}

// U1: where a selection (hand card + table cards picked so far) stands.
//   {state: "none"}          the card has no capture (U2 applies if `plain`)
//   {state: "empty"}         no table card picked yet
//   {state: "invalid"}       no capture contains these table cards
//   {state: "partial"}       a part of several captures: pick more
//   {state: "complete", move, confirm: true}
//                            a capture, but a bigger one contains it: "Conferma presa"
//   {state: "complete", move, confirm: false, auto: bool}
//                            the one capture left: play it now (auto: cards were added)
// Always with `captures`, `plain`, and `candidates` (table cards that may be picked next).
export function selectionState(legal, card, selected = []) {
  const { captures, plain } = cardOptions(legal, card);
  const base = { captures, plain };
  if (!captures.length) return { ...base, state: "none", candidates: [] };
  const containing = captures.filter((c) => subset(selected, c.cards));
  const candidates = [...new Set(containing.flatMap((c) => c.cards))].filter((x) => !selected.includes(x));
  if (!selected.length) return { ...base, state: "empty", candidates };
  if (!containing.length) return { ...base, state: "invalid", candidates: [] };
  const exact = containing.find((c) => sameSet(c.cards, selected));
  if (exact) {
    if (containing.length > 1) return { ...base, state: "complete", move: exact.move, cards: exact.cards, confirm: true, candidates };
    return { ...base, state: "complete", move: exact.move, cards: exact.cards, confirm: false, auto: false, candidates: [] };
  }
  if (containing.length === 1) {
    const only = containing[0];
    return { ...base, state: "complete", move: only.move, cards: only.cards, confirm: false, auto: true, candidates: [] };
  }
  return { ...base, state: "partial", candidates };
}

// U1, one click on a table card: the new selection (toggling the card) and its state.
// A click that fits no capture keeps the old selection and says so (state "invalid").
export function toggleTableCard(legal, card, selected, tableCard) {
  if (selected.includes(tableCard)) {
    const next = selected.filter((x) => x !== tableCard);
    return { selected: next, ...selectionState(legal, card, next) };
  }
  const next = [...selected, tableCard];
  const st = selectionState(legal, card, next);
  if (st.state === "invalid") return { ...selectionState(legal, card, selected), selected, rejected: tableCard };
  return { selected: next, ...st };
}

// U3: what dropping `card` on the table would do, with the pointer over `hover` (a table
// card's code, or null over the table's free space).
//   {kind: "capture", move, cards}  the only capture, or the only one with `hover`
//   {kind: "ghost", move}           the card captures nothing: it would be laid down
//   {kind: "ambiguous", captures}   several captures: select card by card (U1)
//   {kind: "none"}                  the card may not be played now
export function dragTarget(legal, card, hover = null) {
  const { captures, plain } = cardOptions(legal, card);
  if (!captures.length) return plain ? { kind: "ghost", move: plain } : { kind: "none" };
  if (captures.length === 1) return { kind: "capture", move: captures[0].move, cards: captures[0].cards };
  if (hover) {
    const withHover = captures.filter((c) => c.cards.includes(hover));
    if (withHover.length === 1) return { kind: "capture", move: withHover[0].move, cards: withHover[0].cards };
  }
  return { kind: "ambiguous", captures };
}

// U3: the table cards a pointer could hover to leave exactly one capture.
export function uniqueHoverCards(legal, card) {
  const { captures } = cardOptions(legal, card);
  if (captures.length < 2) return [];
  const all = [...new Set(captures.flatMap((c) => c.cards))];
  return all.filter((x) => captures.filter((c) => c.cards.includes(x)).length === 1);
}

// U4: a double-click plays the card without capture when the rules allow it.
//   {ok: true, move} | {ok: false, reason: "must_capture", captures} | {ok: false, reason: "not_playable"}
export function doubleClickPlay(legal, card) {
  const { captures, plain } = cardOptions(legal, card);
  if (plain) return { ok: true, move: plain };
  if (captures.length) return { ok: false, reason: "must_capture", captures };
  return { ok: false, reason: "not_playable" };
}

// The declarations grouped by (bonus, cards), each with the matta values on offer.
export function declarationChoices(legal) {
  const groups = [];
  for (const d of declarations(legal)) {
    const key = `${d.bonus}:${d.cards.join("")}`;
    let g = groups.find((x) => x.key === key);
    if (!g) {
      g = { key, bonus: d.bonus, cards: d.cards, options: [] };
      groups.push(g);
    }
    g.options.push({ matta: d.matta, move: d.text });
  }
  return groups;
}

// What a declaration is worth by the table's rules (the engine's bonuses.bonus_points):
// the Accuso dialog shows it beside each choice. The matta counts as its declared value.
export function declarationPoints(bonus, cards, matta = null, rules = {}) {
  const wild = rules.wild_card === undefined ? "7H" : rules.wild_card;
  const value = (code) => "A234567JQK".indexOf(code[0]) + 1;
  const plain = cards.filter((c) => c !== wild);
  const values = cards.map((c) => {
    if (c !== wild) return value(c);
    if (matta) return value(matta);
    return bonus === "decino" && plain.length ? value(plain[0]) : 1;
  });
  const low = values.reduce((a, b) => a + b, 0) <= 9;
  if (bonus === "cirulla") return rules.dossena ? 1 : 3;
  if (rules.dossena) return low ? 3 : 2;
  return low && rules.bonuses_stack ? 13 : 10;
}
