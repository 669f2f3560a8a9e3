// Showing what a move did after the board is redrawn from the server's view: the played
// card comes from its player, captured cards fly to the side's pile. Copies fly in a
// layer above the board and are removed at the end; the board itself is never changed,
// so an animation can never show a state the server did not send.
// With prefers-reduced-motion nothing moves.
import { cardElement } from "./cards.js";
import { reducedMotion } from "./table-dom.js";

// Where things were before the redraw: cards by code, seats by number.
export function snapshot(root) {
  const cards = new Map();
  for (const el of root.querySelectorAll(".table-card[data-code], .hand-card[data-code], .mini-cards .card[data-code]")) {
    if (!cards.has(el.dataset.code) || el.classList.contains("table-card")) cards.set(el.dataset.code, el.getBoundingClientRect());
  }
  const seats = new Map();
  for (const el of root.querySelectorAll(".seat[data-seat]")) seats.set(Number(el.dataset.seat), el.getBoundingClientRect());
  return { cards, seats };
}

function layer() {
  let el = document.querySelector(".fly-layer");
  if (!el) {
    el = document.createElement("div");
    el.className = "fly-layer";
    el.setAttribute("aria-hidden", "true");
    document.body.append(el);
  }
  return el;
}

function place(el, rect) {
  el.style.left = `${rect.left}px`;
  el.style.top = `${rect.top}px`;
  el.style.width = `${rect.width}px`;
  el.style.height = `${rect.height}px`;
}

function centerOf(rect, w, hgt) {
  return { left: rect.left + rect.width / 2 - w / 2, top: rect.top + rect.height / 2 - hgt / 2, width: w, height: hgt };
}

// Move `el` (placed at `base`) from rect `from` to rect `to`.
function flight(el, base, from, to, duration, delay = 0) {
  const step = (r) => `translate(${r.left - base.left}px,${r.top - base.top}px) scale(${r.width / base.width})`;
  return el.animate(
    [{ transform: step(from), opacity: 1 }, { transform: step(to), opacity: 0.9 }],
    { duration, delay, easing: "cubic-bezier(.3,.7,.4,1)", fill: "forwards" },
  ).finished;
}

// plays: engine "play" events of this batch, in order. side(seat) -> side number.
export async function animatePlays(root, before, plays, { side, style, lang }) {
  if (reducedMotion() || !plays.length || plays.length > 4 || typeof Element.prototype.animate !== "function") return;
  const fly = layer();
  const sample = root.querySelector(".table-card, .hand-card");
  const size = sample ? sample.getBoundingClientRect() : { width: 60, height: 90 };
  const w = size.width || 60;
  const hgt = size.height || 90;
  let delay = 0;
  const jobs = [];
  for (const play of plays) {
    const seatRect = before.seats.get(play.seat);
    const origin = before.cards.get(play.card) || (seatRect ? centerOf(seatRect, w, hgt) : null);
    if (!origin) continue;
    const from = { left: origin.left, top: origin.top, width: origin.width || w, height: origin.height || hgt };
    if (!play.captured.length) {
      const target = root.querySelector(`.table-card[data-code="${play.card}"]`);
      if (!target) continue;
      const to = target.getBoundingClientRect();
      const dx = from.left - to.left;
      const dy = from.top - to.top;
      jobs.push(target.animate(
        [{ transform: `translate(${dx}px,${dy}px)` }, { transform: "translate(0,0)" }],
        { duration: 380, delay, easing: "ease-out", fill: "backwards" },
      ).finished.catch(() => {}));
      delay += 200;
      continue;
    }
    const pile = root.querySelector(`.pile[data-side="${side(play.seat)}"] .pile-stack`) ||
      root.querySelector(`.seat[data-seat="${play.seat}"]`);
    const pileRect = pile ? pile.getBoundingClientRect() : null;
    const firstTaken = before.cards.get(play.captured[0]);
    const meet = firstTaken ? { left: firstTaken.left + 12, top: firstTaken.top + 12, width: firstTaken.width, height: firstTaken.height } : from;
    const moving = [];
    const played = cardElement(play.card, { style, lang, label: false });
    played.classList.add("flying");
    place(played, from);
    fly.append(played);
    moving.push(played);
    const taken = [];
    for (const code of play.captured) {
      const rect = before.cards.get(code);
      if (!rect) continue;
      const el = cardElement(code, { style, lang, label: false });
      el.classList.add("flying");
      place(el, rect);
      fly.append(el);
      moving.push(el);
      taken.push({ el, rect });
    }
    const job = (async () => {
      try {
        await flight(played, from, from, meet, 320, delay);
        if (!pileRect) return;
        const dest = { ...centerOf(pileRect, w * 0.6, hgt * 0.6) };
        const last = [flight(played, from, meet, dest, 480)];
        for (const { el, rect } of taken) last.push(flight(el, rect, rect, dest, 480));
        await Promise.all(last);
      } catch {
        // cancelled: nothing to do
      } finally {
        for (const el of moving) el.remove();
        if (pile) pile.classList.add("pulse");
      }
    })();
    jobs.push(job);
    delay += 350;
  }
  await Promise.all(jobs);
}

// Stops every flight at once (the score sheet opens over the board: nothing may fly
// over it). The cards flying are only copies: the board already shows the outcome.
export function finishFlights() {
  for (const el of document.querySelectorAll(".fly-layer .flying")) {
    for (const a of el.getAnimations ? el.getAnimations() : []) a.cancel();
    el.remove();
  }
}
