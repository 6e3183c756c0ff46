// The table's opt-in effects: sounds (sounds.js) and card movement (motion.js). Both are off
// until the player turns them on with the two switches beside the pace; the choice is kept
// in this browser. Card movement stays off whatever the switch says while the device asks
// for reduced motion (and the switch says why). The table calls setUpEffects() once, then
// effectsBeforeMove(move) before sending a move, effectsOnEvent(event, mySeat) after drawing
// an event and effectsOnView(view, mySeat) after drawing a view.
import { $, h } from './dom.js';
import { t } from './i18n.js';
import { playSound, unlock } from './sounds.js';
import { moveIn, noteHand, reducedMotion } from './motion.js';

const KEYS = { sound: 'cardroom.sound', motion: 'cardroom.motion' };
const CARD = new Set([
  'CardsPlayed',
  'CardPlayed',
  'CardGiven',
  'CardGivenBack',
  'Discarded',
  'Arranged',
  'RoundPlayed',
  'BetPlaced',
  'Called',
  'BoughtIn',
]);
const QUIET = new Set(['Passed', 'Folded', 'Declined']);
const ENDS = new Set(['HandEnded', 'DealScored', 'PotSettled', 'MatchWon', 'MatchEnded']);
const MOVING = new Set(['CardsPlayed', 'CardPlayed', 'CardGiven', 'CardGivenBack']);

const on = { sound: false, motion: false };
let box = null;
let wasMine = false;

function stored(name) {
  try {
    return window.localStorage.getItem(KEYS[name]) === 'on';
  } catch {
    return false;
  }
}

function keep(name, value) {
  try {
    window.localStorage.setItem(KEYS[name], value ? 'on' : 'off');
  } catch {
    // storage refused: the choice holds for this page
  }
}

/** Count what was played or moved on the switches' box (the page's tests read it). */
function count(name, what) {
  box.dataset[name] = String(Number(box.dataset[name] || 0) + 1);
  if (what) box.dataset.lastSound = what;
}

function sound(name) {
  if (on.sound && playSound(name)) count('sounds', name);
}

function toggle(name, label, extra) {
  const input = h('input', { type: 'checkbox', id: `fx-${name}`, checked: on[name] });
  input.addEventListener('change', () => {
    on[name] = input.checked;
    keep(name, input.checked);
    if (name === 'sound' && input.checked && unlock()) sound('card');
  });
  return h('label', { className: 'fx-toggle', title: extra || null }, input, ' ', label);
}

export function setUpEffects() {
  on.sound = stored('sound');
  on.motion = stored('motion');
  const still = reducedMotion();
  const motion = toggle('motion', t('play.fx.motion'), still ? t('play.fx.reduced') : null);
  if (still) motion.querySelector('input').disabled = true;
  box = h(
    'span',
    { className: 'fx', id: 'fx', role: 'group', 'aria-label': t('play.fx.label') },
    toggle('sound', t('play.fx.sound')),
    motion,
    still ? h('span', { className: 'hint fx-still' }, t('play.fx.reduced')) : null,
  );
  const pace = document.querySelector('.table-head .pace');
  if (pace) pace.before(box);
  else $('.table-head').append(box);
}

export function effectsBeforeMove(move) {
  if (on.motion) noteHand(move);
}

export function effectsOnEvent(event, mySeat) {
  if (!box) return;
  if (CARD.has(event.type)) sound('card');
  else if (QUIET.has(event.type)) sound('pass');
  else if (ENDS.has(event.type)) sound('end');
  if (on.motion && MOVING.has(event.type) && moveIn(event, mySeat)) count('moves');
}

export function effectsOnView(view, mySeat) {
  if (!box) return;
  const mine = view.status === 'playing' && mySeat !== null && view.to_act.includes(mySeat);
  if (mine && !wasMine) sound('turn');
  wasMine = mine;
}
