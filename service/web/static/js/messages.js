// Preset table messages: a seated player says one of a short fixed list (Hello!, Good
// luck!, …) with one tap; everyone at the table sees it for a few seconds beside the seat
// that said it. Only the code goes over the wire (POST /games/{id}/messages; the live
// stream's `message` lines): each page words it in its player's language, so there is no
// free text and nothing to moderate. The server allows a seat one message every 3 s; the
// buttons rest for as long after each, and a refusal is said. A table without its live
// stream (polling while the server has none to spare) reads the messages said since the
// last one it has (GET …/messages?after=<id>) at each look; each message is shown once,
// however it came (the stream, a look, this seat's own answer).
import { gamePath, getJson, postJson } from './api.js';
import { $, fill, h } from './dom.js';
import { t } from './i18n.js';
import { errorText } from './problems.js';

export const CODES = ['hello', 'good_luck', 'well_played', 'thanks', 'oops', 'good_game'];
const SHOWN_MS = 8000;
const REST_MS = 3000;

let bar = null;
let held = null;
let gameId = null;
let resting = false;
const latest = new Map(); // seat -> {id, code, until}
const SEEN_KEPT = 200;
const seen = new Set(); // the ids of the messages shown (the latest SEEN_KEPT)
let cursor = null; // the id of the latest message heard, for the next look (null: none yet)

/** A message id (`<ms>-<n>`) as a pair of numbers, to tell which came later. */
const idParts = (id) => String(id).split('-').map(Number);
function isLater(a, b) {
  const [am, an] = idParts(a);
  const [bm, bn] = idParts(b);
  return am > bm || (am === bm && an > bn);
}

async function say(code) {
  if (!held || resting) return;
  resting = true;
  drawBar();
  const message = $('#say-msg');
  message.textContent = '';
  try {
    heard(await postJson(`${gamePath(gameId)}/messages`, { code }, held.token));
  } catch (error) {
    message.textContent = t('play.say.failed', { reason: errorText(error) });
  }
  window.setTimeout(() => {
    resting = false;
    drawBar();
  }, REST_MS);
}

function drawBar() {
  if (!bar) return;
  for (const button of bar.querySelectorAll('button')) button.disabled = resting;
}

function build() {
  bar = h(
    'div',
    { id: 'say', className: 'say', role: 'group', 'aria-labelledby': 'say-label' },
    h('span', { id: 'say-label', className: 'lbl' }, t('play.say.label')),
    CODES.map((code) =>
      h(
        'button',
        { type: 'button', className: 'say-code', dataset: { code }, onclick: () => say(code) },
        t(`play.say.code.${code}`),
      ),
    ),
    h('span', { id: 'say-msg', className: 'error', role: 'alert' }),
  );
  $('#seats').after(bar);
}

/** Draw the seats' latest messages (the seat boxes are redrawn with every view). */
function drawBubbles() {
  const now = Date.now();
  for (const [seat, said] of latest) {
    const box = document.querySelector(`#seats .seat[data-seat="${seat}"]`);
    if (!box) continue;
    let bubble = box.querySelector('.said');
    if (said.until <= now) {
      if (bubble) bubble.remove();
      latest.delete(seat);
      continue;
    }
    if (!bubble) {
      bubble = h('p', { className: 'said', 'aria-live': 'polite' });
      box.append(bubble);
    }
    bubble.dataset.code = said.code;
    bubble.dataset.id = said.id;
    fill(bubble, t(`play.say.code.${said.code}`));
  }
}

/** A message said at the table (from the live stream, a look while polling, or this seat's
 * own answer); one already shown is not shown again. */
export function heard(message) {
  if (!CODES.includes(message.code) || seen.has(message.id)) return;
  seen.add(message.id);
  if (seen.size > SEEN_KEPT) seen.delete(seen.values().next().value);
  if (cursor === null || isLater(message.id, cursor)) cursor = message.id;
  latest.set(message.seat, { id: message.id, code: message.code, until: Date.now() + SHOWN_MS });
  drawBubbles();
  window.setTimeout(drawBubbles, SHOWN_MS + 50);
}

/** After each view: the buttons for a seat held here while the game is on, and the
 * bubbles again on the redrawn seats. */
export function renderMessages(view, seat, id) {
  held = seat;
  gameId = id;
  const show = Boolean(seat) && view.status !== 'ended';
  if (show && !bar) build();
  if (bar) bar.hidden = !show;
  drawBubbles();
}

/** One look at the table's messages while it polls: those said since the latest heard. The
 * first look of a table that has heard none only finds where they stand (what was said
 * before is not news, as a live stream would not have brought it either). */
export async function pollMessages(id, token) {
  const path = `${gamePath(id)}/messages`;
  if (cursor === null) {
    const page = await getJson(path, token);
    const last = page.items[page.items.length - 1];
    if (cursor === null) cursor = last ? last.id : '0-0';
    return;
  }
  const page = await getJson(`${path}?after=${encodeURIComponent(cursor)}`, token);
  for (const message of page.items) heard(message);
}
