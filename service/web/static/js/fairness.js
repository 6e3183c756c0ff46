// The fairness page: the report as figures (inline SVG), verdicts and "my luck".
import { $, fill, h } from './dom.js';
import { formatLocale, has, loadCatalogs, t, translatePage } from './i18n.js';
import { ApiProblem } from './api.js';
import { errorText } from './problems.js';

const SVG = 'http://www.w3.org/2000/svg';

function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

// Numbers as the reader writes them (a decimal comma in Russian, Latin digits in Nepali).
const formats = new Map();
function numberFormat(options) {
  const id = JSON.stringify(options);
  if (!formats.has(id)) formats.set(id, new Intl.NumberFormat(formatLocale(), options));
  return formats.get(id);
}
const fixed = (digits, sign = 'auto') => numberFormat({ minimumFractionDigits: digits, maximumFractionDigits: digits, signDisplay: sign });
const fmt = (x, digits = 3) => (x === null || x === undefined ? '–' : fixed(digits).format(x));
const signed = (x) => (x === null || x === undefined ? '–' : fixed(3, 'exceptZero').format(x));
const pValue = (p) => (p < 0.001 ? `< ${fmt(0.001)}` : numberFormat({ maximumSignificantDigits: 2 }).format(p));
const fmtP = (p) => (p === null || p === undefined ? t('fairness.tooFewHands') : p < 0.001 ? `< ${fmt(0.001)}` : fmt(p));

// -- the report's codes in the reader's words ---------------------------------------------
const gameName = (code) => (has(`common.game.${code}`) ? t(`common.game.${code}`) : code);
const tableParams = (tbl) => ({ ...tbl.title_params, table: tbl.table, game: gameName(tbl.title_code) });
// A code this page does not know yet (a newer server) shows as its `other` message.
const tableTitle = (tbl) => t(has(`fairness.table.${tbl.title_code}`) ? `fairness.table.${tbl.title_code}` : 'fairness.table.other', tableParams(tbl));
const tableShort = (tbl) => t(has(`fairness.tableShort.${tbl.title_code}`) ? `fairness.tableShort.${tbl.title_code}` : 'fairness.tableShort.other', tableParams(tbl));
const featureTitle = (f) => (has(`fairness.feature.${f.title_code}`) ? t(`fairness.feature.${f.title_code}`, f.title_params || {}) : f.feature);
const featureShort = (f) => (has(`fairness.featureShort.${f.title_code}`) ? t(`fairness.featureShort.${f.title_code}`, f.title_params || {}) : f.feature);
const groupLabel = (g) => t(has(`fairness.group.${g.label_code}`) ? `fairness.group.${g.label_code}` : 'fairness.group.other', { ...g.label_params, group: g.group });
const expectation = (f) => (has(`fairness.expect.${f.expectation_code}`) ? t(`fairness.expect.${f.expectation_code}`) : f.expectation_code);

/** A row's verdict: its figures written as the reader writes numbers. */
function rowVerdict(g) {
  const p = g.verdict_params || {};
  const figures = {
    observed: fmt(p.observed), expected: fmt(p.expected), difference: signed(p.difference),
    low: signed(p.low), high: signed(p.high), p: p.p_adjusted === undefined ? '–' : pValue(p.p_adjusted),
    direction: p.direction || 'other',
  };
  return t(`fairness.verdict.row.${g.verdict_code}`, figures);
}
const featureVerdict = (f) => t(`fairness.verdict.feature.${f.verdict_code}`);
const reportVerdict = (r) => t(`fairness.verdict.report.${r.verdict_code}`, r.verdict_params);

async function getReport(params = {}) {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v)).toString();
  const res = await fetch('/fairness/report' + (query ? '?' + query : ''), { headers: { Accept: 'application/json' } });
  const body = await res.json();
  if (!res.ok) throw new ApiProblem(res.status, body);
  return body;
}

