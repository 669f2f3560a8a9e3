// A new account's deck follows the browser's language (Napoletane for Italian, French
// otherwise), saved once when the account is made: the player's later choice stands.
import { api } from "../api.js";
import { language } from "../i18n.js";

export function deckForLanguage(lang = language()) {
  return lang === "it" ? "napoletane" : "french";
}

// The user as the server has it after saving the deck (or unchanged if that fails:
// the deck is a nicety, never a reason to stop someone playing).
export async function firstDeck(user) {
  const style = deckForLanguage();
  if (!user || (user.options && user.options.deck_style === style)) return user;
  try {
    const data = await api("PUT", "/api/me/options", { deck_style: style });
    return data.user || user;
  } catch {
    return user;
  }
}
