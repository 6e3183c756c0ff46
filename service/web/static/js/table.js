// The table page: one seat's view of a game, kept live from the event stream.
import {
  ApiProblem,
  forgetSeat,
  gamePath,
  getJson,
  keepSeat,
  liveLines,
  postJson,
  seatOf,
  submitMove,
} from './api.js';
import { $, fill, gameIdFromPath, h, sleep } from './dom.js';
import { describe, seatName } from './events.js';
import * as azi from './azi.js';
import * as hazari from './hazari.js';
import * as murlan from './murlan.js';

const MODULES = { azi, hazari, murlan };
const GAME_NAMES = { murlan: 'Murlan', hazari: 'Hazari Lite', azi: 'Azi' };
// While events stream in, the seat's view (with its legal moves) is fetched at
// most once per gap, so a busy table stays well inside the API's rate limit.
const REFRESH_GAP_MS = 800;
const LOG_SIZE = 80;

const gameId = gameIdFromPath();
let seat = seatOf(gameId); // {token, seat, name} or null
let view = null;
let lastVersion = 0;
let finished = false;
let busy = false;
let controller = null;
const log = new Map(); // version -> sentence
let logPrefilled = false;

const token = () => (seat ? seat.token : undefined);

// -- errors and status ------------------------------------------------------------------
function showError(message) {
  $('#error').textContent = message || '';
}

/** A refused move: the server's reason (and the game's explanation) next to the moves. */
function showMoveError(message, extra) {
  const box = $('#move-error');
  fill(box, message || '', extra ? h('span', { className: 'explain' }, `\n${extra}`) : null);
  if (message) box.scrollIntoView({ block: 'nearest' });
}

function setConn(kind, text) {
  const conn = $('#conn');
  conn.className = `conn ${kind}`;
  conn.textContent = text;
}

// -- rendering --------------------------------------------------------------------------
function ctx() {
  return {
    gameId,
    seat: seat ? seat.seat : null,
    busy,
    name: (s) => seatName(view.seats, s),
    submit,
    rerender: render,
  };
}

function statusLine(v, c) {
  const mod = MODULES[v.game];
  if (v.status === 'seating') {
    const taken = v.seats.filter((s) => s.name).length;
    return [`Waiting for players: ${taken} of ${v.seats.length} seats taken.`, false];
  }
  if (v.status === 'ended') return [`Game over. ${mod.resultText(v, c)}`, false];
  const mine = c.seat !== null && v.to_act.includes(c.seat);
  const detail = mod.statusText ? mod.statusText(v, c) : '';
  if (mine) return [`Your turn${detail ? ` — ${detail}` : ''}`, true];
  const others = v.to_act.map((s) => c.name(s)).join(', ');
  return [
    others ? `Waiting for ${others}${detail ? ` — ${detail}` : ''}` : detail || 'Dealing…',
    false,
  ];
}

function seatCard(v, s, c) {
  const mod = MODULES[v.game];
  const info = v.seats[s];
  const player = (v.progress && v.progress.players && v.progress.players[s]) || {};
  const acting = v.status === 'playing' && v.to_act.includes(s);
  const facts = [];
  if (player.cards !== null && player.cards !== undefined) facts.push(`${player.cards} cards`);
  if (player.score !== null && player.score !== undefined) facts.push(`${player.score} points`);
  if (player.stack !== null && player.stack !== undefined) facts.push(`stack ${player.stack}`);
  return h(
    'div',
    {
      className: `seat${acting ? ' acting' : ''}${c.seat === s ? ' me' : ''}`,
      dataset: { seat: String(s) },
    },
    h(
      'div',
      { className: 'name' },
      info.name || `Seat ${s + 1} (free)`,
      info.bot ? h('span', { className: 'tag bot' }, 'bot') : null,
      c.seat === s ? h('span', { className: 'tag you' }, 'you') : null,
      acting ? h('span', { className: 'tag turn' }, 'to act') : null,
    ),
    h(
      'div',
      { className: 'facts' },
      [facts.join(' · '), ...(mod.seatFacts ? mod.seatFacts(v, s, c) : [])]
        .filter(Boolean)
        .join(' · '),
    ),
  );
}

function render() {
  if (!view) return;
  const v = view;
  const c = ctx();
  const mod = MODULES[v.game];
  document.title = `${GAME_NAMES[v.game] || v.game} · cardroom`;
  $('#title').textContent = `${GAME_NAMES[v.game] || v.game}`;
  $('#meta').textContent =
    `game ${v.game_id} · version ${v.version}${c.seat !== null ? ` · you are seat ${c.seat + 1}` : ' · watching'}`;
  const replay = $('#replay-link');
  replay.href = `/replay/${encodeURIComponent(gameId)}`;
  replay.hidden = v.status !== 'ended';
  const [text, mine] = statusLine(v, c);
  const status = $('#status');
  status.textContent = text;
  status.classList.toggle('mine', mine);
  $('#join').hidden = !(v.status === 'seating' && c.seat === null);
  fill(
    $('#seats'),
    v.seats.map((_, s) => seatCard(v, s, c)),
  );
  fill($('#board'), mod.board(v, c));
  const you = $('#you');
  you.hidden = c.seat === null || v.status === 'seating';
  if (!you.hidden) {
    const [hand, actions] = mod.you(v, c);
    fill($('#hand'), hand);
    fill($('#actions'), actions);
  }
}

function show(next) {
  if (view && next.version < view.version) return; // an older answer arrived late
  // The same version for the same viewer is the same view: redrawing it would
  // only replace the buttons under a pointer or keyboard focus.
  if (view && next.version === view.version && next.seat === view.seat) return;
  view = next;
  lastVersion = Math.max(lastVersion, next.version);
  render();
}