/** Bars: share of hands with each value, observed (solid) against expected (outline). */
function histogram(group, title) {
  const width = 320, height = 150, left = 34, bottom = 24, top = 8;
  const n = group.hands || 1;
  const obs = group.observed.map((c) => c / n);
  const exp = group.expected.map((e) => e / n);
  const max = Math.max(0.05, ...obs, ...exp);
  const k = group.values.length;
  const slot = (width - left - 4) / k;
  const y = (p) => top + (height - top - bottom) * (1 - p / max);
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': title });
  svg.append(s('title', {}, title));
  svg.append(s('line', { x1: left, x2: width, y1: y(0), y2: y(0), class: 'axis' }));
  svg.append(s('text', { x: left - 4, y: y(max) + 4, class: 'tick', 'text-anchor': 'end' }, `${Math.round(max * 100)}%`));
  svg.append(s('text', { x: left - 4, y: y(0), class: 'tick', 'text-anchor': 'end' }, '0'));
  group.values.forEach((v, i) => {
    const x = left + i * slot;
    const bw = Math.max(2, slot * 0.6);
    const bx = x + (slot - bw) / 2;
    const bar = s('rect', { x: bx, y: y(obs[i]), width: bw, height: y(0) - y(obs[i]), class: 'bar-obs' });
    bar.append(s('title', {}, t('fairness.barTitle', { value: v, observed: group.observed[i], expected: fmt(group.expected[i], 1) })));
    svg.append(bar);
    svg.append(s('rect', { x: bx - 2, y: y(exp[i]), width: bw + 4, height: y(0) - y(exp[i]), class: 'bar-exp' }));
    svg.append(s('text', { x: x + slot / 2, y: height - 8, class: 'tick', 'text-anchor': 'middle' }, v));
  });
  return svg;
}

/** One line per row: the difference from a fair deal and its 95% interval. */
function forest(rows, labelOf) {
  const width = 480, rowH = 28, left = 210, right = 12;
  const height = rowH * rows.length + 40;
  const mid = left + (width - left - right) / 2;
  const half = (width - left - right) / 2 - 4;
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart forest', role: 'img', 'aria-label': t('fairness.forestLabel') });
  svg.append(s('line', { x1: mid, x2: mid, y1: 0, y2: height - 34, class: 'axis' }));
  svg.append(s('text', { x: mid, y: height - 20, class: 'tick', 'text-anchor': 'middle' }, t('fairness.fairDeal')));
  svg.append(s('text', { x: left, y: height - 20, class: 'tick' }, t('fairness.fewer')));
  // One scale for every line: differences in units of a fair hand's spread,
  // so lines of different features compare; intervals longer than the scale are clipped.
  const unit = (row) => row.sd_expected || 1;
  const reach = Math.min(3, Math.max(0.5, ...rows.map((r) => Math.max(Math.abs(r.difference_ci95[0]), Math.abs(r.difference_ci95[1])) / unit(r))));
  svg.append(s('text', { x: width - right, y: height - 20, class: 'tick', 'text-anchor': 'end' }, t('fairness.more')));
  svg.append(s('text', { x: width - right, y: height - 4, class: 'tick', 'text-anchor': 'end' }, t('fairness.edge', { reach: fmt(reach, 1) })));
  rows.forEach((row, i) => {
    const cy = rowH * i + rowH / 2;
    const [lo, hi] = row.difference_ci95;
    const clip = (v) => Math.max(-reach, Math.min(reach, v));
    const x = (d) => mid + (clip(d / unit(row)) / reach) * half;
    const label = labelOf(row);
    const text = s('text', { x: 4, y: cy + 4, class: 'label' }, label.length > 34 ? label.slice(0, 33) + '…' : label);
    text.append(s('title', {}, label));
    svg.append(text);
    if (row.statistic !== null || row.hands > 0) {
      svg.append(s('line', { x1: x(lo), x2: x(hi), y1: cy, y2: cy, class: row.flagged ? 'ci ci-bad' : 'ci' }));
      const dot = s('circle', { cx: x(row.difference), cy, r: 5, class: row.flagged ? 'dot dot-bad' : 'dot' });
      dot.append(s('title', {}, t('fairness.dotTitle', { difference: signed(row.difference), lo: signed(lo), hi: signed(hi), hands: row.hands })));
      svg.append(dot);
    }
  });
  return svg;
}

function groupTable(feature) {
  return h('table', { className: 'list fair-rows' },
    h('thead', {}, h('tr', {},
      ['colWho', 'colHands', 'colAverage', 'colFair', 'colDifference', 'colAdjustedP', 'colVerdict'].map((key) => h('th', { scope: 'col' }, t(`fairness.${key}`))))),
    h('tbody', {}, feature.groups.map((g) => h('tr', { className: g.flagged ? 'flagged' : '' },
      h('td', {}, groupLabel(g)), h('td', {}, g.hands), h('td', {}, fmt(g.mean_observed)), h('td', {}, fmt(g.mean_expected)),
      h('td', {}, `${signed(g.difference)} (${signed(g.difference_ci95[0])} … ${signed(g.difference_ci95[1])})`),
      h('td', {}, pCell(feature, g)), h('td', {}, rowVerdict(g))))));
}

