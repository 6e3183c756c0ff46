// The table page: one seat's view of a game, kept live from the event stream, played out at
// a pace a person can follow.
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
import { cardRow, cardText, runOrder } from './cards.js';
import { $, fill, gameIdFromPath, h, sleep } from './dom.js';
import { describe, nameList, seatName } from './events.js';
import * as azi from './azi.js';
import * as hazari from './hazari.js';
import * as murlan from './murlan.js';
import { has, loadCatalogs, t, translatePage } from './i18n.js';
import { errorText } from './problems.js';
import { keepFocus, setUpKeys } from './keys.js';
import { holdFor, keepPace, pickPace, Player, SHOWN } from './pace.js';
import { seatTools } from './seattools.js';
import { effectsBeforeMove, effectsOnEvent, effectsOnView, setUpEffects } from './effects.js';
import { offerSeed, seedToSend } from './seed.js';
import { HAND_ENDS, MATCH_ENDS, summaryContent } from './summary.js';

const MODULES = { azi, hazari, murlan };
// The seat's view (with its legal moves) arrives on the live stream after each
// batch of events (`?views=true`): the page never polls for it.
const LOG_SIZE = 80;
/** Events that put cards (or a seat's decision) on the table: the strip above the board
 * shows the latest of them until the next one. */
const PLAYS = new Set([...SHOWN, 'ExchangeSkipped', 'PotWon', 'AziDeclared']);
/** Moves a seat may make whether or not it is to act (Azi's leaving after the hand). */
const OUT_OF_TURN = new Set(['leave']);
const EXCHANGE = new Set(['CardGiven', 'CardGivenBack', 'ExchangeSkipped']);

const gameId = gameIdFromPath();
const tools = seatTools(gameId); // takes a seat link's token out of the address at once
let seat = seatOf(gameId); // {token, seat, name} or null
let view = null;
let lastVersion = 0; // the newest version received (the stream resumes after it)
let finished = false;
let busy = false;
let controller = null;
let pace = 'normal';
const log = new Map(); // version -> sentence
let logPrefilled = false;
let recent = null; // the latest play shown: an event
let summary = null; // the open end-of-hand panel: {event, version, exchange, stacks, …}
let keepHand = false; // your turn came and you have not scrolled since (keepHandInView)
let summaryClosed = -1; // the version of the last panel the player closed
const exchanges = new Map(); // Murlan hand number -> its exchange events
let dealNo = null; // the current Murlan hand (from HandDealt)
let aziHand = null; // the current Azi hand (from AntesPaid)
const potHands = new Map(); // Azi: a PotSettled's version -> the hand it closed
// The view is the truth, as far as it goes: the events drawn after it (held at the pace)
// and this seat's own answered move may have passed a turn it still shows.
let beyond = []; // the events shown that are newer than the drawn view
let movedUpTo = 0; // this seat's last answered move made the game's version this
let unsent = false; // a move failed for want of a connection: said until the stream is back

const token = () => (seat ? seat.token : undefined);

// -- errors and status ------------------------------------------------------------------
function showError(message) {
  $('#error').textContent = message || '';
}

/** A refusal in the player's words: the message for its rule code or problem type, with the
 * API's detail only for a code this page does not know. */
export function problemText(error) {
  const extra = {};
  if (view && view.table && view.table.must_include) extra.card = cardText([view.table.must_include]);
  return errorText(error, extra);
}

/** A refused move: the reason (and the game's explanation) next to the moves. */
function showMoveError(message, extra) {
  const box = $('#move-error');
  fill(box, message || '', extra ? h('span', { className: 'explain' }, `\n${extra}`) : null);
  if (message) box.scrollIntoView({ block: 'nearest' });
}

function setConn(kind, key, params) {
  const conn = $('#conn');
  conn.className = `conn ${kind}`;
  conn.textContent = t(key, params);
}

// -- rendering --------------------------------------------------------------------------
function ctx() {
  return {
    gameId,
    seat: seat ? seat.seat : null,
    busy,
    recent,
    name: (s) => seatName(view.seats, s),
    submit,
    rerender: render,
  };
}

