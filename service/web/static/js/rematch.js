// Rematch: at an ended table, each person asks to play the same game again with the same
// seats and rules (POST /games/{id}/rematch; bots always agree). The panel says who has
// asked and who is still awaited, and looks again every few seconds (a bounded wait) until
// the next game is open; then it keeps this seat's place there in the browser (the seat's
// token, given only to the old seat's own token) and takes the player to it. The old seat
// link leads there too: opened on any device, this table shows the same panel.
import { gamePath, getJson, keepSeat, postJson } from './api.js';
import { $, fill, h } from './dom.js';
import { nameList } from './events.js';
import { t } from './i18n.js';
import { errorText } from './problems.js';

const LOOK_EVERY_MS = 3000;
const LOOK_FOR_MS = 15 * 60 * 1000;

let panel = null;
let held = null; // {token, seat, name}
let gameId = null;
let seats = [];
let status = null; // the last answer of /rematch
let looking = null; // the timer of the next look
let lookUntil = 0;
let busy = false;
let asked = false; // this page asked: it goes to the next game by itself once it opens

const nameOf = (s) => seats[s]?.name || t('seats.seatNumber', { number: s + 1 });
const people = (list) => list.filter((s) => !seats[s]?.bot);

/** Keep this seat's place in the next game in this browser (its seat link there). */
function keepNext(next) {
  keepSeat(next.game_id, { token: next.token, seat: next.seat, name: held.name ?? nameOf(held.seat) });
}

function draw(message = '') {
  const mine = status && status.confirmed.includes(held.seat);
  const others = status ? people(status.confirmed).filter((s) => s !== held.seat) : [];
  const lines = [];
  if (others.length && !mine) lines.push(
      t('play.rematch.others', { count: others.length, names: nameList(others.map(nameOf)) }),
    );
  if (mine) lines.push(t('play.rematch.asked'));
  if (mine && status.waiting_for.length)
    lines.push(t('play.rematch.waiting', { names: nameList(status.waiting_for.map(nameOf)) }));
  if (status && status.next) lines.push(t('play.rematch.ready'));
  const ask = h(
    'button',
    { type: 'button', className: 'primary', id: 'rematch-ask', disabled: busy, onclick: askNow },
    t('play.rematch.ask'),
  );
  fill(
    panel,
    h('h2', { id: 'rematch-h' }, t('play.rematch.title')),
    h('p', { className: 'hint' }, t('play.rematch.hint')),
    lines.map((line) => h('p', { className: 'rematch-line' }, line)),
    status && status.next
      ? h(
          'a',
          {
            className: 'button primary',
            id: 'rematch-go',
            href: `/table/${encodeURIComponent(status.next.game_id)}`,
          },
          t('play.rematch.go'),
        )
      : mine
        ? null
        : ask,
    h('p', { id: 'rematch-msg', className: 'error', role: 'alert' }, message),
  );
}

function settle(answer) {
  status = answer;
  if (answer.next) {
    keepNext(answer.next);
    draw();
    if (asked) window.location.assign(`/table/${encodeURIComponent(answer.next.game_id)}`);
    return;
  }
  draw();
  // someone is awaited: look again a while (the next game opens when the last one asks)
  if (answer.confirmed.includes(held.seat) && Date.now() < lookUntil) {
    window.clearTimeout(looking);
    looking = window.setTimeout(look, LOOK_EVERY_MS);
  }
}

async function look() {
  try {
    settle(await getJson(`${gamePath(gameId)}/rematch`, held.token));
  } catch (error) {
    draw(t('play.rematch.failed', { reason: errorText(error) }));
  }
}

async function askNow() {
  if (busy) return;
  busy = true;
  asked = true;
  lookUntil = Date.now() + LOOK_FOR_MS;
  draw();
  try {
    const answer = await postJson(`${gamePath(gameId)}/rematch`, {}, held.token);
    busy = false;
    settle(answer);
  } catch (error) {
    busy = false;
    draw(t('play.rematch.failed', { reason: errorText(error) }));
  }
}

/** Show the panel at an ended table for the seat held here (`seat`: {token, seat} or null). */
export function renderRematch(view, seat, id) {
  const show = Boolean(seat) && view.status === 'ended';
  if (!show) {
    if (panel) panel.hidden = true;
    return;
  }
  held = seat;
  gameId = id;
  seats = view.seats;
  if (!panel) {
    panel = h('section', { id: 'rematch', className: 'panel rematch', 'aria-labelledby': 'rematch-h' });
    $('#summary').after(panel);
    lookUntil = Date.now() + LOOK_FOR_MS;
    draw();
    look(); // who asked already (and, on another device, where this seat plays next)
  }
  panel.hidden = false;
}
