// Every string the client shows comes from a catalog: pages (i18n/<lang>.js), the
// table (i18n/table.<lang>.js) and Cirulo (i18n/cirulo.<lang>.js). Game words stay
// Italian in both languages. Only the reader's language is loaded at start (the page's
// HTML carries it: gateway/preload.py), another one when chosen. The table's page
// carries only the part its first modules use ("partial"): the whole catalog is fetched
// once that page is drawn (whenComplete), and what comes later waits for it.

export const LANGUAGES = ["it", "en"];
const CATALOGS = (lang) => [import(`../i18n/${lang}.js`), import(`../i18n/table.${lang}.js`), import(`../i18n/cirulo.${lang}.js`)];
// Read by the server to preload the right catalogs (gateway/web.py LANGUAGE_COOKIE).
const COOKIE = "cirulla_lang";

const catalogs = {}; // lang -> {key: text}, once loaded
const loading = {}; // lang -> Promise of its catalog
const partial = new Set(); // languages of which only a part is here (the page carried it)

// A language's catalogs as the server joins them (one request: gateway/preload.py
// catalog_json), else the modules themselves, merged in the same order.
async function fetchCatalog(lang) {
  const response = await fetch(`/static/i18n/${lang}.json`, { credentials: "same-origin" });
  if (response.ok) return response.json();
  const mods = await Promise.all(CATALOGS(lang));
  return Object.assign({}, ...mods.map((m) => m.default));
}

function load(lang) {
  loading[lang] ??= fetchCatalog(lang).then((catalog) => {
    catalogs[lang] = catalog;
    partial.delete(lang);
    return catalog;
  });
  loading[lang].catch(() => delete loading[lang]); // offline: try again next time
  return loading[lang];
}

function remember(lang) {
  localStorage.setItem("cirulla.language", lang);
  document.cookie = `${COOKIE}=${lang}; path=/; max-age=31536000; samesite=lax`;
}

// Italian when the browser prefers it (before English), else English.
export function preferredLanguage() {
  const saved = localStorage.getItem("cirulla.language");
  if (LANGUAGES.includes(saved)) return saved;
  for (const lang of navigator.languages || [navigator.language || "en"]) {
    const base = lang.toLowerCase().slice(0, 2);
    if (base === "it") return "it";
    if (base === "en") return "en";
  }
  return "en";
}

let current = preferredLanguage();
if (localStorage.getItem("cirulla.language") === current) remember(current); // the cookie too
const carried = inPage();
if (carried && carried.lang === current) {
  catalogs[current] = carried.texts;
  if (carried.partial) partial.add(current);
} else await load(current);

// The catalog the page's HTML carries (gateway/preload.py): the language the server
// guessed, which is the one chosen here unless the browser kept another.
function inPage() {
  const block = document.getElementById("cirulla-catalog");
  try {
    return block ? JSON.parse(block.textContent) : null;
  } catch {
    return null;
  }
}

export function language() {
  return current;
}

// Resolves once the whole catalog of the language shown is here (at once when the page
// carried it whole); the first call after a partial start fetches it.
export function whenComplete() {
  if (!partial.has(current)) return Promise.resolve();
  return load(current).then(() => undefined, () => undefined); // offline: as it is
}

// Switch to `lang`: at once when its catalog is here, else once it has arrived (the
// "languagechange" event says when). The promise resolves when the switch is done.
let wanted = current;
export function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) return Promise.resolve();
  wanted = lang;
  remember(lang);
  const apply = () => {
    if (wanted !== lang || !catalogs[lang]) return; // another choice came since
    current = lang;
    document.documentElement.lang = lang;
    window.dispatchEvent(new CustomEvent("languagechange", { detail: { lang } }));
  };
  if (catalogs[lang] && !partial.has(lang)) {
    apply();
    return Promise.resolve();
  }
  return load(lang).then(apply, (err) => console.error(err));
}

function lookup(lang, key) {
  const catalog = catalogs[lang];
  return catalog ? catalog[key] : undefined;
}

// t("lobby.seats", {n: 3}) -> the string with {n} filled in; the key itself if missing,
// so a missing string is visible rather than blank. A key written in plural forms
// ("key.one", "key.other", ...) is chosen by the count in {n} (see plural()).
export function t(key, params = {}) {
  const forms = lookup(current, key) === undefined && typeof params.n === "number";
  const chosen = forms ? pluralKey(key, params.n) : key;
  const text = lookup(current, chosen) ?? lookup("en", chosen) ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

// The language's plural rules (Intl.PluralRules): "key.one" for 1 in both languages,
// "key.many" where Italian has it, "key.other" otherwise.
const rules = {};
export function pluralKey(key, n, lang = current) {
  rules[lang] ??= new Intl.PluralRules(lang === "it" ? "it-IT" : "en-GB");
  const form = `${key}.${rules[lang].select(n)}`;
  return lookup(lang, form) !== undefined || lookup("en", form) !== undefined ? form : `${key}.other`;
}

// plural("table.cards_in_hand", 1) -> "1 carta in mano": {n} is the count, written
// with the language's digit grouping.
const numbers = {}; // lang -> Intl.NumberFormat, made once: each costs to make
export function plural(key, n, params = {}) {
  return t(pluralKey(key, n), { ...params, n: formatNumber(n) });
}

// n as the language writes it. The first Intl.NumberFormat of a page costs tens of
// milliseconds on a slow phone (its locale data): a whole number below 1000 is written
// the same in both languages (no grouping, "-" for minus), so it does without one.
export function formatNumber(n) {
  if (Number.isInteger(n) && Math.abs(n) < 1000) return String(n);
  numbers[current] ??= new Intl.NumberFormat(current === "it" ? "it-IT" : "en-GB");
  return numbers[current].format(n);
}

export function hasKey(key, lang = current) {
  return lookup(lang, key) !== undefined;
}

export function keys(lang) {
  return Object.keys(catalogs[lang] || {});
}
