// The parts of a Cirulla table's page that one does not need to make a move: sound,
// the "Opzioni" popover, chat, the practice coach, the cards' flights and the score
// sheet. table.js draws the board without them and loads this module once the board is
// drawn, so that on a phone none of their bytes or requests stand between the page and
// the player's first move (benchmarks/web_weight.py); adoptExtras then adds them where
// nothing on the board moves because of it.
import { chatPanel } from "./chat.js";
import { scoreSheet } from "./scoresheet.js";
import { animatePlays, finishFlights, snapshot } from "./table-anim.js";
import { TableCoach } from "./table-coach.js";
import { tableOptions } from "./table-options.js";
import { TableSound } from "./table-sound.js";

export { animatePlays, finishFlights, scoreSheet, snapshot };

// The page's parts, made for `page` (a TablePage) and its context.
export function makeExtras(page, ctx) {
  return {
    sound: new TableSound(page.conn, page.id),
    options: tableOptions(page, ctx),
    chat: chatPanel({ conn: page.conn, chat: page.id }), // js/chat.js
    coach: new TableCoach(page), // the hint at practice tables (table-coach.js)
  };
}

// The parts arrive at `page` (a TablePage; `x` this module): the options' popover takes
// its button's place, chat goes below the table, the coach's button at the end of the
// turn bar and its hint on the board; the board is not drawn again (a card may be
// under the player's finger). The sound hears the calls made before; the popover opens
// if its button was opened before it came.
export function adoptExtras(page, x) {
  Object.assign(page, makeExtras(page, page.ctx));
  page.x = x;
  // a player who opened the button meanwhile finds the popover open, focus kept
  const placeholder = page.optionsButton;
  const focused = placeholder.contains(document.activeElement);
  placeholder.replaceWith(page.options.el);
  if (placeholder.open) page.options.el.open = true;
  if (focused) page.options.el.querySelector("summary")?.focus();
  page.root.querySelector(".table-body")?.after(page.chat.el);
  const calls = page.soundCalls;
  page.soundCalls = null;
  for (const [name, ...args] of calls) page.sound[name](...args);
  const v = page.view;
  if (!v) return;
  if (v.status === "finished") {
    page.render({ records: [], animate: false }); // the sheet is part of the end's page
    return;
  }
  const board = page.els.main.querySelector(".board");
  if (v.status !== "playing" || !board) return;
  page.coach.mark(board, v);
  const hint = page.coach.button(v, page.myTurn());
  if (hint) page.els.turnbar.append(hint);
  page.renderSheet(page.sideNames());
}
