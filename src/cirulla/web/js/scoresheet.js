// The score sheet of a smazzata (S9: every item per side), the partita's totals, and
// a small SVG chart of the totals after each smazzata.
import { plural, t } from "./i18n.js";
import { h } from "./table-dom.js";

export const ITEMS = ["scope", "bonus", "cards", "diamonds", "settebello", "primiera", "grande", "piccola"];
const SVG = "http://www.w3.org/2000/svg";

// The items a game scores: Scopa has no accusi, grande or piccola.
export function itemsFor(rules) {
  if (rules && rules.game === "scopa") return ITEMS.filter((i) => !["bonus", "grande", "piccola"].includes(i));
  return ITEMS;
}

function itemLabel(item, rules) {
  if (rules && rules.dossena && (item === "grande" || item === "piccola")) return t(`score.item.${item}.dossena`);
  return t(`score.item.${item}`);
}

// Running totals after each smazzata: [[side totals after deal 0], ...].
export function runningTotals(scores, sides) {
  const out = [];
  let sum = Array(sides).fill(0);
  for (const sheet of scores) {
    if (sheet && sheet.sides) sum = sum.map((v, i) => v + (sheet.sides[i]?.total ?? 0));
    out.push([...sum]);
  }
  return out;
}

// sheet: {sides: [{scope, ..., total}], details, cappotto}; sideNames: a name per side.
export function scoreTable(sheet, { sideNames, rules, caption, totals = null }) {
  const items = itemsFor(rules);
  const head = h("tr", {}, h("th", { scope: "col" }, t("score.item")), sideNames.map((n, i) => h("th", { scope: "col", class: `side-${i}` }, n)));
  const rows = items.map((item) =>
    h("tr", { dataset: { item } },
      h("th", { scope: "row" }, itemLabel(item, rules)),
      sheet.sides.map((side, i) => h("td", { class: side[item] ? "won" : "zero", dataset: { side: i } }, String(side[item] ?? 0)))));
  const total = h("tr", { class: "total", dataset: { item: "total" } },
    h("th", { scope: "row" }, t("score.item.total")),
    sheet.sides.map((side, i) => h("td", { dataset: { side: i } }, String(side.total ?? 0))));
  const partita = totals
    ? h("tr", { class: "partita", dataset: { item: "partita" } },
        h("th", { scope: "row" }, t("score.partita_total")),
        totals.map((v, i) => h("td", { dataset: { side: i } }, String(v))))
    : null;
  const details = sheet.details
    ? h("tr", { class: "details" },
        h("th", { scope: "row" }, t("score.details")),
        sheet.details.map((d, i) => h("td", { dataset: { side: i } },
          t("score.details.text", { cards: plural("table.count.cards", d.cards), diamonds: plural("table.count.diamonds", d.diamonds), primiera: d.primiera ?? "\u2013" }))))
    : null;
  return h("table", { class: "score-table" },
    caption ? h("caption", {}, caption) : null,
    h("thead", {}, head),
    h("tbody", {}, rows, total, details, partita));
}

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children) if (c) el.append(c);
  return el;
}

