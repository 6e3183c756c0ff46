// The lobby: create a game, list games (the active ones first, with their age and last
// activity), take a seat or add bots.
import { ApiProblem, gamePath, getJson, keepSeat, postJson, seatOf } from './api.js';
import { $, fill, h } from './dom.js';
import { offerSeed, seedToSend } from './seed.js';
import { loadCatalogs, locale, t, translatePage } from './i18n.js';
import { Said, errorText } from './problems.js';
import { setUpQuickPlay } from './quickplay.js';

const PAGE_SIZE = 10; // each listed game costs one more request: stay well inside the rate limit
const NAME_KEY = 'cardroom.name';
/** A game with no event for this long is listed below the lively ones. */
const QUIET_MS = 10 * 60 * 1000;
let cursor = null;
/** The listed games: {view, summary} by game id, in the order they were loaded. */
let listed = new Map();

function playerName() {
  const input = $('#player-name');
  const name = input.value.trim();
  if (!name) {
    input.focus();
    throw new Said(t('lobby.nameFirst'));
  }
  window.localStorage.setItem(NAME_KEY, name);
  return name;
}

const SEED_FORM = /^[A-Za-z0-9_-]{1,64}$/;

/** The client seed typed, if any; one of the wrong form is refused here, before a game is
 * created for a seat it could not take. */
function clientSeed() {
  const seed = seedToSend($('#client-seed'));
  if (!SEED_FORM.test(seed)) throw new Said(t('problems.type.bad-client-seed'));
  return seed;
}

function showError(selector, error) {
  $(selector).textContent = error ? errorText(error) : '';
}

/** Take the next free seat of a game for this browser and keep its token. */
async function sitDown(gameId) {
  const body = { name: playerName() };
  body.client_seed = clientSeed();
  const granted = await postJson(`${gamePath(gameId)}/seats`, body);
  keepSeat(gameId, { token: granted.token, seat: granted.seat, name: granted.name });
  return granted;
}

function addBot(gameId, n) {
  return postJson(`${gamePath(gameId)}/seats`, { name: t('lobby.botName', { n }), bot: true });
}

function intField(form, name) {
  const raw = form.elements[name].value.trim();
  return raw === '' ? undefined : Number.parseInt(raw, 10);
}

function optionsOf(form, game) {
  const options = {};
  if (game === 'hazari') options.target = intField(form, 'target');
  if (game === 'murlan') {
    options.straight_beats = form.elements.straight_beats.value;
    options.exchange_min_rank = intField(form, 'exchange_min_rank');
  }
  if (game === 'azi') {
    for (const name of ['deck', 'cards', 'buy_in', 'ante', 'min_bet'])
      options[name] = intField(form, name);
    options.six_on_stage = form.elements.six_on_stage.checked;
    options.azi_buy_in = form.elements.azi_buy_in.value;
  }
  const timeout = intField(form, 'turn_timeout_s');
  if (timeout !== undefined) options.turn_timeout_s = timeout;
  return options;
}

function syncOptionFields() {
  const game = $('#game').value;
  for (const fieldset of document.querySelectorAll('fieldset[data-game]')) {
    fieldset.hidden = fieldset.dataset.game !== game;
    fieldset.disabled = fieldset.hidden;
  }
  $('#game-rules').href = `/rules/${encodeURIComponent(game)}`;
  const seats = game === 'azi' ? Number.parseInt($('[name="seats"]').value, 10) || 2 : 4;
  const bots = $('#bots');
  bots.max = String(seats - 1);
  if (Number.parseInt(bots.value, 10) > seats - 1) bots.value = String(seats - 1);
}

async function createGame(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const button = form.querySelector('button[type="submit"]');
  showError('#create-error', null);
  button.disabled = true;
  try {
    playerName();
    clientSeed();
    const game = form.elements.game.value;
    const body = { game, options: optionsOf(form, game) };
    if (game === 'azi') body.seats = intField(form, 'seats');
    const created = await postJson('/games', body);
    await sitDown(created.game_id);
    const bots = Math.min(intField(form, 'bots') || 0, created.seats - 1);
    for (let i = 1; i <= bots; i += 1) await addBot(created.game_id, i);
    window.location.assign(`/table/${encodeURIComponent(created.game_id)}`);
  } catch (error) {
    showError('#create-error', error);
  } finally {
    button.disabled = false;
  }
}

