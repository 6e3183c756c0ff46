// The seat link: the table's address with the seat's token in the fragment
// (/table/<id>#seat=<token>). A fragment is never sent to the server (not in a request,
// not in a Referer), so the token stays out of every URL the server sees and logs.
// Opening the link keeps the seat in this browser and takes the token out of the
// address bar at once.
import { ApiProblem, gamePath, getJson, keepSeat } from './api.js';
import { $, h, fill } from './dom.js';
import { copyText } from './clipboard.js';
import { t } from './i18n.js';
import { errorText } from './problems.js';

const COPIED_PREFIX = 'cardroom.linkcopied.';

/** The token of a `#seat=<token>` fragment, taken out of the address bar (with
 * history.replaceState, so Back does not bring it back either); null without one. */
export function takeTokenFromAddress() {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const token = params.get('seat');
  if (token === null) return null;
  const url = new URL(window.location.href);
  url.hash = '';
  window.history.replaceState(window.history.state, '', url.pathname + url.search);
  return /^[A-Za-z0-9_-]{16,128}$/.test(token) ? token : '';
}

/** The seat link of a seat of this game. */
export function seatLink(gameId, token) {
  return `${window.location.origin}/table/${encodeURIComponent(gameId)}#seat=${encodeURIComponent(token)}`;
}

function remember(gameId) {
  try {
    window.localStorage.setItem(COPIED_PREFIX + gameId, '1');
  } catch {
    // storage refused: the reminder stays for this page
  }
}

export function linkCopied(gameId) {
  try {
    return window.localStorage.getItem(COPIED_PREFIX + gameId) === '1';
  } catch {
    return false;
  }
}

/** Open the seat a link's token holds: ask the game which seat it opens (the seat's own
 * view), keep {token, seat, name} in this browser and return it. A token the game
 * refuses, or one damaged on the way, gives a message instead (and null) that says
 * plainly what this page shows now: the seat `held` here before (if any), or the table
 * as a spectator. */
export async function adoptSeat(gameId, token, held = null) {
  const kept = held ? { seat: held.seat + 1 } : null;
  if (!token) {
    return {
      seat: null,
      message: kept ? t('play.link.damagedKept', kept) : t('seats.link.malformed'),
    };
  }
  try {
    const view = await getJson(gamePath(gameId), token);
    const seat = { token, seat: view.seat, name: view.seats[view.seat].name };
    keepSeat(gameId, seat);
    remember(gameId); // whoever opened the link has it already
    return { seat, message: '' };
  } catch (error) {
    if (error instanceof ApiProblem && (error.status === 401 || error.status === 403)) {
      return {
        seat: null,
        message: kept ? t('play.link.refusedKept', kept) : t('seats.link.refused'),
      };
    }
    return { seat: null, message: t('seats.link.failed', { reason: errorText(error) }) };
  }
}

/** A seat link pasted into this very tab changes only the address's fragment (no page
 * load): take its token out of the address and open its seat too. `opened(adopted)` gets
 * what {@link adoptSeat} returns. */
export function watchSeatLinks(gameId, held, opened) {
  window.addEventListener('hashchange', async () => {
    const token = takeTokenFromAddress();
    if (token === null) return;
    opened(await adoptSeat(gameId, token, held()));
  });
}

/** The seat link panel: open, as a warning, until the link was copied; then folded. */
export function renderSeatLink(view, seat, gameId) {
  const panel = $('#seat-link');
  const show = Boolean(seat) && view.status !== 'ended';
  panel.hidden = !show;
  if (!show) return;
  const link = seatLink(gameId, seat.token);
  const copied = linkCopied(gameId);
  panel.classList.toggle('unsaved', !copied);
  // Opened (with its explanation) while the table waits, right after the seat was taken;
  // during play only its warning line shows, so the hand stays near the top. The player's
  // own opening or closing stands until the table's status changes.
  if (panel.dataset.status !== view.status || panel.dataset.link !== link) {
    panel.open = !copied && view.status === 'seating';
  }
  panel.dataset.status = view.status;
  if (panel.dataset.link === link && panel.dataset.copied === String(copied)) return;
  panel.dataset.link = link;
  panel.dataset.copied = String(copied);
  const field = $('#seat-link-url');
  field.value = link;
  fill(
    $('#seat-link-summary'),
    copied ? t('seats.link.summarySaved') : t('seats.link.summaryUnsaved'),
  );
}

export function setUpSeatLink(gameId, currentSeat) {
  const button = $('#copy-seat-link');
  button.addEventListener('click', async () => {
    const seat = currentSeat();
    if (!seat) return;
    const field = $('#seat-link-url');
    const ok = await copyText(seatLink(gameId, seat.token), field);
    const message = $('#seat-link-msg');
    if (ok) {
      remember(gameId);
      fill(message, h('span', { className: 'ok' }, t('seats.link.copied')));
      const panel = $('#seat-link');
      panel.classList.remove('unsaved');
      panel.dataset.copied = 'true';
      fill($('#seat-link-summary'), t('seats.link.summarySaved'));
    } else {
      fill(message, t('seats.link.copyByHand'));
    }
  });
}
