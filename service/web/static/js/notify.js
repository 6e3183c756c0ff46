// Telling the player it is their turn: the tab's title always, and a system notification
// when the tab is hidden, only after the player turned notifications on with the button.
import { $ } from './dom.js';
import { t } from './i18n.js';

const OPT_IN = 'cardroom.notify';
let wasMine = false;
let shown = null;

function optedIn() {
  try {
    return window.localStorage.getItem(OPT_IN) === '1';
  } catch {
    return false;
  }
}

function setOptIn(on) {
  try {
    if (on) window.localStorage.setItem(OPT_IN, '1');
    else window.localStorage.removeItem(OPT_IN);
  } catch {
    // storage refused: the choice lasts for this page
  }
}

const supported = () => 'Notification' in window && window.isSecureContext;

function drawButton() {
  const button = $('#notify-toggle');
  const on = optedIn() && supported() && Notification.permission === 'granted';
  button.textContent = on ? t('seats.notify.turnOff') : t('seats.notify.turnOn');
  button.setAttribute('aria-pressed', on ? 'true' : 'false');
}

export function setUpNotify() {
  $('#notify-toggle').addEventListener('click', async () => {
    const note = $('#notify-msg');
    note.textContent = '';
    if (optedIn() && Notification.permission === 'granted') {
      setOptIn(false);
    } else {
      const answer = await Notification.requestPermission();
      if (answer === 'granted') setOptIn(true);
      else note.textContent = t('seats.notify.blocked');
    }
    drawButton();
  });
}

/** The title, the opt-in button and (tab hidden, opted in) a notification when the turn
 * has just become this seat's. */
export function renderTurnAlerts(view, mySeat, gameName) {
  const mine = view.status === 'playing' && mySeat !== null && view.to_act.includes(mySeat);
  if (mine) document.title = t('seats.title.yourTurn', { game: gameName });
  const row = $('#notify-row');
  row.hidden = !(mySeat !== null && view.status !== 'ended' && supported());
  if (!row.hidden) drawButton();
  if (mine && !wasMine && document.hidden && optedIn() && supported()) {
    if (Notification.permission === 'granted') {
      try {
        shown = new Notification(t('seats.notify.title', { game: gameName }), {
          body: t('seats.notify.body'),
          tag: `cardroom-turn-${view.game_id}`,
        });
        shown.onclick = () => {
          window.focus();
          shown.close();
        };
      } catch {
        // some browsers allow notifications only from a service worker: the title says it
      }
    }
  }
  if (!mine && shown) {
    shown.close();
    shown = null;
  }
  wasMine = mine;
}
