// "My statistics": counted in this browser from the games it holds a seat in (the same
// seat history as "My games"): per game kind, the finished games, those won and their
// share, the games still being played, and Azi's chips won or lost. Nothing is sent to the
// server but each game's own view, read with its seat's token.
import { gamePath, getJson, heldGames, seatOf } from './api.js';
import { $, fill, h } from './dom.js';
import { loadCatalogs, locale, t, translatePage } from './i18n.js';

const GAMES = ['murlan', 'hazari', 'azi'];

/** Whether the seat `seat` won the finished game of `view`. */
export function won(view, seat) {
  const r = view.result || {};
  if (view.game === 'azi') return (r.results || [])[seat] > 0;
  return (r.winners || []).includes(seat);
}

/** Per game kind {finished, won, playing, chips} from [{view, seat}] (view null: gone). */
export function tally(games) {
  const out = Object.fromEntries(GAMES.map((g) => [g, { finished: 0, won: 0, playing: 0, chips: 0 }]));
  let gone = 0;
  for (const { view, seat } of games) {
    if (!view || !out[view.game]) {
      gone += 1;
      continue;
    }
    const row = out[view.game];
    if (view.status === 'ended' && !view.abandoned) {
      row.finished += 1;
      if (won(view, seat)) row.won += 1;
      if (view.game === 'azi') row.chips += (view.result?.results || [])[seat] || 0;
    } else if (view.status === 'seating' || view.status === 'playing') {
      row.playing += 1;
    }
  }
  return { rows: out, gone };
}

function line(head, row) {
  const number = new Intl.NumberFormat(locale());
  const percent = new Intl.NumberFormat(locale(), { style: 'percent' });
  const cell = (value) => h('td', { className: 'num' }, value);
  return h(
    'tr',
    { dataset: { game: head.game || 'all' } },
    h('th', { scope: 'row' }, head.label),
    cell(number.format(row.finished)),
    cell(number.format(row.won)),
    cell(row.finished ? percent.format(row.won / row.finished) : '–'),
    cell(number.format(row.playing)),
  );
}

function draw({ rows, gone }) {
  const total = { finished: 0, won: 0, playing: 0 };
  for (const g of GAMES) for (const k of Object.keys(total)) total[k] += rows[g][k];
  fill(
    $('#stats tbody'),
    GAMES.map((game) => line({ game, label: t(`common.game.${game}`) }, rows[game])),
  );
  fill($('#stats tfoot'), line({ label: t('stats.total') }, total));
  const azi = rows.azi;
  $('#stats-chips').textContent = azi.finished
    ? t('stats.aziChips', { count: azi.finished, chips: azi.chips })
    : '';
  $('#stats-gone').textContent = gone ? t('stats.gone', { count: gone }) : '';
}

async function start() {
  const ids = heldGames();
  const games = await Promise.all(
    ids.map(async (id) => {
      const held = seatOf(id);
      try {
        // the public view: the results are public, and a seat's own request would bring it
        // back from away
        return { view: await getJson(gamePath(id)), seat: held?.seat };
      } catch {
        return { view: null, seat: held?.seat };
      }
    }),
  );
  $('#stats-loading').hidden = true;
  $('#stats-empty').hidden = ids.length > 0;
  $('#stats-panel').hidden = ids.length === 0;
  if (ids.length) draw(tally(games));
}

loadCatalogs(['common', 'stats']).then(() => {
  translatePage();
  start();
});
