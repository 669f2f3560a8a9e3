// How the lobby lists a Cirulo table (pages/lobby.js): the game, players, hands and
// the point value (when the server's summary carries it).
import { t } from "./i18n.js";

export function isCirulo(tbl) {
  return tbl.game === "cirulo";
}

// "Cirulo · 5 giocatori · 5 mani · 2 fiches a punto" (the clocks are added by the lobby).
export function ciruloMeta(tbl) {
  const parts = [t("cirulo.name"), t("lobby.players", { n: tbl.players }), t("cirulo.lobby.hands", { n: tbl.hands ?? tbl.players })];
  const pv = tbl.point_value ?? (tbl.options && tbl.options.point_value) ?? null;
  if (pv !== null) parts.push(t("cirulo.lobby.point_value", { n: pv }));
  return parts;
}