function statusLine(v, c) {
  const mod = MODULES[v.game];
  if (v.status === 'seating') {
    const taken = v.seats.filter((s) => s.name).length;
    return [t('table.status.seating', { taken, count: v.seats.length }), false];
  }
  if (v.status === 'ended') return [t('table.status.over', { result: mod.resultText(v, c) }), false];
  const mine = c.seat !== null && v.to_act.includes(c.seat);
  const detail = mod.statusText ? mod.statusText(v, c) : '';
  if (mine) return [detail ? t('table.status.yoursWith', { detail }) : t('table.status.yours'), true];
  const others = nameList(v.to_act.map((s) => c.name(s)));
  if (others)
    return [
      detail
        ? t('table.status.waitingWith', { names: others, detail })
        : t('table.status.waiting', { names: others }),
      false,
    ];
  // Past the drawn view's turn (the plays after it are being shown): what just happened.
  if (beyond.length) return [describe(beyond[beyond.length - 1], v.seats), false];
  return [detail || t('table.status.dealing'), false];
}

function seatCard(v, s, c) {
  const mod = MODULES[v.game];
  const info = v.seats[s];
  const player = (v.progress && v.progress.players && v.progress.players[s]) || {};
  const acting = v.status === 'playing' && v.to_act.includes(s);
  const facts = [];
  if (player.cards !== null && player.cards !== undefined)
    facts.push(t('table.seat.cards', { count: player.cards }));
  if (player.score !== null && player.score !== undefined)
    facts.push(t('table.seat.points', { count: player.score }));
  if (player.stack !== null && player.stack !== undefined)
    facts.push(t('table.seat.stack', { count: player.stack }));
  return h(
    'div',
    {
      className: `seat${acting ? ' acting' : ''}${c.seat === s ? ' me' : ''}`,
      dataset: { seat: String(s) },
    },
    h(
      'div',
      { className: 'name' },
      info.name || t('table.seat.free', { n: s + 1 }),
      info.bot ? h('span', { className: 'tag bot' }, t('table.tag.bot')) : null,
      (v.away || []).includes(s)
        ? h('span', { className: 'tag away', title: t('table.tag.awayTitle') }, t('table.tag.away'))
        : null,
      c.seat === s ? h('span', { className: 'tag you' }, t('table.tag.you')) : null,
      acting ? h('span', { className: 'tag turn' }, t('table.tag.turn')) : null,
    ),
    h(
      'div',
      { className: 'facts' },
      [...facts, ...(mod.seatFacts ? mod.seatFacts(v, s, c) : [])].filter(Boolean).join(' · '),
    ),
  );
}

/** The latest play, kept on the table until the next one. */
function lastPlay(v) {
  if (!recent) return null;
  const e = recent;
  let cards = null;
  if (e.type === 'CardsPlayed') cards = runOrder(e.cards, e.combination);
  else if (e.type === 'CardPlayed') cards = [e.card];
  else if (e.type === 'TrickTaken') cards = e.cards;
  else if (e.type === 'RoundPlayed') cards = (e.laid || [])[e.winner];
  else if ((e.type === 'CardGiven' || e.type === 'CardGivenBack') && e.card && e.card !== '??')
    cards = [e.card];
  return h(
    'div',
    {
      className: 'last-play',
      id: 'last-play',
      'aria-live': 'polite',
      dataset: { version: String(e.version), type: e.type },
    },
    h('span', { className: 'lbl' }, t('table.lastPlay')),
    h('span', { className: 'what' }, describe(e, v.seats)),
    cards ? cardRow(cards, 'small') : null,
  );
}

function renderSummary() {
  const box = $('#summary');
  if (!view || !summary) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.dataset.kind = summary.final ? 'final' : summary.event.type;
  const [title, lead, ...rest] = summaryContent(summary, view, gameId);
  // Once the next deal needs the player, the details fold away (a click opens them again).
  fill(
    $('#summary-body'),
    title,
    lead,
    summary.compact
      ? h('details', {}, h('summary', {}, t('table.summary.details')), rest)
      : rest,
  );
}

/** Whether seat `s` is still to act in the drawn view `v`, given what was shown since:
 * in a turn taken one seat at a time any later event ends it; where several seats decide
 * together (Hazari's arranging, an Azi replay's offer) only their own move does. */
function stillToAct(v, s) {
  if (!v.to_act.includes(s)) return false;
  if (seat && s === seat.seat && v.version < movedUpTo) return false;
  const together = v.to_act.length > 1;
  return beyond.every(
    (e) => together && SHOWN.has(e.type) && e.seat !== s && v.to_act.includes(e.seat),
  );
}

/** The view as the page may draw it: no seat to act whose turn has passed, and this
 * seat's moves only while its turn is still open. */
