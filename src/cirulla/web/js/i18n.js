// Every string the client shows comes from a catalog: pages (i18n/<lang>.js), the
// table (i18n/table.<lang>.js) and Cirulo (i18n/cirulo.<lang>.js). Game words stay
// Italian in both languages.
import ciruloEn from "../i18n/cirulo.en.js";
import ciruloIt from "../i18n/cirulo.it.js";
import en from "../i18n/en.js";
import it from "../i18n/it.js";
import tableEn from "../i18n/table.en.js";
import tableIt from "../i18n/table.it.js";

export const LANGUAGES = ["it", "en"];
const catalogs = { it: { ...it, ...tableIt, ...ciruloIt }, en: { ...en, ...tableEn, ...ciruloEn } };
let current = preferredLanguage();

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

export function language() {
  return current;
}

export function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) return;
  current = lang;
  localStorage.setItem("cirulla.language", lang);
  document.documentElement.lang = lang;
  window.dispatchEvent(new CustomEvent("languagechange", { detail: { lang } }));
}

// t("lobby.seats", {n: 3}) -> the string with {n} filled in; the key itself if missing,
// so a missing string is visible rather than blank. A key written in plural forms
// ("key.one", "key.other", ...) is chosen by the count in {n} (see plural()).
export function t(key, params = {}) {
  const forms = catalogs[current][key] === undefined && typeof params.n === "number";
  const chosen = forms ? pluralKey(key, params.n) : key;
  const text = catalogs[current][chosen] ?? catalogs.en[chosen] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

// The language's plural rules (Intl.PluralRules): "key.one" for 1 in both languages,
// "key.many" where Italian has it, "key.other" otherwise.
const rules = {};
export function pluralKey(key, n, lang = current) {
  rules[lang] ??= new Intl.PluralRules(lang === "it" ? "it-IT" : "en-GB");
  const form = `${key}.${rules[lang].select(n)}`;
  return form in catalogs[lang] || form in catalogs.en ? form : `${key}.other`;
}

// plural("table.cards_in_hand", 1) -> "1 carta in mano": {n} is the count, written
// with the language's digit grouping.
export function plural(key, n, params = {}) {
  return t(pluralKey(key, n), { ...params, n: new Intl.NumberFormat(current === "it" ? "it-IT" : "en-GB").format(n) });
}

export function hasKey(key, lang = current) {
  return key in catalogs[lang];
}

export function keys(lang) {
  return Object.keys(catalogs[lang]);
}
