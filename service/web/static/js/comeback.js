// "I'm back": a seat marked away (it missed its turns, so a bot plays it) is taken back by
// the player from the open page, without reloading. The seat's own authenticated request is
// what brings it back on the server (docs/api.md, "Turn limits, away seats"): the button asks for the
// seat's view once, and the stream then brings the SeatBack event and the new view.
import { gamePath, getJson } from './api.js';
import { $, h } from './dom.js';
import { t } from './i18n.js';
import { errorText } from './problems.js';

let bar = null;
let held = null; // the seat this page holds: {token, seat, name}
let asking = false;

async function comeBack(gameId) {
  if (asking || !held) return;
  asking = true;
  const button = $('#im-back');
  button.disabled = true;
  $('#away-msg').textContent = '';
  try {
    await getJson(gamePath(gameId), held.token);
  } catch (error) {
    $('#away-msg').textContent = t('play.back.failed', { reason: errorText(error) });
  } finally {
    asking = false;
    button.disabled = false;
  }
}

function build(gameId) {
  const button = h(
    'button',
    { type: 'button', className: 'primary', id: 'im-back', onclick: () => comeBack(gameId) },
    t('play.back.button'),
  );
  bar = h(
    'div',
    { id: 'away-bar', className: 'away-bar panel', role: 'status', hidden: true },
    h('p', { id: 'away-text' }, t('play.back.text')),
    button,
    h('p', { id: 'away-msg', className: 'error', role: 'alert' }),
  );
  $('#status').after(bar);
}

/** Show the bar while the seat held here (`seat`: {token, seat} or null) is away. */
export function renderComeback(view, seat, gameId) {
  held = seat;
  const away = Boolean(seat) && view.status === 'playing' && (view.away || []).includes(seat.seat);
  if (!bar) {
    if (!away) return;
    build(gameId);
  }
  bar.hidden = !away;
}