export function asDrawn(v) {
  if (!beyond.length && v.version >= movedUpTo) return v;
  const toAct = v.to_act.filter((s) => stillToAct(v, s));
  const mine = seat !== null && toAct.includes(seat.seat);
  let table = v.table;
  if (table && Array.isArray(table.said_up)) {
    const saidUp = [...table.said_up];
    for (const e of beyond) if (e.type === 'Arranged' && Number.isInteger(e.seat)) saidUp[e.seat] = true;
    if (seat && v.version < movedUpTo && v.to_act.includes(seat.seat)) saidUp[seat.seat] = true;
    table = { ...table, said_up: saidUp };
  }
  const legal = (v.legal_moves || []).filter((m) => mine || OUT_OF_TURN.has(m.action));
  return { ...v, table, to_act: toAct, legal_moves: legal };
}

function render() {
  if (!view) return;
  const v = asDrawn(view);
  const c = ctx();
  const mod = MODULES[v.game];
  const gameName = has(`common.game.${v.game}`) ? t(`common.game.${v.game}`) : v.game;
  document.title = t('table.docTitle', { game: gameName });
  $('#title').textContent = gameName;
  const meta = $('#meta');
  meta.textContent =
    c.seat !== null ? t('table.meta.seat', { seat: c.seat + 1 }) : t('table.meta.watching');
  meta.dataset.version = String(v.version); // the game's version drawn (for tools and tests)
  const replay = $('#replay-link');
  replay.href = `/replay/${encodeURIComponent(gameId)}`;
  replay.hidden = v.status !== 'ended';
  $('#rules-link').href = `/rules/${encodeURIComponent(v.game)}`;
  const [text, mine] = statusLine(v, c);
  const status = $('#status');
  status.textContent = text;
  status.classList.toggle('mine', mine);
  const youStatus = $('#you-status');
  youStatus.textContent = text;
  youStatus.classList.toggle('mine', mine);
  $('#join').hidden = !(v.status === 'seating' && c.seat === null);
  fill(
    $('#seats'),
    v.seats.map((_, s) => seatCard(v, s, c)),
  );
  fill($('#board'), lastPlay(v), mod.board(v, c));
  const you = $('#you');
  const turnComes = mine && !you.classList.contains('mine');
  you.hidden = c.seat === null || v.status === 'seating';
  you.classList.toggle('mine', mine);
  you.dataset.game = v.game;
  document.body.classList.toggle('my-turn', mine && !you.hidden);
  if (!you.hidden) {
    const hadFocus = you.contains(document.activeElement);
    const [hand, actions] = mod.you(v, c);
    fill($('#decide'), mine && mod.decide ? mod.decide(v, c) : null);
    fill($('#hand'), hand);
    fill($('#actions'), actions);
    keepFocus(hadFocus);
  }
  tools.render(v, seat);
  effectsOnView(v, c.seat);
  renderSummary();
  // last: what is drawn above the hand (a hand's summary, the tools) has its height now
  if (turnComes && !you.hidden) {
    keepHand = true;
    showHand(you);
  }
  if (!mine) keepHand = false;
}

/** Your turn has come: bring your hand, your moves and what you must see to decide into
 * view (on a phone they sit below the table; on a desktop they are already there). */
function showHand(you) {
  const box = you.getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= window.innerHeight) return;
  you.scrollIntoView({ block: box.height <= window.innerHeight ? 'end' : 'start' });
}

const SCROLL_KEYS = new Set(['PageUp', 'PageDown', 'Home', 'End', 'ArrowUp', 'ArrowDown']);

/** Until you scroll yourself, your turn's hand stays on the screen when something drawn
 * above it later (a hand's summary, the seat-link notice, the table's messages) grows or
 * shrinks the page: it would otherwise push your moves out of sight. */
function keepHandInView() {
  const you = $('#you');
  const letGo = () => {
    keepHand = false;
  };
  window.addEventListener('wheel', letGo, { passive: true });
  window.addEventListener('touchmove', letGo, { passive: true });
  window.addEventListener('keydown', (event) => {
    if (SCROLL_KEYS.has(event.key) && !event.target.matches('input, select, textarea')) letGo();
  });
  new ResizeObserver(() => {
    if (keepHand && !you.hidden && you.classList.contains('mine')) showHand(you);
  }).observe(document.body);
}

