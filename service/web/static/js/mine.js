// "My games": every game this browser holds a seat in (the seat links opened here, kept in
// localStorage), newest first, with its status and result; a finished game is verified in
// this browser with one click (verifier.js, from its replay document alone).
import { gamePath, getJson, heldGames, seatOf } from './api.js';
import { $, fill, h } from './dom.js';
import { list, loadCatalogs, t, translatePage } from './i18n.js';
import { verifyReplay } from './verifier.js';
import { verificationView } from './verifier-view.js';

const gameName = (game) => t(`common.game.${game}`);

function nameOf(seats, s) {
  return seats[s]?.name || t('common.seatN', { n: s + 1 });
}

function figures(seats, values) {
  return list(
    seats.map((s, i) => t('replay.nameFigure', { name: nameOf(seats, i), value: values[i] ?? 0 })),
    'unit',
  );
}

function resultText(view) {
  const r = view.result || {};
  const seats = view.seats;
  if (view.game === 'azi') return r.results ? t('replay.results', { list: figures(seats, r.results) }) : '';
  if (!r.scores) return '';
  const winners = r.winners || [];
  const names = list(winners.map((s) => nameOf(seats, s)));
  return winners.length
    ? t('replay.winnersAndScores', { count: winners.length, names, list: figures(seats, r.scores) })
    : t('replay.finalScores', { list: figures(seats, r.scores) });
}

async function verifyGame(gameId, token, box, button) {
  button.disabled = true;
  fill(box, h('p', { className: 'check-verdict wait' }, t('verifier.checking')));
  try {
    const doc = await getJson(`${gamePath(gameId)}/replay`, token);
    const result = await verifyReplay(doc, {
      onProgress: (done, total) => {
        const line = box.querySelector('.check-verdict');
        if (line) line.textContent = t('verifier.progress', { done, total });
      },
    });
    fill(box, verificationView(result, t));
  } catch (error) {
    fill(box, h('p', { className: 'check-verdict bad' }, t('mine.unreachable')));
  } finally {
    button.disabled = false;
  }
}

function row(gameId, held, view) {
  const box = h('div', { className: 'mine-check' });
  if (!view) {
    return h(
      'li',
      { className: 'panel', dataset: { game: gameId } },
      h('p', {}, h('span', { className: 'mono' }, gameId), ' · ', t('mine.gone')),
    );
  }
  const ended = view.status === 'ended';
  const verify = h('button', { type: 'button', className: 'primary verify' }, t('mine.verify'));
  verify.addEventListener('click', () => verifyGame(gameId, held.token, box, verify));
  return h(
    'li',
    { className: 'panel', dataset: { game: gameId, status: view.status } },
    h(
      'div',
      { className: 'mine-head' },
      h('strong', {}, gameName(view.game)),
      h('span', { className: 'mono hint' }, gameId),
      h('span', { className: 'tag' }, t(`mine.status.${view.status}`)),
      h('span', { className: 'hint' }, t('mine.you', { name: held.name ?? nameOf(view.seats, held.seat) })),
    ),
    h('p', { className: 'result' }, ended ? resultText(view) : t('mine.notOver')),
    h(
      'p',
      { className: 'row' },
      h('a', { href: `/table/${encodeURIComponent(gameId)}` }, t('common.table')),
      h('a', { href: `/replay/${encodeURIComponent(gameId)}` }, t('common.replay')),
      ended ? verify : null,
    ),
    box,
  );
}

async function start() {
  const ids = heldGames();
  $('#empty').hidden = ids.length > 0;
  const views = await Promise.all(
    ids.map(async (id) => {
      const held = seatOf(id);
      try {
        return { id, held, view: await getJson(gamePath(id), held?.token) };
      } catch {
        return { id, held, view: null };
      }
    }),
  );
  // the games still being played first, then the finished ones, then those the server
  // no longer has (the sort is stable: newest first within each)
  const rank = ({ view }) => (!view ? 2 : view.status === 'ended' ? 1 : 0);
  views.sort((a, b) => rank(a) - rank(b));
  fill($('#games'), views.map(({ id, held, view }) => row(id, held, view)));
}

loadCatalogs(['common', 'replay', 'verifier', 'mine', 'stats']).then(() => {
  translatePage();
  start();
});
