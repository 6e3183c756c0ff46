// What keeps a seat and a table moving, hooked into the table page: the seat link, the turn
// clock, the waiting table's bot and invitation controls, and the your-turn title and
// notification. The table calls seatTools(gameId) once, start() before its stream and
// render(view, seat) after drawing each view.
import { $ } from './dom.js';
import { loadCatalogs, t, translatePage } from './i18n.js';
import { adoptSeat, renderSeatLink, setUpSeatLink, takeTokenFromAddress } from './seatlink.js';
import { measureClock, renderClock } from './turnclock.js';
import { renderTurnAlerts, setUpNotify } from './notify.js';
import { renderWaiting, setUpWaiting } from './waiting.js';

const PANELS = ['#turn-clock', '#waiting', '#seat-link', '#notify-row'];

export function seatTools(gameId) {
  // Taken out of the address bar before anything else runs.
  const linkToken = takeTokenFromAddress();
  let seat = null;
  return {
    /** Load this area's messages and open a seat link's seat: its seat, or null. */
    async start() {
      await loadCatalogs(['seats']);
      for (const id of PANELS) translatePage($(id));
      setUpSeatLink(gameId, () => seat);
      setUpWaiting(gameId);
      setUpNotify();
      measureClock();
      if (linkToken === null) return null;
      const adopted = await adoptSeat(gameId, linkToken);
      if (adopted.message) $('#error').textContent = adopted.message;
      return adopted.seat;
    },
    /** After the table drew `view` for `current` (the seat held here, or null). */
    render(view, current) {
      seat = current;
      const mine = current ? current.seat : null;
      const nameOf = (s) => view.seats[s]?.name || t('seats.seatNumber', { number: s + 1 });
      renderWaiting(view, gameId);
      renderSeatLink(view, current, gameId);
      renderClock(view, mine, nameOf);
      renderTurnAlerts(view, mine, t(`common.game.${view.game}`));
    },
  };
}