/** Draw a view the stream sent (once the events before it have been shown). */
function showView(next) {
  if (view && next.version < view.version) return; // an older answer arrived late
  const same = view && next.version === view.version && next.seat === view.seat && !beyond.length;
  view = next;
  beyond = beyond.filter((e) => e.version > next.version);
  if (summary && !summary.final) {
    if (summary.stacks === null && next.table && next.table.seats)
      summary.stacks = next.table.seats.map((s) => s.stack);
    if (summary.target === null && next.table && next.table.target) summary.target = next.table.target;
    // The next deal needs the player: the panel folds to its first lines to make way.
    if ((next.legal_moves || []).length > 0 && next.version > summary.version) summary.compact = true;
  }
  if (next.status === 'ended' && (!summary || !summary.final) && summaryClosed < next.version)
    summary = { final: true, version: next.version };
  // The same version for the same viewer is the same view: redrawing it would
  // only replace the buttons under a pointer or keyboard focus.
  if (!same) render();
  else renderSummary();
}

/** Open the end-of-hand panel for ``event``. ``past``: the view drawn is already beyond
 * it, so the totals come from that view and the panel folds if the next deal needs you. */
function openSummary(event, past) {
  summary = {
    event,
    version: event.version,
    exchange: event.type === 'HandEnded' ? exchanges.get(event.hand) || [] : [],
    stacks: null,
    target: null,
    hand: potHands.get(event.version) ?? (view && view.table ? view.table.hand_no : null),
  };
  if (!past || !view) return;
  if (view.table && view.table.seats) summary.stacks = view.table.seats.map((x) => x.stack);
  if (view.table && view.table.target) summary.target = view.table.target;
  summary.compact = (view.legal_moves || []).length > 0;
  renderSummary();
}

/** Show one event: the log, the latest play, the panels. Returns how long to hold it. */
function showEvent(event, live) {
  if (event.type === 'HandDealt' && event.trump === undefined) dealNo = event.deal;
  if (event.type === 'AntesPaid') aziHand = event.hand;
  if (event.type === 'PotSettled' && aziHand !== null) potHands.set(event.version, aziHand);
  if (EXCHANGE.has(event.type) && dealNo !== null) {
    const list = exchanges.get(dealNo) || [];
    if (!list.some((x) => x.version === event.version)) list.push(event);
    exchanges.set(dealNo, list);
  }
  addLog(event);
  const fresh = live && (!view || event.version > view.version);
  if (live && HAND_ENDS.has(event.type) && (!summary || event.version > summary.version)) {
    // Caught up after a reconnect, the view is already past this hand's end: the panel
    // is still due, its totals from that view.
    openSummary(event, !fresh);
  }
  if (!fresh) return 0;
  if (!beyond.some((e) => e.version === event.version)) beyond.push(event);
  if (PLAYS.has(event.type)) recent = event;
  if (MATCH_ENDS.has(event.type)) summary = null; // the final standings follow with the view
  render();
  effectsOnEvent(event, seat ? seat.seat : null);
  return holdFor(event, pace, seat ? seat.seat : null, player.pending);
}

// -- the log -----------------------------------------------------------------------------
function addLog(event) {
  if (log.has(event.version)) return;
  log.set(event.version, describe(event, view ? view.seats : []));
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
    const events = page.events.filter((event) => event.version <= version);
    for (const event of events) showEvent(event, false);
    // A hand that ended while the page was opening (bots are quick) still gets its panel,
    // as long as this seat has not moved since.
    const ends = events.filter((event) => HAND_ENDS.has(event.type));
    const last = ends[ends.length - 1];
    const mine = seat ? seat.seat : null;
    const since = last ? events.filter((event) => event.version > last.version) : [];
    if (
      last &&
      !summary &&
      view.status !== 'ended' &&
      summaryClosed < last.version &&
      !since.some((event) => mine !== null && event.seat === mine)
    )
      openSummary(last, true);
  } catch {
    // the log is a convenience; the table itself is already drawn
  }
}

/** A token this game no longer accepts (say, a server that forgot its games). */
async function tokenRefused(error) {
  if (error instanceof ApiProblem && (error.status === 401 || error.status === 403) && seat) {
    forgetSeat(gameId);
    seat = null;
    showError(t('table.error.tokenRefused'));
    restartStream();
    return true;
  }
  if (error instanceof ApiProblem) showError(problemText(error));
  return false;
}

