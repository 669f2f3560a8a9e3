// Cirulo's Spanish cards (docs/cirulo.md): codes "7C", "12O" (spanish48) and "KO",
// "10E", "AB" (poker52); suits O oros, C copas, E espadas, B bastos. Names per
// language for ARIA labels, strength and coin points, the order of a sorted hand, and
// card elements: the "spagnole" SVG deck (decks/index.json "spanish") when it exists,
// else a plain face drawn here (rank and suit pip).

export const SUITS = ["O", "C", "E", "B"];
export const DECK_RANKS = {
  spanish48: ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"],
  poker52: ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"],
};
// The Spanish names of the suits: game words, the same in every language.
export const SPANISH_SUITS = { O: "oros", C: "copas", E: "espadas", B: "bastos" };

const SUIT_WORDS = {
  it: { O: "denari", C: "coppe", E: "spade", B: "bastoni" },
  en: { O: "coins", C: "cups", E: "swords", B: "clubs" },
};
const NUMBER_WORDS = {
  it: ["Asso", "Due", "Tre", "Quattro", "Cinque", "Sei", "Sette", "Otto", "Nove", "Dieci"],
  en: ["Ace", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"],
};
// The court cards keep their Spanish names: sota, caballo, rey (J Q K of poker52).
const COURTS = ["Sota", "Caballo", "Rey"];

export function rankOf(code) {
  return code.slice(0, -1);
}

export function suitOf(code) {
  return code.slice(-1);
}

// The deck a code belongs to when it is not said: only poker52 has A J Q K (and 13 ranks).
export function deckOf(code, fallback = "spanish48") {
  const r = rankOf(code);
  if (["A", "J", "Q", "K"].includes(r)) return "poker52";
  if (["11", "12"].includes(r)) return "spanish48";
  return fallback;
}

// 1 (the ace) up to 12 (rey) or 13 (K): the same scale as cirulla.cirulo.Card.rank.
export function strength(code, deck = deckOf(code)) {
  return DECK_RANKS[deck].indexOf(rankOf(code)) + 1;
}

// CI4: a coin's points (10 for 10 and the courts, the pips otherwise); 0 for other suits.
export function coinPoints(code, deck = deckOf(code)) {
  if (suitOf(code) !== "O") return 0;
  const s = strength(code, deck);
  return s >= 10 ? 10 : s;
}

export function isCourt(code, deck = deckOf(code)) {
  const s = strength(code, deck);
  return deck === "spanish48" ? s >= 10 : s >= 11;
}

function lang2(lang) {
  return lang === "en" ? "en" : "it";
}

// "Sette di coppe", "Seven of cups", "Sota di denari", "Rey of swords".
export function cardName(code, deck = deckOf(code), lang = "it") {
  const l = lang2(lang);
  const s = strength(code, deck);
  const courtFrom = deck === "spanish48" ? 10 : 11;
  const rank = s >= courtFrom ? COURTS[s - courtFrom] : NUMBER_WORDS[l][s - 1];
  const suit = SUIT_WORDS[l][suitOf(code)];
  return l === "en" ? `${rank} of ${suit}` : `${rank} di ${suit}`;
}

export function cardNames(codes, deck, lang) {
  return codes.map((c) => cardName(c, deck, lang)).join(", ");
}

// The suit in words, with its Spanish name: "coppe (copas)", "cups (copas)".
export function suitName(suit, lang = "it") {
  return `${SUIT_WORDS[lang2(lang)][suit]} (${SPANISH_SUITS[suit]})`;
}

// A hand sorted by suit (oros, copas, espadas, bastos), then from low to high.
export function sortHand(codes, deck) {
  return [...codes].sort((a, b) => SUITS.indexOf(suitOf(a)) - SUITS.indexOf(suitOf(b)) || strength(a, deck) - strength(b, deck));
}

// ---- the deck's SVG files ---------------------------------------------------------------

let spanish = null;
let loading = null;

// decks/index.json's "spanish" entry: {style, decks: {spanish48: {path, cards}, poker52: ...}}.
export function loadSpanishDeck() {
  if (!loading) {
    loading = fetch("/static/decks/index.json", { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null)
      .then((data) => {
        spanish = (data && data.spanish) || null;
        return spanish;
      });
  }
  return loading;
}

function deckFiles(deck) {
  return spanish && spanish.decks && spanish.decks[deck] ? spanish.decks[deck] : null;
}

export function cardImage(code, deck) {
  const files = deckFiles(deck);
  return files ? `/static/decks/${files.path}/${encodeURIComponent(code)}.svg` : null;
}

// ---- plain faces and pips ------------------------------------------------------------------

const SVG_NS = "http://www.w3.org/2000/svg";

// Small suit pips (viewBox -12 -12 24 24): a coin, a goblet, a sword, a club.
const PIP_SHAPES = {
  O: [["circle", { cx: 0, cy: 0, r: 10.5, class: "pip-fill" }], ["circle", { cx: 0, cy: 0, r: 6.5, class: "pip-line" }], ["circle", { cx: 0, cy: 0, r: 2.2, class: "pip-ink" }]],
  C: [["path", { d: "M-9 -10H9C9 -2 5 2 0 2.5C-5 2 -9 -2 -9 -10Z", class: "pip-fill" }], ["path", { d: "M-1.6 2.5H1.6L1.2 7.5H-1.2Z", class: "pip-fill" }], ["path", { d: "M-1.2 7.5C-2.5 9.5 -6 10 -7 11.5H7C6 10 2.5 9.5 1.2 7.5Z", class: "pip-fill" }]],
  E: [["path", { d: "M-1.8 4L-1.6 -9L0 -11.5L1.6 -9L1.8 4Z", class: "pip-fill" }], ["path", { d: "M-7 4H7V6.2H-7Z", class: "pip-ink" }], ["path", { d: "M-1.2 6.2H1.2V10H-1.2Z", class: "pip-fill" }], ["circle", { cx: 0, cy: 11, r: 1.5, class: "pip-ink" }]],
  B: [["path", { d: "M-2.5 11.5C-3 4 -6 -5 -6 -8.5C-6 -11 -3 -12 0 -12C3 -12 6 -11 6 -8.5C6 -5 3 4 2.5 11.5Z", class: "pip-fill" }], ["ellipse", { cx: -2, cy: -6, rx: 1.5, ry: 1, class: "pip-ink" }], ["ellipse", { cx: 2, cy: -1, rx: 1.3, ry: 0.9, class: "pip-ink" }], ["ellipse", { cx: -1, cy: 4, rx: 1.1, ry: 0.8, class: "pip-ink" }]],
};

// An inline SVG pip of `suit` (decorative: the text beside it names the suit).
export function suitPip(suit, cls = "") {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "-12 -12 24 24");
  svg.setAttribute("class", `cpip cpip-${suit} ${cls}`.trim());
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  for (const [tag, attrs] of PIP_SHAPES[suit] || []) {
    const el = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    svg.append(el);
  }
  return svg;
}

// The face of a card: the deck's SVG when there is one, else rank and pip. `tag` is
// "button" for the cards of one's hand.
export function cardElement(code, { deck = deckOf(code), lang = "it", tag = "div", label = true } = {}) {
  const el = document.createElement(tag);
  const suit = suitOf(code);
  el.className = `card face csuit-${suit}`;
  el.dataset.code = code;
  if (tag === "button") el.type = "button";
  const name = cardName(code, deck, lang);
  if (label) {
    if (tag === "div") el.setAttribute("role", "img");
    el.setAttribute("aria-label", name);
  } else {
    el.setAttribute("aria-hidden", "true");
  }
  el.title = name;
  const src = cardImage(code, deck);
  if (src) {
    const img = document.createElement("img");
    img.src = src;
    img.alt = "";
    img.draggable = false;
    img.decoding = "async";
    el.append(img);
  } else {
    el.classList.add("cplain");
    const rank = document.createElement("span");
    rank.className = "crank";
    rank.textContent = rankOf(code);
    rank.setAttribute("aria-hidden", "true");
    el.append(rank, suitPip(suit, "cpip-big"));
    if (isCourt(code, deck)) el.classList.add("ccourt");
  }
  return el;
}

// A card face down; `points` (coin points of an encirculated trick) written on it.
export function backElement({ points = null, label = null } = {}) {
  const el = document.createElement("div");
  el.className = "card back cback";
  const src = spanish && spanish.back ? `/static/decks/${spanish.style}/${spanish.back}` : null;
  if (src) {
    const img = document.createElement("img");
    img.src = src;
    img.alt = "";
    img.draggable = false;
    el.append(img);
  }
  if (points !== null) {
    const badge = document.createElement("span");
    badge.className = "cback-points";
    badge.textContent = String(points);
    el.append(badge);
  }
  if (label) {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", label);
    el.title = label;
  } else {
    el.setAttribute("aria-hidden", "true");
  }
  return el;
}
