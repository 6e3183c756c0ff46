// The turn clock: how long the seats to act have left before the server moves for them,
// counted down from the view's `turn_deadlines_ms` (Redis's clock, the one the server
// times turns out by), corrected by the difference from this device's clock, measured
// once from the table page's X-Cardroom-Clock-Ms header (or its Date header without it).
import { $ } from './dom.js';
import { list, t } from './i18n.js';

const URGENT_S = 10;
let offsetMs = 0; // server clock minus this device's clock, when it matters
let timer = null;
let state = null; // {mine: deadline|null, others: [{name, deadline}]}

/** Measure how far this device's clock is from the server's (to about a second). */
export async function measureClock() {
  try {
    const sent = Date.now();
    const response = await fetch(window.location.pathname, { method: 'HEAD', cache: 'no-store' });
    const received = Date.now();
    const server = Number(response.headers.get('X-Cardroom-Clock-Ms') || '');
    if (Number.isFinite(server) && server > 0) {
      // to within half the round trip; the countdown shows whole seconds
      const offset = server - (sent + received) / 2;
      offsetMs = Math.abs(offset) > 500 ? offset : 0;
      return;
    }
    const date = Date.parse(response.headers.get('Date') || '');
    if (!Number.isFinite(date)) return;
    // Date has whole seconds: the server's time was in [date, date + 1000).
    const offset = date + 500 - (sent + received) / 2;
    offsetMs = Math.abs(offset) > 1500 ? offset : 0;
  } catch {
    offsetMs = 0;
  }
}

/** Whole seconds left before `deadline` (server ms), never below 0. */
export function secondsLeft(deadline, now = Date.now()) {
  return Math.max(0, Math.ceil((deadline - (now + offsetMs)) / 1000));
}

function clockText(seconds) {
  const m = Math.floor(seconds / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return `${m}:${s}`;
}

function names(items) {
  return list(items);
}

function tick() {
  const box = $('#turn-clock');
  if (!state) return;
  const now = Date.now();
  if (state.mine !== null) {
    const left = secondsLeft(state.mine, now);
    box.textContent =
      left > 0
        ? t('seats.clock.mine', { time: clockText(left), seconds: left })
        : t('seats.clock.mineUp');
    box.dataset.left = String(left);
    box.classList.toggle('urgent', left <= URGENT_S);
    return;
  }
  const deadline = Math.min(...state.others.map((o) => o.deadline));
  const left = secondsLeft(deadline, now);
  const who = names(state.others.map((o) => o.name));
  box.textContent =
    left > 0
      ? t('seats.clock.others', { names: who, count: state.others.length, time: clockText(left) })
      : t('seats.clock.othersUp', { names: who, count: state.others.length });
  box.dataset.left = String(left);
  box.classList.remove('urgent');
}

/** Show the clock of the seats to act (yours first and prominent) for this view. */
export function renderClock(view, mySeat, nameOf) {
  const box = $('#turn-clock');
  const deadlines = view.status === 'playing' ? view.turn_deadlines_ms || [] : [];
  const acting = (view.to_act || []).filter((s) => Number.isInteger(deadlines[s]));
  const mine = mySeat !== null && acting.includes(mySeat) ? deadlines[mySeat] : null;
  const others = acting.filter((s) => s !== mySeat).map((s) => ({ name: nameOf(s), deadline: deadlines[s] }));
  if (mine === null && others.length === 0) {
    state = null;
    box.hidden = true;
    delete box.dataset.deadline;
    if (timer !== null) window.clearInterval(timer);
    timer = null;
    return;
  }
  state = { mine, others };
  box.hidden = false;
  box.classList.toggle('mine', mine !== null);
  box.dataset.deadline = String(mine !== null ? mine : Math.min(...others.map((o) => o.deadline)));
  tick();
  if (timer === null) timer = window.setInterval(tick, 250);
}