// -- moves -------------------------------------------------------------------------------------
/** Send a move; on refusal show why in words (and the module's explanation). */
async function submit(move) {
  if (!seat || busy) return false;
  busy = true;
  showMoveError('');
  unsent = false;
  try {
    effectsBeforeMove(move);
    const answer = await submitMove(gameId, seat.token, move);
    // The answer is the truth: this turn is over, whatever the drawn view still says.
    movedUpTo = Math.max(movedUpTo, Number(answer && answer.version) || (view ? view.version + 1 : 0));
    busy = false;
    render();
    pollSoon(); // while polling, the table shows the move at once, not at the next look
    return true;
  } catch (error) {
    if (error instanceof ApiProblem) {
      const mod = view ? MODULES[view.game] : null;
      const extra = mod && mod.explain ? mod.explain(error) : null;
      showMoveError(problemText(error), extra);
      if (error.status === 401 || error.status === 403) await tokenRefused(error);
    } else {
      // Not a refusal: the server could not be reached. Said plainly, until the stream is back.
      showMoveError(t('table.error.notSent'));
      unsent = true;
      // and the stream is asked for again: the message goes with its first view
      if (controller) controller.abort();
    }
    return false;
  } finally {
    busy = false;
  }
}

// -- the live stream -------------------------------------------------------------------------
const player = new Player((line) => {
  if (line.kind === 'view') {
    showView(line.view);
    prefillLog(line.view.version);
    return 0;
  }
  if (line.kind === 'event') return showEvent(line.event, true);
  return 0;
});

function restartStream() {
  player.clear();
  if (controller) controller.abort();
  streamNow = true; // a table polling for want of a stream asks for one now (a new seat has its own)
  pollSoon();
}

/** The game does not exist (never did, or was deleted), or (`expired`) the table closed
 * before every seat was taken: say so instead of an empty table. */
function showMissing(expired = false) {
  const title = expired ? t('table.expired.title') : t('table.missing.title');
  $('#missing').hidden = false;
  $('#missing-h').dataset.i18n = expired ? 'table.expired.title' : 'table.missing.title';
  $('#missing-h').textContent = title;
  $('#missing-text').textContent = expired
    ? t('table.expired.text', { id: gameId })
    : t('table.missing.text', { id: gameId });
  // Nothing of a seat is left to keep or be told about: its link and turn alerts go too.
  const gone = ['#seats', '#board', '#you', '#log-panel', '#join', '#summary', '#status', '#waiting'];
  for (const id of [...gone, '#seat-link', '#notify-row', '#turn-clock'])
    $(id).hidden = true;
  showError('');
  document.title = title;
}

// -- polling, while the server has no stream to spare ------------------------------------------
// A stream refused for capacity (429 with `fallback: "poll"`) is not asked for again and
// again: the table reads its view every `poll_after_s` seconds instead (and the events
// since the last one, for the log, and the table messages said since the last one heard),
// then tries the stream again, waiting longer each time.
const STREAM_AGAIN_MAX_MS = 5 * 60 * 1000;
let pollWake = null; // resolves the wait between two polls early (after the player's own move)
let streamNow = false; // leave polling for the stream at once (the seat changed)

function pollSoon() {
  if (pollWake) pollWake();
}

function pollPause(ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    pollWake = () => {
      clearTimeout(timer);
      resolve();
    };
  }).finally(() => {
    pollWake = null;
  });
}

/** One look at the game: its view and, when it moved, the events since the last look; and
 * the table messages said since the last one heard (the live stream's `message` lines). */
async function pollOnce() {
  const next = await getJson(gamePath(gameId), token());
  // table talk is not the game: a look at it that fails is made again at the next one
  await tools.pollMessages(token()).catch(() => {});
  if (lastVersion && next.version > lastVersion) {
    const page = await getJson(`${gamePath(gameId)}/events?after=${lastVersion}`, token());
    for (const event of page.events)
      if (event.version <= next.version) player.push({ kind: 'event', event });
  }
  lastVersion = Math.max(lastVersion, next.version);
  if (unsent) showMoveError('');
  unsent = false;
  player.push({ kind: 'view', view: next });
  return next;
}

/** How long to poll after the stream's `refusals`-th refusal (0, 1, …) before asking for it
 * again: the server's Retry-After, doubled each time, at most 5 minutes, with some jitter. */
function streamAgainIn(error, refusals) {
  const asked = (error.retryAfter || error.problem.retry_after_s || 30) * 1000;
  return Math.min(STREAM_AGAIN_MAX_MS, asked * 2 ** Math.min(refusals, 4)) * (1 + Math.random() * 0.2);
}

