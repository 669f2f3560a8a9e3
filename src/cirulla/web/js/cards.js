// Cards: codes ("7H"), capture values, names per deck style and language (the same
// names as cirulla.cards.Card.name), and card elements drawn from the SVG decks in
// /static/decks/<style>/ or, when a style's deck is missing, a plain face. The reader's
// deck comes with the table pages' HTML as one sprite (gateway/preload.py deck_sprite):
// its cards are drawn inline from it, at once and without a request each.

export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"];
export const SUITS = ["D", "H", "C", "S"];
export const STYLES = ["french", "napoletane", "piacentine"];

const SUIT_NAMES = {
  "french/it": ["quadri", "cuori", "fiori", "picche"],
  "french/en": ["diamonds", "hearts", "clubs", "spades"],
  "latin/it": ["denari", "coppe", "bastoni", "spade"],
  "latin/en": ["coins", "cups", "batons", "swords"],
};
const RANK_NAMES = {
  "french/it": { A: "Asso", J: "Fante", Q: "Donna", K: "Re" },
  "french/en": { A: "Ace", J: "Jack", Q: "Queen", K: "King" },
  "latin/it": { A: "Asso", J: "Fante", Q: "Cavallo", K: "Re" },
  "latin/en": { A: "Ace", J: "Knave", Q: "Knight", K: "King" },
};
// Symbols of the plain faces (shape and colour both tell the suit apart).
const SUIT_SYMBOLS = { D: "\u2666", H: "\u2665", C: "\u2663", S: "\u2660" };

export function isCode(code) {
  return typeof code === "string" && code.length === 2 && RANKS.includes(code[0]) && SUITS.includes(code[1]);
}

export function rankOf(code) {
  return code[0];
}

export function suitOf(code) {
  return code[1];
}

// The capture value: A=1 ... 7=7, J=8, Q=9, K=10.
export function valueOf(code) {
  return RANKS.indexOf(code[0]) + 1;
}

function family(style) {
  return style === "french" ? "french" : "latin";
}

// "7 di coppe", "King of hearts": exactly cirulla.cards.Card.name.
export function cardName(code, style = "french", lang = "it") {
  const fam = family(STYLES.includes(style) ? style : "french");
  const key = `${fam}/${lang === "en" ? "en" : "it"}`;
  const suit = SUIT_NAMES[key][SUITS.indexOf(code[1])];
  const rank = RANK_NAMES[key][code[0]] ?? code[0];
  return lang === "en" ? `${rank} of ${suit}` : `${rank} di ${suit}`;
}

// The rank's name alone ("Asso", "Knight"): for the matta's value.
export function rankName(rank, style = "french", lang = "it") {
  const fam = family(STYLES.includes(style) ? style : "french");
  return RANK_NAMES[`${fam}/${lang === "en" ? "en" : "it"}`][rank] ?? rank;
}

export function cardNames(codes, style, lang) {
  return codes.map((c) => cardName(c, style, lang)).join(", ");
}

// Which deck styles have their SVG files (decks/index.json), loaded once.
let deckIndex = null;
let deckIndexPromise = null;

// The sprite the page carries: {style, viewBox, cards: {code: SVG content}}; each card's
// <symbol> is made the first time it is drawn, in one hidden <svg> of the document.
let sprite = null;
let spriteRoot = null;
const made = new Set(); // the symbols in spriteRoot, or about to be
let pending = []; // [id, code] of the symbols to make
const SVG = "http://www.w3.org/2000/svg";

function readSprite() {
  const carried = document.getElementById("cirulla-deck");
  if (!carried) return;
  try {
    const data = JSON.parse(carried.textContent);
    if (data && typeof data.style === "string" && data.cards) sprite = data;
  } catch {
    // not JSON: the cards come one file each
  }
}

// The id of `code`'s symbol ("back" for the back) in `style`; null when the sprite has
// not that style. A symbol not made yet is made with the others asked for in the same
// task, in one parse (a microtask later: before the page is drawn).
function symbolOf(code, style) {
  if (!sprite || sprite.style !== style || typeof sprite.cards[code] !== "string") return null;
  const id = `deck-${style}-${code}`;
  if (spriteRoot && !spriteRoot.isConnected) {
    spriteRoot = null;
    made.clear();
  }
  if (!made.has(id)) {
    made.add(id);
    if (!pending.length) queueMicrotask(makeSymbols);
    pending.push([id, code]);
  }
  return id;
}

