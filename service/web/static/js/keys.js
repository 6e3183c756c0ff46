// The table from the keyboard: focus stays on the hand after a move, shortcuts for the
// common moves, and a `?` list of them (the list and the hints only where a keyboard is).
import { $, fill, h } from './dom.js';
import { t } from './i18n.js';

/** The list the `?` shows: the keys, as printed on a keyboard, and what each does. */
const LIST = [
  [['H', '←', '→'], 'table.keys.hand'],
  [['Space', 'Enter'], 'table.keys.select'],
  [['P'], 'table.keys.play'],
  [['S'], 'table.keys.pass'],
  [['C'], 'table.keys.call'],
  [['B'], 'table.keys.bet'],
  [['Esc'], 'table.keys.clear'],
  [['?'], 'table.keys.help'],
];

/** Shortcut letters -> the move buttons they press (the first one enabled). */
const PRESS = {
  p: ['play', 'arrange', 'discard', 'give_back'],
  s: ['pass'],
  c: ['call'],
};

const enabled = (selector) =>
  [...document.querySelectorAll(selector)].find((n) => !n.disabled && n.getClientRects().length);

function handCards() {
  return [...document.querySelectorAll('#hand button.card')].filter(
    (n) => n.getClientRects().length,
  );
}

/** Put the focus on the hand: the first card that can be chosen, else the hand itself. */
export function focusHand() {
  const card = handCards().find((n) => !n.disabled) || handCards()[0];
  const target = card || $('#hand');
  if (target) target.focus({ preventScroll: true });
}

/** After a redraw took the focused element away (a move's button, say), the focus goes
 * back to the hand instead of the page's body. `hadFocus`: it was inside the seat's panel. */
export function keepFocus(hadFocus) {
  const active = document.activeElement;
  if (!hadFocus || (active && active !== document.body && active.isConnected)) return;
  focusHand();
}

function moveAlongHand(event) {
  const cards = handCards();
  const at = cards.indexOf(document.activeElement);
  if (at < 0) return false;
  const next = cards[at + (event.key === 'ArrowRight' ? 1 : -1)];
  if (next) next.focus();
  return true;
}

function toggleHelp(open) {
  const box = $('#keys-help');
  const show = open ?? box.hidden;
  box.hidden = !show;
  $('#keys-open').setAttribute('aria-expanded', String(show));
  if (show) $('#keys-close').focus();
  else $('#keys-open').focus();
}

/** One key pressed on the table page (outside fields); true when it was used. */
function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return false;
  if (event.key === '?') {
    toggleHelp();
    return true;
  }
  if (event.key === 'Escape' && !$('#keys-help').hidden) {
    toggleHelp(false);
    return true;
  }
  if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') return moveAlongHand(event);
  const key = event.key.toLowerCase();
  if (key === 'h') {
    focusHand();
    return true;
  }
  if (key === 'b') {
    const field = enabled('#bet-amount');
    if (field) field.focus();
    return Boolean(field);
  }
  const actions = PRESS[key];
  if (!actions) return false;
  const button = enabled(actions.map((a) => `#actions button[data-action="${a}"]`).join(', '));
  if (button) button.click();
  return Boolean(button);
}

export function setUpKeys() {
  fill(
    $('#keys-list'),
    LIST.map(([keys, key]) => [
      h('dt', {}, keys.map((k, i) => [i ? ' ' : '', h('kbd', {}, k)])),
      h('dd', {}, t(key)),
    ]),
  );
  $('#keys-open').addEventListener('click', () => toggleHelp());
  $('#keys-close').addEventListener('click', () => toggleHelp(false));
  document.addEventListener('keydown', (event) => {
    if (event.target.matches('input, select, textarea')) return;
    if (onKey(event)) event.preventDefault();
  });
}