// A line per side: the partita's totals after each smazzata; the target as a dashed line.
export function totalsChart(points, { sideNames, target = null, width = 320, height = 150 }) {
  const sides = sideNames.length;
  const series = [Array(sides).fill(0), ...points];
  const top = Math.max(target || 0, ...series.flat(), 5);
  const pad = { l: 28, r: 8, t: 8, b: 20 };
  const w = width - pad.l - pad.r;
  const hgt = height - pad.t - pad.b;
  const n = Math.max(series.length - 1, 1);
  const x = (i) => pad.l + (w * i) / n;
  const y = (v) => pad.t + hgt - (hgt * v) / top;
  const desc = t("score.chart.desc", {
    n: points.length,
    totals: sideNames.map((name, i) => `${name} ${series[series.length - 1][i]}`).join(", "),
  });
  const chart = svg("svg", { class: "totals-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": desc });
  chart.append(svg("title", {}, document.createTextNode(desc)));
  chart.append(svg("line", { x1: pad.l, y1: y(0), x2: pad.l + w, y2: y(0), class: "axis" }));
  chart.append(svg("line", { x1: pad.l, y1: pad.t, x2: pad.l, y2: y(0), class: "axis" }));
  for (const v of [0, Math.round(top / 2), top]) {
    const label = svg("text", { x: pad.l - 4, y: y(v) + 4, class: "tick", "text-anchor": "end" });
    label.textContent = String(v);
    chart.append(label);
  }
  for (let i = 1; i <= n && series.length > 1; i += 1) {
    const label = svg("text", { x: x(i), y: height - 5, class: "tick", "text-anchor": "middle" });
    label.textContent = String(i);
    chart.append(label);
  }
  if (target) chart.append(svg("line", { x1: pad.l, y1: y(target), x2: pad.l + w, y2: y(target), class: "target" }));
  for (let s = 0; s < sides; s += 1) {
    const pts = series.map((row, i) => `${x(i).toFixed(1)},${y(row[s]).toFixed(1)}`).join(" ");
    chart.append(svg("polyline", { points: pts, class: `series side-${s}`, fill: "none" }));
    series.forEach((row, i) => chart.append(svg("circle", { cx: x(i).toFixed(1), cy: y(row[s]).toFixed(1), r: 2.5, class: `dot side-${s}` })));
  }
  const legend = h("ul", { class: "chart-legend" },
    sideNames.map((name, i) => h("li", { class: `side-${i}` }, h("span", { class: "swatch", "aria-hidden": "true" }), name)));
  return h("figure", { class: "chart" }, chart, legend);
}

// The whole panel: the sheet of smazzata `index` (default: the last), the partita's
// totals, the chart, and buttons to look at earlier smazzate.
export function scoreSheet({ scores, index = null, totals, sideNames, rules, onClose = null, title = null }) {
  const sheets = scores.map((s, i) => ({ s, i })).filter((x) => x.s && x.s.sides);
  const root = h("section", { class: "scoresheet", role: "region", "aria-label": t("score.title") });
  let current = index ?? (sheets.length ? sheets[sheets.length - 1].i : null);
  const target = rules && !rules.hands ? rules.target : null;
  const draw = () => {
    root.replaceChildren();
    root.append(h("h2", {}, title || t("score.title")));
    if (current !== null && scores[current]) {
      const running = runningTotals(scores.slice(0, current + 1), sideNames.length);
      const sheet = scores[current];
      root.append(scoreTable(sheet, {
        sideNames,
        rules,
        caption: t("score.smazzata", { n: current + 1 }),
        totals: running[running.length - 1],
      }));
      if (sheet.cappotto !== null && sheet.cappotto !== undefined) {
        root.append(h("p", { class: "cappotto" }, t("score.cappotto", { side: sideNames[sheet.cappotto] })));
      }
    } else {
      root.append(h("p", {}, t("score.none")));
    }
    if (sheets.length > 1) {
      root.append(h("nav", { class: "sheet-nav", "aria-label": t("score.pick") },
        sheets.map(({ i }) => h("button", {
          type: "button",
          class: "sheet-pick",
          "aria-pressed": String(i === current),
          onclick: () => { current = i; draw(); },
        }, String(i + 1)))));
    }
    const running = runningTotals(scores, sideNames.length).at(-1);
    if (totals && running && totals.some((v, i) => v !== running[i])) {
      root.append(h("p", { class: "partita-totals" },
        t("score.totals", { totals: sideNames.map((n, i) => `${n} ${totals[i]}`).join(" \u2013 ") })));
    }
    root.append(totalsChart(runningTotals(scores, sideNames.length).map((row, i) =>
      i === scores.length - 1 && totals ? totals : row), { sideNames, target }));
    if (onClose) root.append(h("button", { type: "button", class: "close-sheet primary", onclick: onClose }, t("score.close")));
  };
  draw();
  return root;
}
