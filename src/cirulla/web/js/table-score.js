// The running score in the table's header (docs/table-flow.md): each side's partita
// total, and beside it the scope and accusi it has made in the smazzata being played,
// as they happen (the view's piles carry them), so the header never says 0-0 while the
// seats show points already won.
import { t } from "./i18n.js";
import { h } from "./table-dom.js";

// What side `i` has made so far in the smazzata being played: {scope, bonus}, or null
// between smazzate (the totals hold them then) and before the first deal.
export function currentPoints(view, side) {
  const d = view.deal;
  if (!d || d.is_over || view.status !== "playing") return null;
  const pile = d.piles && d.piles[side];
  if (!pile) return null;
  return { scope: pile.scope || 0, bonus: pile.bonus || 0 };
}

// The header's <dl>: a side's name, its partita total, its scope and accusi now; then
// the target (or the number of smazzate). Null before the partita has totals.
export function runningScore(view, sideNames) {
  const totals = view.totals;
  if (!totals) return null;
  const items = sideNames.map((name, i) => {
    const now = currentPoints(view, i);
    const chips = [];
    if (now && now.scope) chips.push(h("span", { class: "now-scope" }, t("table.pile.scope", { n: now.scope })));
    if (now && now.bonus) chips.push(h("span", { class: "now-bonus" }, t("table.pile.bonus", { n: now.bonus })));
    const title = chips.length ? t("table.score.current", { items: chips.map((c) => c.textContent).join(", ") }) : null;
    return [
      h("dt", { class: `side-${i}`, title: name }, name),
      h("dd", { dataset: { side: i, scope: now ? now.scope : null, bonus: now ? now.bonus : null }, title },
        h("span", { class: "partita-total" }, String(totals[i] ?? 0)),
        chips.length ? h("span", { class: "now-points" }, chips) : null),
    ];
  });
  const rules = view.deal ? view.deal.rules : null;
  return h("dl", { class: "totals running-score" },
    items,
    h("dt", { class: "target" }, rules && rules.hands ? t("table.length.hands_label") : t("table.length.target_label")),
    h("dd", { class: "target" }, String(rules ? (rules.hands ?? rules.target) : "")));
}
