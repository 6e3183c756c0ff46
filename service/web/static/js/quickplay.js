// Quick play: one tap in the lobby to a new table of the chosen game with the usual rules,
// the player in the first seat and bots in the others. The name typed in the lobby is used
// (or the one kept from before, else "Guest"), and the client seed drawn in this browser.
import { gamePath, keepSeat, postJson } from './api.js';
import { $, h } from './dom.js';
import { t } from './i18n.js';
import { seedToSend } from './seed.js';
import { errorText } from './problems.js';

const GAMES = [
  { game: 'murlan', seats: 4 },
  { game: 'hazari', seats: 4 },
  { game: 'azi', seats: 3 },
];
const NAME_KEY = 'cardroom.name';

function nameToUse() {
  const typed = $('#player-name').value.trim();
  const name = typed || window.localStorage.getItem(NAME_KEY) || t('play.quick.guest');
  window.localStorage.setItem(NAME_KEY, name);
  return name.slice(0, 40);
}

/** Create the table, sit down, fill the other seats with bots and go to the table. */
export async function quickPlay(game, seats) {
  const body = { game, options: {} };
  if (game === 'azi') body.seats = seats;
  const created = await postJson('/games', body);
  const path = gamePath(created.game_id);
  const seed = seedToSend($('#client-seed'));
  const mine = { name: nameToUse() };
  if (/^[A-Za-z0-9_-]{1,64}$/.test(seed)) mine.client_seed = seed;
  const granted = await postJson(`${path}/seats`, mine);
  keepSeat(created.game_id, { token: granted.token, seat: granted.seat, name: granted.name });
  for (let n = 1; n < created.seats; n += 1)
    await postJson(`${path}/seats`, { name: t('lobby.botName', { n }), bot: true });
  window.location.assign(`/table/${encodeURIComponent(created.game_id)}`);
}

/** The quick play panel, above the lobby's forms. */
export function setUpQuickPlay() {
  const message = h('p', { className: 'error', id: 'quick-error', role: 'alert' });
  const buttons = GAMES.map(({ game, seats }) => {
    const button = h(
      'button',
      { type: 'button', className: 'primary quick', dataset: { game } },
      t('play.quick.play', { game: t(`common.game.${game}`) }),
    );
    button.addEventListener('click', async () => {
      message.textContent = '';
      for (const b of buttons) b.disabled = true;
      try {
        await quickPlay(game, seats);
      } catch (error) {
        message.textContent = errorText(error);
        for (const b of buttons) b.disabled = false;
      }
    });
    return button;
  });
  const panel = h(
    'section',
    { className: 'panel quick-play', id: 'quick-play', 'aria-labelledby': 'quick-h' },
    h('h2', { id: 'quick-h' }, t('play.quick.title')),
    h('p', { className: 'hint' }, t('play.quick.hint')),
    h('div', { className: 'row' }, buttons),
    message,
  );
  document.querySelector('main.lobby h1').after(panel);
}