function pCell(feature, g) {
  if (feature.descriptive) return '–';
  return g.verdict_code === 'every-hand' ? t('fairness.notTested') : fmtP(g.p_adjusted);
}

function featureCard(feature) {
  const all = feature.groups.find((g) => g.group === 'all');
  const badge = { descriptive: 'info', flagged: 'bad', 'not-enough-hands': 'info' }[feature.verdict_code] || 'ok';
  const others = feature.groups.filter((g) => g.group !== 'all' && g.hands > 0);
  const title = featureTitle(feature);
  return h('article', { className: 'feature' },
    h('h4', {}, title),
    h('p', { className: `badge badge-${badge}` }, featureVerdict(feature)),
    all ? histogram(all, t('fairness.histogramTitle', { feature: title })) : null,
    all ? h('p', { className: 'hint' }, rowVerdict(all)) : null,
    h('p', { className: 'hint' }, feature.expectation_error
      ? t('fairness.expectationWithError', { expectation: expectation(feature), error: fmt(feature.expectation_error, 4) })
      : t('fairness.expectation', { expectation: expectation(feature) })),
    others.length ? h('details', {}, h('summary', {}, t('fairness.byGroup', { count: others.length })),
      forest(others, (g) => `${groupLabel(g)} (${g.hands})`), groupTable({ ...feature, groups: feature.groups })) : null);
}

function renderTables(report) {
  const container = $('#tables');
  if (!report.tables.length) {
    fill(container, h('section', { className: 'panel' }, h('p', {}, t('fairness.noGames'))));
    return;
  }
  fill(container, report.tables.map((tbl) => h('section', { className: 'panel', 'aria-label': tableTitle(tbl) },
    h('h2', {}, tableTitle(tbl)), h('p', { className: 'hint' }, t('fairness.handsCounted', { count: tbl.hands })),
    h('div', { className: 'features' }, tbl.features.map(featureCard)))));
}

function renderLuck(report, name) {
  const rows = [];
  for (const tbl of report.tables) {
    for (const f of tbl.features) {
      if (f.descriptive) continue;
      const what = t('fairness.luckWhat', { table: tableShort(tbl), feature: featureShort(f) });
      for (const g of f.groups) if (g.group === `player:${name}`) rows.push({ ...g, what });
    }
  }
  if (!rows.length) {
    fill($('#luck'), h('p', {}, t('fairness.noLuck', { name })));
    return;
  }
  fill($('#luck'), forest(rows, (r) => `${r.what} (${r.hands})`),
    h('ul', { className: 'luck-verdicts' }, rows.map((r) => h('li', {}, t('fairness.luckVerdict', { what: r.what, verdict: rowVerdict(r) })))));
}

async function main() {
  try {
    const report = await getReport();
    $('#verdict').textContent = reportVerdict(report);
    $('#verdict').dataset.code = report.verdict_code;
    const badge = { flagged: 'badge-bad', 'nothing-unusual': 'badge-ok' }[report.verdict_code] || 'badge-info';
    $('#verdict').className = `verdict ${badge}`;
    $('#totals').textContent = t('fairness.totals', {
      games: report.games, deals: report.deals, tests: report.tests,
      test: t(`fairness.test.${report.test_code}`, report.test_params),
      correction: t(`fairness.correction.${report.correction}`), alpha: numberFormat({ style: 'percent' }).format(report.alpha),
    });
    renderTables(report);
  } catch (err) {
    $('#verdict').textContent = t('fairness.loadFailed', { error: errorText(err) });
  }
  $('#luck-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = $('#luck-name').value.trim();
    $('#luck-error').textContent = '';
    if (!name) return;
    try {
      renderLuck(await getReport({ player: name }), name);
    } catch (err) {
      $('#luck-error').textContent = errorText(err);
    }
  });
}

loadCatalogs(['common', 'fairness', 'problems']).then(() => {
  translatePage();
  main();
});