/** "5 minutes ago", in the player's language. */
function ago(ms, now) {
  const rtf = new Intl.RelativeTimeFormat(locale(), { numeric: 'always', style: 'long' });
  const seconds = Math.max(1, Math.round((now - ms) / 1000));
  if (seconds < 60) return rtf.format(-seconds, 'second');
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return rtf.format(-minutes, 'minute');
  const hours = Math.round(minutes / 60);
  if (hours < 48) return rtf.format(-hours, 'hour');
  return rtf.format(-Math.round(hours / 24), 'day');
}

function ageText(node, now = Date.now()) {
  const created = Number(node.dataset.created);
  const last = node.dataset.last ? Number(node.dataset.last) : null;
  node.textContent =
    last === null
      ? t('lobby.ageStarted', { started: ago(created, now) })
      : t('lobby.age', { started: ago(created, now), last: ago(last, now) });
}

/** The ages on screen, kept current. */
function refreshAges() {
  const now = Date.now();
  for (const node of document.querySelectorAll('#games .age')) ageText(node, now);
}

function lastActivity(item) {
  return item.summary.last_event_at ?? item.summary.created_at ?? 0;
}

/** A game in play where no person is present any more: every seat is a bot's or away
 * (bots play out the seats of the players who left). */
function botsOnly(view) {
  const away = view.away || [];
  return (
    view.status === 'playing' &&
    view.seats.length > 0 &&
    view.seats.every((s) => s.bot || away.includes(s.seat))
  );
}

/** Which group a game is listed in: open and playing games that moved lately first,
 * then quiet ones, then those only bots still play, then finished, then abandoned. */
function groupOf(item, now) {
  const { view } = item;
  if (view.abandoned) return 4;
  if (view.status === 'ended' || view.status === 'archived') return 3;
  if (botsOnly(view)) return 2;
  return now - lastActivity(item) > QUIET_MS ? 1 : 0;
}

function statusTag(view) {
  if (botsOnly(view))
    return h(
      'span',
      { className: 'tag status-bots', title: t('play.lobby.botsOnlyTitle') },
      t('play.lobby.botsOnly'),
    );
  const key = statusKey(view);
  return h('span', { className: `tag status-${key || 'other'}` }, key ? t(`lobby.state.${key}`) : view.status);
}

function statusKey(view) {
  if (view.abandoned) return 'abandoned';
  return ['seating', 'playing', 'ended', 'archived'].includes(view.status) ? view.status : null;
}

function seatsCell(view) {
  const free = view.seats.filter((s) => !s.name).length;
  const held = seatOf(view.game_id);
  return h(
    'td',
    { className: 'players-cell' },
    h(
      'ul',
      { className: 'players' },
      view.seats
        .filter((s) => s.name)
        .map((s) =>
          h(
            'li',
            { className: 'player' },
            s.name,
            s.bot ? h('span', { className: 'tag bot' }, t('lobby.tagBot')) : null,
            held && held.seat === s.seat
              ? h('span', { className: 'tag you' }, t('lobby.tagYou'))
              : null,
          ),
        ),
    ),
    free ? h('div', { className: 'hint' }, t('lobby.freeSeats', { count: free })) : null,
  );
}

function actionsCell(view, refreshRow) {
  const id = view.game_id;
  const held = seatOf(id);
  const table = `/table/${encodeURIComponent(id)}`;
  const buttons = [];
  if (held) buttons.push(h('a', { className: 'button primary', href: table }, t('lobby.backToSeat')));
  if (view.status === 'seating') {
    if (!held) {
      buttons.push(
        h(
          'button',
          {
            type: 'button',
            className: 'primary',
            onclick: async () => {
              showError('#list-error', null);
              try {
                await sitDown(id);
                window.location.assign(table);
              } catch (error) {
                showError('#list-error', error);
              }
            },
          },
          t('lobby.takeSeat'),
        ),
      );
    }
    buttons.push(
      h(
        'button',
        {
          type: 'button',
          onclick: async () => {
            showError('#list-error', null);
            try {
              await addBot(id, view.seats.filter((s) => s.name).length + 1);
              await refreshRow();
            } catch (error) {
              showError('#list-error', error);
            }
          },
        },
        t('lobby.addBot'),
      ),
    );
  } else if (!held && view.status !== 'archived') {
    buttons.push(
      h(
        'a',
        { className: 'button', href: table },
        view.status === 'ended' ? t('lobby.finalTable') : t('lobby.watch'),
      ),
    );
  }
  if (view.status === 'ended' || view.status === 'archived') {
    buttons.push(
      h('a', { className: 'button', href: `/replay/${encodeURIComponent(id)}` }, t('lobby.replay')),
    );
  }
  return h('td', { className: 'actions-col' }, h('div', { className: 'actions-cell' }, buttons));
}