// -- the log -----------------------------------------------------------------------------
function addLog(event) {
  if (log.has(event.version)) return;
  log.set(event.version, describe(event, view ? view.seats : []));
  lastVersion = Math.max(lastVersion, event.version);
  drawLog();
}

function drawLog() {
  const versions = [...log.keys()].sort((a, b) => b - a).slice(0, LOG_SIZE);
  for (const old of [...log.keys()]) if (!versions.includes(old)) log.delete(old);
  fill(
    $('#log'),
    versions.map((ver) => h('li', {}, h('span', { className: 'ver' }, String(ver)), log.get(ver))),
  );
}

async function prefillLog(version) {
  if (logPrefilled) return;
  logPrefilled = true;
  try {
    const page = await getJson(
      `${gamePath(gameId)}/events?after=${Math.max(0, version - 40)}`,
      token(),
    );
    for (const event of page.events) addLog(event);
  } catch {
    // the log is a convenience; the table itself is already drawn
  }
}

// -- fetching the view ---------------------------------------------------------------------
let timer = null;
let inFlight = false;
let again = false;
let lastFetch = 0;

function scheduleRefresh(soon = false) {
  if (document.hidden) {
    again = true; // fetched when the page is shown again
    return;
  }
  if (timer) {
    if (!soon) return;
    clearTimeout(timer);
  }
  const wait = soon ? 0 : Math.max(100, REFRESH_GAP_MS - (Date.now() - lastFetch));
  timer = setTimeout(refresh, wait);
}

async function refresh() {
  timer = null;
  if (inFlight) {
    again = true;
    return;
  }
  inFlight = true;
  lastFetch = Date.now();
  try {
    show(await getJson(gamePath(gameId), token()));
  } catch (error) {
    await tokenRefused(error);
  } finally {
    inFlight = false;
    if (again) {
      again = false;
      scheduleRefresh();
    }
  }
}

/** A token this game no longer accepts (say, a server that forgot its games). */
async function tokenRefused(error) {
  if (error instanceof ApiProblem && (error.status === 401 || error.status === 403) && seat) {
    forgetSeat(gameId);
    seat = null;
    showError('This browser’s seat token is not accepted by this game; showing the public table.');
    restartStream();
    return true;
  }
  if (error instanceof ApiProblem) showError(error.message);
  return false;
}

// -- moves -------------------------------------------------------------------------------------
/** Send a move; on refusal show the problem's detail (and the module's explanation). */
async function submit(move) {
  if (!seat || busy) return false;
  busy = true;
  showMoveError('');
  try {
    await submitMove(gameId, seat.token, move);
    return true;
  } catch (error) {
    if (error instanceof ApiProblem) {
      const mod = view ? MODULES[view.game] : null;
      const extra = mod && mod.explain ? mod.explain(error) : null;
      showMoveError(error.message, extra);
      if (error.status === 401 || error.status === 403) await tokenRefused(error);
    } else {
      showMoveError(`The move could not be sent: ${error}`);
    }
    return false;
  } finally {
    busy = false;
    scheduleRefresh(true);
  }
}

// -- the live stream -------------------------------------------------------------------------
function restartStream() {
  if (controller) controller.abort();
}

async function live() {
  let delay = 500;
  for (;;) {
    controller = new AbortController();
    try {
      setConn('', 'connecting…');
      for await (const line of liveLines(gameId, token(), lastVersion || null, controller.signal)) {
        delay = 500;
        if (line.kind === 'view') {
          setConn('live', 'live');
          show(line.view);
          prefillLog(line.view.version);
        } else if (line.kind === 'event') {
          addLog(line.event);
          scheduleRefresh();
        } else if (line.kind === 'end') {
          finished = true;
        }
      }
      if (finished) {
        setConn('', 'game over');
        scheduleRefresh(true);
        return;
      }
    } catch (error) {
      if (error instanceof ApiProblem) {
        if (error.status === 404) {
          setConn('', 'no such game');
          showError(error.message);
          return;
        }
        if (await tokenRefused(error)) continue;
      } else if (error.name === 'AbortError') {
        continue; // restarted on purpose (a new token)
      }
    }
    setConn('retry', `reconnecting in ${Math.round(delay / 100) / 10} s`);
    await sleep(delay);
    delay = Math.min(delay * 2, 8000);
  }
}

// -- joining from the table page ----------------------------------------------------------------
async function join(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const body = { name: form.elements.name.value.trim() };
  const seed = form.elements.client_seed.value.trim();
  if (seed) body.client_seed = seed;
  try {
    const granted = await postJson(`${gamePath(gameId)}/seats`, body);
    seat = { token: granted.token, seat: granted.seat, name: granted.name };
    keepSeat(gameId, seat);
    window.localStorage.setItem('cardroom.name', body.name);
    showError('');
    restartStream();
    scheduleRefresh(true);
  } catch (error) {
    showError(error.message);
  }
}

function start() {
  $('#join-form').addEventListener('submit', join);
  $('#join-form').elements.name.value = window.localStorage.getItem('cardroom.name') || '';
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && again) {
      again = false;
      scheduleRefresh(true);
    }
  });
  document.addEventListener('keydown', (event) => {
    if (!view || event.target.matches('input, select, textarea')) return;
    const mod = MODULES[view.game];
    if (mod.onKey && mod.onKey(event, view, ctx())) event.preventDefault();
  });
  live();
}

start();