/** Poll views for `forMs`; false when there is no point in trying the stream again. */
async function pollFor(everyS, forMs) {
  const every = Math.max(1, Number(everyS) || 5) * 1000;
  const until = Date.now() + forMs;
  setConn('poll', 'table.conn.polling', { seconds: every / 1000 });
  streamNow = false;
  while (Date.now() < until && !streamNow) {
    try {
      const next = await pollOnce();
      if (next.status === 'ended') return false;
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 404) throw error;
      if (!(await tokenRefused(error))) setConn('poll', 'table.conn.polling', { seconds: every / 1000 });
    }
    await pollPause(Math.max(0, Math.min(every, until - Date.now())));
  }
  return true;
}

async function live() {
  let delay = 500;
  let refusals = 0; // the stream's refusals for capacity in a row
  for (;;) {
    controller = new AbortController();
    try {
      setConn('', 'table.conn.connecting');
      const after = lastVersion || null;
      for await (const line of liveLines(gameId, token(), after, controller.signal, true)) {
        delay = 500;
        refusals = 0;
        if (line.kind === 'view') {
          setConn('live', 'table.conn.live');
          if (unsent) showMoveError('');
          unsent = false;
          lastVersion = Math.max(lastVersion, line.view.version);
          player.push(line);
        } else if (line.kind === 'event') {
          lastVersion = Math.max(lastVersion, line.event.version);
          player.push(line);
        } else if (line.kind === 'message') {
          tools.heard(line.message);
        } else if (line.kind === 'end') {
          finished = true;
        }
      }
      if (finished) {
        setConn('', 'table.conn.over');
        return;
      }
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 429 && error.problem.fallback === 'poll') {
        try {
          const again = await pollFor(error.problem.poll_after_s, streamAgainIn(error, refusals));
          refusals += 1;
          if (again) continue;
          setConn('', 'table.conn.over');
          return;
        } catch (missing) {
          error = missing; // the game is gone: said below
        }
      }
      if (error instanceof ApiProblem) {
        if (error.status === 404 || error.status === 410) {
          const expired = error.status === 410;
          setConn('', expired ? 'table.conn.expired' : 'table.conn.missing');
          showMissing(expired);
          return;
        }
        if (await tokenRefused(error)) continue;
      } else if (error.name === 'AbortError') {
        continue; // restarted on purpose (a new token)
      }
    }
    setConn('retry', 'table.conn.retry', { seconds: Math.round(delay / 100) / 10 });
    await sleep(delay);
    delay = Math.min(delay * 2, 8000);
  }
}

// -- joining from the table page ----------------------------------------------------------------
async function join(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const body = { name: form.elements.name.value.trim() };
  body.client_seed = seedToSend(form.elements.client_seed);
  try {
    const granted = await postJson(`${gamePath(gameId)}/seats`, body);
    seat = { token: granted.token, seat: granted.seat, name: granted.name };
    keepSeat(gameId, seat);
    window.localStorage.setItem('cardroom.name', body.name);
    showError('');
    restartStream();
  } catch (error) {
    showError(problemText(error));
  }
}

async function start() {
  seat = (await tools.start()) || seat;
  tools.onSeatLink((opened) => {
    seat = opened; // the stream starts again as this seat; its first view redraws the table
    restartStream();
  });
  translatePage();
  setUpEffects();
  pace = pickPace();
  const paceSelect = $('#pace');
  paceSelect.value = pace;
  paceSelect.addEventListener('change', () => {
    pace = paceSelect.value;
    keepPace(pace);
    if (pace === 'instant') player.hurry();
  });
  $('#summary-close').addEventListener('click', () => {
    if (summary) summaryClosed = summary.version;
    summary = null;
    renderSummary();
  });
  $('#join-form').addEventListener('submit', join);
  setUpKeys();
  keepHandInView();
  $('#join-form').elements.name.value = window.localStorage.getItem('cardroom.name') || '';
  offerSeed($('#join-form').elements.client_seed);
  document.addEventListener('keydown', (event) => {
    if (!view || event.target.matches('input, select, textarea')) return;
    const mod = MODULES[view.game];
    if (mod.onKey && mod.onKey(event, view, ctx())) event.preventDefault();
  });
  live();
}

loadCatalogs(['common', 'table', 'events', 'problems', 'murlan', 'hazari', 'azi']).then(start);