function makeSymbols() {
  if (!spriteRoot) {
    spriteRoot = document.createElementNS(SVG, "svg");
    spriteRoot.setAttribute("class", "deck-sprite");
    spriteRoot.setAttribute("aria-hidden", "true");
    document.body.append(spriteRoot);
  }
  const box = sprite.viewBox;
  const markup = pending.map(([id, code]) => `<symbol id="${id}" viewBox="${box}">${sprite.cards[code]}</symbol>`);
  pending = [];
  spriteRoot.insertAdjacentHTML("beforeend", markup.join("")); // parsed as SVG (its context)
}

// The art of a card (or its back) drawn from the sprite: an <svg> using its symbol.
function spriteArt(id) {
  const art = document.createElementNS(SVG, "svg");
  art.setAttribute("class", "card-art");
  art.setAttribute("viewBox", sprite.viewBox);
  art.setAttribute("aria-hidden", "true");
  art.setAttribute("focusable", "false");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", `#${id}`);
  art.append(use);
  return art;
}

export function loadDecks() {
  if (!sprite) readSprite();
  const carried = document.getElementById("cirulla-decks"); // the table pages' HTML has it
  if (!deckIndexPromise && carried) {
    try {
      deckIndexPromise = Promise.resolve(JSON.parse(carried.textContent)).then((data) => {
        deckIndex = data && data.styles ? data.styles : {};
        return deckIndex;
      });
    } catch {
      // not JSON: ask the server as below
    }
  }
  if (!deckIndexPromise) {
    deckIndexPromise = fetch("/static/decks/index.json", { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null)
      .then((data) => {
        deckIndex = data && data.styles ? data.styles : {};
        return deckIndex;
      });
  }
  return deckIndexPromise;
}

export function hasDeck(style) {
  return Boolean(deckIndex && deckIndex[style]);
}

export function cardImage(code, style) {
  return `/static/decks/${encodeURIComponent(style)}/${code}.svg`;
}

// The face of a card: the deck's SVG when the style has one, else rank and suit.
// `tag` is "button" for cards one can act on, "div" otherwise.
export function cardElement(code, { style = "french", lang = "it", tag = "div", label = true } = {}) {
  const el = document.createElement(tag);
  el.className = `card face suit-${code[1]}`;
  el.dataset.code = code;
  if (tag === "button") el.type = "button";
  const name = cardName(code, style, lang);
  if (label) {
    if (tag === "div") el.setAttribute("role", "img");
    el.setAttribute("aria-label", name);
  }
  el.title = name;
  el.dataset.style = style;
  const symbol = hasDeck(style) ? symbolOf(code, style) : null;
  if (symbol) {
    el.append(spriteArt(symbol));
  } else if (hasDeck(style)) {
    const img = document.createElement("img");
    img.src = cardImage(code, style);
    img.alt = "";
    img.draggable = false;
    img.decoding = "async";
    el.append(img);
  } else {
    el.classList.add("plain");
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = code[0];
    const suit = document.createElement("span");
    suit.className = "pip";
    suit.textContent = SUIT_SYMBOLS[code[1]];
    suit.setAttribute("aria-hidden", "true");
    rank.setAttribute("aria-hidden", "true");
    el.append(rank, suit);
  }
  return el;
}

// A card face down (a hand one may not see, a pile).
export function backElement(style = "french") {
  const el = document.createElement("div");
  el.className = "card back";
  el.setAttribute("aria-hidden", "true");
  const symbol = hasDeck(style) ? symbolOf("back", style) : null;
  if (symbol) {
    el.append(spriteArt(symbol));
  } else if (hasDeck(style)) {
    const img = document.createElement("img");
    img.src = `/static/decks/${encodeURIComponent(style)}/back.svg`;
    img.alt = "";
    img.draggable = false;
    el.append(img);
  }
  return el;
}