function gameRow(item) {
  const { view, summary } = item;
  const age = h('div', {
    className: 'hint age',
    dataset: {
      created: String(summary.created_at ?? ''),
      last: summary.last_event_at == null ? '' : String(summary.last_event_at),
    },
  });
  if (summary.created_at != null) ageText(age);
  return h(
    'tr',
    { dataset: { game: view.game_id, group: String(groupOf(item, Date.now())) } },
    h(
      'td',
      { className: 'game-cell' },
      h('strong', {}, t(`common.game.${view.game}`)),
      h('div', { className: 'hint mono game-id' }, view.game_id),
    ),
    seatsCell(view),
    h(
      'td',
      { className: 'status-cell' },
      statusTag(view),
      summary.created_at != null ? age : null,
    ),
    actionsCell(view, async () => {
      const fresh = await getJson(gamePath(view.game_id));
      // a seat was just taken: that is the game's latest event
      listed.set(view.game_id, { view: fresh, summary: { ...summary, last_event_at: Date.now() } });
      renderList();
    }),
  );
}

/** Every listed game, the lively ones first, each group by its latest activity. */
function renderList() {
  const now = Date.now();
  const items = [...listed.values()].sort(
    (a, b) => groupOf(a, now) - groupOf(b, now) || lastActivity(b) - lastActivity(a),
  );
  const body = $('#games tbody');
  fill(body, items.map(gameRow));
  $('#games-empty').hidden = items.length > 0;
}

async function loadGames(more = false) {
  const form = $('#filter-form');
  const params = new URLSearchParams();
  for (const name of ['game', 'status']) {
    if (form.elements[name].value) params.set(name, form.elements[name].value);
  }
  params.set('limit', String(PAGE_SIZE));
  if (more && cursor) params.set('cursor', cursor);
  showError('#list-error', null);
  try {
    const page = await getJson(`/games?${params}`);
    // A game whose view cannot be read now is still listed, from its summary.
    const views = await Promise.all(
      page.items.map((item) =>
        getJson(gamePath(item.game_id)).catch(() => ({ ...item, seats: [] })),
      ),
    );
    if (!more) listed = new Map();
    page.items.forEach((summary, i) =>
      listed.set(summary.game_id, { view: views[i], summary }),
    );
    renderList();
    cursor = page.next_cursor;
    $('#more').hidden = !cursor;
  } catch (error) {
    showError(
      '#list-error',
      error instanceof ApiProblem ? error : new Said(t('lobby.loadFailed', { error: errorText(error) })),
    );
  }
}

function start() {
  // A name typed while the page was loading is kept.
  const name = $('#player-name');
  if (!name.value) name.value = window.localStorage.getItem(NAME_KEY) || '';
  offerSeed($('#client-seed'));
  $('#game').addEventListener('change', syncOptionFields);
  $('[name="seats"]').addEventListener('input', syncOptionFields);
  $('#create-form').addEventListener('submit', createGame);
  $('#filter-form').addEventListener('submit', (event) => {
    event.preventDefault();
    loadGames();
  });
  $('#more').addEventListener('click', () => loadGames(true));
  syncOptionFields();
  // The forms answer once their handlers are in place; until then the buttons
  // are disabled, so an early click cannot submit the form natively.
  for (const button of document.querySelectorAll('form button[type="submit"]'))
    button.disabled = false;
  loadGames();
  window.setInterval(refreshAges, 15_000);
}

loadCatalogs(['common', 'lobby', 'problems', 'play']).then(() => {
  translatePage();
  setUpQuickPlay();
  start();
});
