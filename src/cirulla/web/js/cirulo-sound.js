// What a batch of Cirulo table records sounds like (docs/sound.md), for TableSound
// (table-sound.js), which adds the player's turn and the clock's last seconds. A card
// played; a trick gathered, with a clink of coins when it is encirculated (CI4: it
// costs its winner); the end of the game. Cirulo has no sides and no winner, so the
// end sounds as a win or a loss by the sign of the player's own balance.
import { parseAmount } from "./cirulo-panels.js";

export function ciruloSounds(records, view) {
  const out = [];
  for (const rec of records) {
    for (const e of rec.events || []) {
      if (e.type === "play") out.push("play");
      else if (e.type === "trick") out.push(e.encirculated ? "coins" : "trick");
    }
    if (rec.type === "ended") out.push(endSound(rec, view));
  }
  return out;
}

// "lose" for the player who abandoned or ran out of time, else the sign of their
// balance; "end" for a spectator and for an even balance.
function endSound(rec, view) {
  const you = view.you ?? null;
  if (you === null) return "end";
  if (view.forfeit && view.forfeit.seat === you) return "lose";
  const { n } = parseAmount((rec.totals || view.totals || [])[you] ?? 0);
  return n > 0 ? "win" : n < 0 ? "lose" : "end";
}
