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
// so a missing string is visible rather than blank.
export function t(key, params = {}) {
  const text = catalogs[current][key] ?? catalogs.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

export function hasKey(key, lang = current) {
  return key in catalogs[lang];
}

export function keys(lang) {
  return Object.keys(catalogs[lang]);
}
