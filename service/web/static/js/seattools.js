// What keeps a seat and a table moving, hooked into the table page: the seat link, the turn
// clock, the waiting table's bot and invitation controls, the away seat's "I'm back", the
// ended table's rematch, the preset table messages, and the your-turn title and
// notification. The table calls seatTools(gameId) once, start() before its stream,
// render(view, seat) after drawing each view, heard(message) for a stream's message and
// pollMessages(token) at each look of a table polling without its stream.
import { $ } from './dom.js';
import { loadCatalogs, t, translatePage } from './i18n.js';
import { seatOf } from './api.js';
import {
  adoptSeat,
  renderSeatLink,
  setUpSeatLink,
  takeTokenFromAddress,
  watchSeatLinks,
} from './seatlink.js';
import { renderComeback } from './comeback.js';
import { renderRematch } from './rematch.js';
import { heard, pollMessages, renderMessages } from './messages.js';
import { measureClock, renderClock } from './turnclock.js';
import { renderTurnAlerts, setUpNotify } from './notify.js';
import { renderWaiting, setUpWaiting } from './waiting.js';

const AREAS = ['seats', 'play'];
const PANELS = ['#turn-clock', '#waiting', '#seat-link', '#notify-row'];

export function seatTools(gameId) {
  // Taken out of the address bar before anything else runs.
  const linkToken = takeTokenFromAddress();
  let seat = null;
  return {
    /** Load this area's messages and open a seat link's seat: its seat, or null. */
    async start() {
      await loadCatalogs(AREAS);
      for (const id of PANELS) translatePage($(id));
      setUpSeatLink(gameId, () => seat);
      setUpWaiting(gameId);
      setUpNotify();
      measureClock();
      if (linkToken === null) return null;
      const adopted = await adoptSeat(gameId, linkToken, seatOf(gameId));
      if (adopted.message) $('#error').textContent = adopted.message;
      return adopted.seat;
    },
    /** A seat link pasted into this tab later: `opened(seat)` with the seat it opened (the
     * table then streams as that seat); a link that opens none is said in #error. */
    onSeatLink(opened) {
      watchSeatLinks(
        gameId,
        () => seat,
        (adopted) => {
          $('#error').textContent = adopted.message;
          if (adopted.seat) opened(adopted.seat);
        },
      );
    },
    /** A `message` line of the live stream: a preset message said at the table. */
    heard,
    /** A look at the messages said since the latest heard, while the table polls. */
    pollMessages: (token) => pollMessages(gameId, token),
    /** After the table drew `view` for `current` (the seat held here, or null). */
    render(view, current) {
      seat = current;
      const mine = current ? current.seat : null;
      const nameOf = (s) => view.seats[s]?.name || t('seats.seatNumber', { number: s + 1 });
      renderWaiting(view, gameId);
      renderSeatLink(view, current, gameId);
      renderComeback(view, current, gameId);
      renderRematch(view, current, gameId);
      renderMessages(view, current, gameId);
      renderClock(view, mine, nameOf);
      renderTurnAlerts(view, mine, t(`common.game.${view.game}`));
    },
  };
}
