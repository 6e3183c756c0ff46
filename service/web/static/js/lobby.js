// The lobby: create a game, list games, take a seat or add bots.
import { ApiProblem, gamePath, getJson, keepSeat, postJson, seatOf } from './api.js';
import { $, fill, h } from './dom.js';

const GAME_NAMES = { murlan: 'Murlan', hazari: 'Hazari Lite', azi: 'Azi' };
const STATUS_NAMES = { seating: 'open', playing: 'playing', ended: 'finished' };
const PAGE_SIZE = 10; // each listed game costs one more request: stay well inside the rate limit
const NAME_KEY = 'cardroom.name';
let cursor = null;

function playerName() {
  const input = $('#player-name');
  const name = input.value.trim();
  if (!name) {
    input.focus();
    throw new Error('Enter your name first (in “You”).');
  }
  window.localStorage.setItem(NAME_KEY, name);
  return name;
}

function clientSeed() {
  const seed = $('#client-seed').value.trim();
  return seed || undefined;
}

function showError(selector, error) {
  $(selector).textContent = error ? error.message || String(error) : '';
}

/** Take the next free seat of a game for this browser and keep its token. */
async function sitDown(gameId) {
  const body = { name: playerName() };
  const seed = clientSeed();
  if (seed) body.client_seed = seed;
  const granted = await postJson(`${gamePath(gameId)}/seats`, body);
  keepSeat(gameId, { token: granted.token, seat: granted.seat, name: granted.name });
  return granted;
}

function addBot(gameId, n) {
  return postJson(`${gamePath(gameId)}/seats`, { name: `Bot ${n}`, bot: true });
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

function seatsCell(view) {
  const free = view.seats.filter((s) => !s.name).length;
  const held = seatOf(view.game_id);
  return h(
    'td',
    {},
    view.seats
      .filter((s) => s.name)
      .map((s, i) =>
        h(
          'span',
          { className: 'player' },
          i ? ', ' : '',
          s.name,
          s.bot ? h('span', { className: 'tag bot' }, 'bot') : null,
          held && held.seat === s.seat ? h('span', { className: 'tag you' }, 'you') : null,
        ),
      ),
    free ? h('div', { className: 'hint' }, `${free} free seat${free === 1 ? '' : 's'}`) : null,
  );
}

function actionsCell(view, refreshRow) {
  const id = view.game_id;
  const held = seatOf(id);
  const table = `/table/${encodeURIComponent(id)}`;
  const buttons = [];
  if (held) buttons.push(h('a', { className: 'button primary', href: table }, 'Back to your seat'));
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
          'Take a seat',
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
        'Add a bot',
      ),
    );
  } else if (!held) {
    buttons.push(
      h(
        'a',
        { className: 'button', href: table },
        view.status === 'ended' ? 'Final table' : 'Watch',
      ),
    );
  }
  if (view.status === 'ended') {
    buttons.push(
      h('a', { className: 'button', href: `/replay/${encodeURIComponent(id)}` }, 'Replay'),
    );
  }
  return h('td', {}, h('div', { className: 'actions-cell' }, buttons));
}

function gameRow(view) {
  const row = h('tr', { dataset: { game: view.game_id } });
  const draw = (v) => {
    fill(
      row,
      h(
        'td',
        {},
        h('strong', {}, GAME_NAMES[v.game] || v.game),
        h('div', { className: 'hint mono' }, v.game_id),
      ),
      seatsCell(v),
      h(
        'td',
        {},
        h('span', { className: `tag status-${v.status}` }, STATUS_NAMES[v.status] || v.status),
      ),
      actionsCell(v, async () => draw(await getJson(gamePath(v.game_id)))),
    );
  };
  draw(view);
  return row;
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
    const rows = views.map(gameRow);
    const body = $('#games tbody');
    if (more) body.append(...rows);
    else fill(body, rows);
    cursor = page.next_cursor;
    $('#more').hidden = !cursor;
    $('#games-empty').hidden = body.children.length > 0;
  } catch (error) {
    showError(
      '#list-error',
      error instanceof ApiProblem ? error : new Error(`Could not load the games: ${error}`),
    );
  }
}

function start() {
  $('#player-name').value = window.localStorage.getItem(NAME_KEY) || '';
  $('#game').addEventListener('change', syncOptionFields);
  $('[name="seats"]').addEventListener('input', syncOptionFields);
  $('#create-form').addEventListener('submit', createGame);
  $('#filter-form').addEventListener('submit', (event) => {
    event.preventDefault();
    loadGames();
  });
  $('#more').addEventListener('click', () => loadGames(true));
  syncOptionFields();
  loadGames();
}

start();
