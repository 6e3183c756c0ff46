// The replay viewer: every deal as dealt, every move, step by step, and the
// server's verification of the shuffle.
import { gamePath, getJson, seatOf } from './api.js';
import { cardRow, cardText, cardView, handOrder, runOrder, suitText } from './cards.js';
import { $, fill, gameIdFromPath, h } from './dom.js';
import { describe, seatName } from './events.js';
import { describeGroup } from './hazari-eval.js';
import { has, list, loadCatalogs, t, translatePage } from './i18n.js';
import { errorText } from './problems.js';
import { verifyReplay } from './verifier.js';
import { verificationView } from './verifier-view.js';

const gameName = (game) => t(`common.game.${game}`);
const DEAL_TYPES = new Set(['Dealt', 'HandDealt']);

const gameId = gameIdFromPath();
let doc = null;
let position = 0;
let dealSteps = []; // event indexes of the deals
let items = [];
const verdicts = { own: undefined, server: undefined }; // true, false, or null (no verdict)

/** Say so when the browser's check and the server's disagree. */
function compareVerdicts() {
  const { own, server } = verdicts;
  const differ = typeof own === 'boolean' && typeof server === 'boolean' && own !== server;
  const note = $('#verify-disagree');
  note.hidden = !differ;
  note.textContent = differ ? t('verifier.disagree') : '';
}

const name = (s) => seatName(doc.seats, s);
/** "Ann 120, Bob 80": each seat's figure, listed the player's way. */
function figures(values) {
  return list(
    doc.seats.map((s) => t('replay.nameFigure', { name: name(s.seat), value: values[s.seat] })),
    'unit',
  );
}
const names = (seats) => list(seats.map(name));

/** The table after events[0..upto], as far as the viewer needs it. */
function fold(upto) {
  const st = {
    deal: null,
    dealIndex: -1,
    gone: new Set(),
    given: new Set(),
    gained: {},
    scores: null,
    lastPlay: null,
    trick: [],
    tricks: {},
    rounds: [],
    pot: 0,
    stacks: null,
    trump: null,
    trumpCard: null,
    out: [],
  };
  if (doc.game === 'azi') st.stacks = doc.seats.map(() => doc.options.buy_in);
  for (let i = 0; i <= upto; i += 1) {
    const e = doc.events[i];
    switch (e.type) {
      case 'Dealt':
      case 'HandDealt':
        st.dealIndex += 1;
        st.deal = doc.deals[st.dealIndex] || {
          deal: e.deal,
          dealer: e.dealer,
          hands: Object.fromEntries(e.hands.map((hd, s) => [String(s), hd])),
        };
        st.gone = new Set();
        st.given = new Set();
        st.gained = {};
        st.lastPlay = null;
        st.trick = [];
        st.tricks = {};
        st.rounds = [];
        st.out = [];
        if (e.trump !== undefined) {
          st.trump = e.trump;
          st.trumpCard = e.trump_card;
        }
        break;
      case 'CardsPlayed':
        e.cards.forEach((card) => st.gone.add(card));
        st.lastPlay = { seat: e.seat, cards: runOrder(e.cards, e.combination), combination: e.combination };
        break;
      case 'TableCleared':
        st.lastPlay = null;
        break;
      case 'WentOut':
        st.out.push(e.seat);
        break;
      case 'CardGiven':
      case 'CardGivenBack':
        st.given.add(e.card);
        (st.gained[e.to_seat] ||= []).push(e.card);
        break;
      case 'HandEnded':
      case 'DealScored':
        st.scores = e.scores;
        break;
      case 'RoundPlayed':
        st.rounds.push(e);
        e.laid.flat().forEach((card) => st.gone.add(card));
        break;
      case 'MatchEnded':
      case 'MatchWon':
        if (e.scores) st.scores = e.scores;
        if (e.stacks) st.stacks = e.stacks;
        break;
      case 'AntesPaid':
        e.antes.forEach((a, s) => {
          st.pot += a;
          st.stacks[s] -= a;
        });
        break;
      case 'BetPlaced':
      case 'Called':
      case 'BoughtIn':
        st.pot += e.paid;
        st.stacks[e.seat] -= e.paid;
        break;
      case 'Discarded':
        if (e.card && e.card !== '??') st.gone.add(e.card);
        break;
      case 'CardPlayed':
        if (st.trick.length && st.trickDone) {
          st.trick = [];
          st.trickDone = false;
        }
        st.trick.push({ seat: e.seat, card: e.card });
        st.gone.add(e.card);
        break;
      case 'TrickTaken':
        st.tricks[e.winner] = (st.tricks[e.winner] || 0) + 1;
        st.trickDone = true;
        break;
      case 'PotSettled':
        e.payouts.forEach((p, s) => {
          st.stacks[s] += p;
        });
        st.pot = 0;
        break;
      default:
        break;
    }
  }
  st.gone.delete('??'); // hidden cards of an unfinished game are never marked
  st.given.delete('??');
  return st;
}

function handsView(st) {
  if (!st.deal) return h('p', { className: 'hint' }, t('replay.noDealYet'));
  const rows = Object.keys(st.deal.hands)
    .sort((a, b) => Number(a) - Number(b))
    .map((key) => {
      const s = Number(key);
      const dealt = handOrder(doc.game, st.deal.hands[key]);
      const gained = handOrder(doc.game, st.gained[s] || []);
      return h(
        'div',
        { className: 'hand-row', dataset: { seat: key } },
        h(
          'div',
          {},
          h('strong', {}, name(s)),
          st.deal.dealer === s ? h('span', { className: 'tag' }, t('replay.dealer')) : null,
        ),
        h(
          'span',
          { className: 'cards' },
          dealt.map((card) =>
            cardView(card, `small${st.gone.has(card) || st.given.has(card) ? ' played' : ''}`),
          ),
          gained.map((card) =>
            cardView(card, `small received${st.gone.has(card) ? ' played' : ''}`),
          ),
        ),
      );
    });
  return h('div', { className: 'hands', id: 'hands' }, rows);
}

function tableView(st) {
  const parts = [];
  if (doc.game === 'murlan') {
    parts.push(
      st.lastPlay
        ? h(
            'p',
            {},
            t('replay.onTheTable', { name: name(st.lastPlay.seat) }),
            ' ',
            cardRow(st.lastPlay.cards, 'small'),
          )
        : h('p', { className: 'hint' }, t('replay.tableClear')),
    );
    if (st.out.length) parts.push(h('p', {}, t('replay.out', { names: names(st.out) })));
  }
  if (doc.game === 'azi') {
    parts.push(
      h(
        'p',
        {},
        h('span', { className: 'pot' }, t('replay.pot', { pot: st.pot })),
        st.trump ? ` · ${t('replay.trump', { suit: suitText(st.trump) })} ` : '',
        st.trumpCard ? cardView(st.trumpCard, 'small') : null,
      ),
    );
    if (st.trick.length) {
      parts.push(
        h(
          'div',
          { className: 'trick' },
          st.trick.map((p) =>
            h(
              'div',
              { className: 'play' },
              cardView(p.card, 'small'),
              h('span', { className: 'who' }, name(p.seat)),
            ),
          ),
        ),
      );
    }
    parts.push(h('p', {}, t('replay.stacks', { list: figures(st.stacks) })));
  }
  if (doc.game === 'hazari' && st.rounds.length) {
    parts.push(
      h(
        'div',
        { className: 'rounds' },
        st.rounds.map((r) =>
          h(
            'div',
            { className: 'round' },
            h(
              'h4',
              {},
              t('replay.round', { round: r.round, name: name(r.winner), points: r.points }),
            ),
            h(
              'div',
              { className: 'laid' },
              r.order.map((s) =>
                h(
                  'div',
                  { className: s === r.winner ? 'winner' : '' },
                  h('div', {}, name(s)),
                  cardRow(r.laid[s], 'small'),
                  h('div', { className: 'hint' }, describeGroup(r.laid[s])),
                ),
              ),
            ),
          ),
        ),
      ),
    );
  }
  if (st.scores) parts.push(h('p', {}, t('replay.scores', { list: figures(st.scores) })));
  return parts;
}

function go(next) {
  const last = doc.events.length - 1;
  position = Math.max(0, Math.min(last, next));
  const st = fold(position);
  const event = doc.events[position];
  $('#position').value = String(position);
  $('#step-pos').textContent = st.deal
    ? t('replay.stepOfDeal', {
        step: position + 1,
        steps: doc.events.length,
        deal: st.deal.deal + 1,
        deals: doc.deals.length,
      })
    : t('replay.step', { step: position + 1, steps: doc.events.length });
  $('#current').textContent = describe(event, doc.seats);
  $('#back').disabled = position === 0;
  $('#forward').disabled = position === last;
  $('#prev-deal').disabled = !dealSteps.some((i) => i < position);
  $('#next-deal').disabled = !dealSteps.some((i) => i > position);
  fill(
    $('#replay-board'),
    h(
      'h2',
      {},
      st.deal ? t('replay.dealHands', { deal: st.deal.deal + 1 }) : t('replay.beforeFirstDeal'),
    ),
    st.deal ? h('p', { className: 'hint' }, t('replay.cardsHint')) : null,
    handsView(st),
    tableView(st),
  );
  items.forEach((item, i) => {
    item.classList.toggle('current', i === position);
    if (i === position) item.setAttribute('aria-current', 'step');
    else item.removeAttribute('aria-current');
  });
  showInLog(items[position]);
}

/** Scroll the event list (its own box) to show ``item``, never the page: the step
 * controls stay where they are. */
function showInLog(item) {
  if (!item) return;
  const box = $('#events');
  const top = item.offsetParent === box ? item.offsetTop : item.offsetTop - box.offsetTop;
  if (top < box.scrollTop) box.scrollTop = top;
  else if (top + item.offsetHeight > box.scrollTop + box.clientHeight)
    box.scrollTop = top + item.offsetHeight - box.clientHeight;
}

function jumpDeal(direction) {
  const target =
    direction < 0
      ? [...dealSteps].reverse().find((i) => i < position)
      : dealSteps.find((i) => i > position);
  if (target !== undefined) go(target);
}

function onKey(event) {
  if (
    !doc ||
    event.target.matches('input, select, textarea') ||
    event.altKey ||
    event.ctrlKey ||
    event.metaKey
  )
    return;
  const keys = {
    ArrowLeft: () => go(position - 1),
    ArrowRight: () => go(position + 1),
    PageUp: () => jumpDeal(-1),
    PageDown: () => jumpDeal(1),
    Home: () => go(0),
    End: () => go(doc.events.length - 1),
  };
  if (keys[event.key]) {
    keys[event.key]();
    event.preventDefault();
  }
}

async function verifyBadge() {
  const badge = $('#verify-badge');
  try {
    const v = await getJson(`${gamePath(gameId)}/verify`);
    badge.dataset.code = v.code || '';
    verdicts.server = v.verified;
    compareVerdicts();
    if (v.verified === true) {
      badge.className = 'badge ok';
      badge.textContent = t('replay.verified', { deals: v.deals_checked, moves: v.moves_checked });
    } else if (v.verified === false) {
      // What did not match, by its code (the English `reason` is for API clients).
      const params = v.params || {};
      const key = `replay.mismatchCode.${params.code}`;
      badge.className = 'badge bad';
      badge.textContent = t('replay.verifyFailed', {
        reason: has(key) ? t(key, { deal: params.deal ?? '', seat: params.seat ?? '' }) : t('replay.mismatch'),
      });
    } else {
      badge.className = 'badge wait';
      badge.textContent = t('replay.notYetSeed');
    }
  } catch (error) {
    badge.className = 'badge bad';
    badge.textContent = t('replay.couldNotVerify', { error: errorText(error) });
  }
}

/** The check this browser makes itself, from the document alone (never from /verify). */
async function verifyHere() {
  const box = $('#browser-verify');
  const result = await verifyReplay(doc, {
    onProgress: (done, total) => {
      const line = box.querySelector('.check-verdict');
      if (line) line.textContent = t('verifier.progress', { done, total });
    },
  });
  const [verdict, ...details] = verificationView(result, t);
  fill(box, verdict);
  fill($('#browser-checks'), details);
  if (!result.ok) $('#verify-details').open = true;
  verdicts.own = result.code === 'not-revealed' ? null : result.ok;
  compareVerdicts();
}

function seedsList() {
  const rows = [
    [t('replay.commitment'), doc.commitment],
    [t('replay.serverSeed'), doc.server_seed || t('replay.seedSecret')],
  ];
  for (const s of doc.seats) {
    const origin = s.seed_origin || 'unrecorded';
    const note = t(`replay.seedOrigin.${origin}`, { seat: s.seat });
    rows.push([t('replay.clientSeed', { name: s.name }), `${s.client_seed} (${note})`]);
  }
  fill(
    $('#seeds'),
    rows.map(([k, val]) => [h('dt', {}, k), h('dd', { className: 'mono' }, val)]),
  );
}

function resultText() {
  const r = doc.result || {};
  if (doc.game === 'azi') return r.results ? t('replay.results', { list: figures(r.results) }) : '';
  if (!r.scores) return '';
  const winners = r.winners || [];
  return winners.length
    ? t('replay.winnersAndScores', {
        count: winners.length,
        names: names(winners),
        list: figures(r.scores),
      })
    : t('replay.finalScores', { list: figures(r.scores) });
}

async function start() {
  $('#table-link').href = `/table/${encodeURIComponent(gameId)}`;
  $('#download').href = `${gamePath(gameId)}/replay`;
  $('#download').setAttribute('download', `cardroom-replay-${gameId}.json`);
  document.addEventListener('keydown', onKey);
  verifyBadge();
  try {
    const held = seatOf(gameId);
    doc = await getJson(`${gamePath(gameId)}/replay`, held ? held.token : undefined);
  } catch (error) {
    $('#error').textContent = errorText(error);
    fill($('#browser-verify'), h('p', { className: 'check-verdict bad' }, t('verifier.problem.unreadable')));
    return;
  }
  document.title = t('replay.documentTitle', { game: gameName(doc.game) });
  $('#title').textContent = t('replay.titleOf', { game: gameName(doc.game) });
  $('#rules-link').href = `/rules/${encodeURIComponent(doc.game)}`;
  fill(
    $('#meta'),
    h('span', { className: 'mono' }, t('replay.gameId', { id: doc.game_id })),
    ' · ',
    t('replay.counts', { deals: doc.deals.length, events: doc.events.length }),
    doc.complete ? null : [' · ', t('replay.unfinished')],
  );
  $('#result').textContent = resultText();
  seedsList();
  verifyHere();
  dealSteps = doc.events.map((e, i) => (DEAL_TYPES.has(e.type) ? i : -1)).filter((i) => i >= 0);
  items = doc.events.map((e, i) =>
    h(
      'li',
      { dataset: { step: String(i) } },
      h(
        'button',
        { type: 'button', tabindex: '-1', onclick: () => go(i) },
        h('span', { className: 'ver' }, String(e.version)),
        describe(e, doc.seats),
        e.move && e.type === 'Arranged'
          ? ` (${e.move.groups.map((g) => cardText(g)).join(' | ')})`
          : '',
      ),
    ),
  );
  fill($('#events'), items);
  const range = $('#position');
  range.max = String(doc.events.length - 1);
  range.addEventListener('input', () => go(Number.parseInt(range.value, 10)));
  $('#back').addEventListener('click', () => go(position - 1));
  $('#forward').addEventListener('click', () => go(position + 1));
  $('#prev-deal').addEventListener('click', () => jumpDeal(-1));
  $('#next-deal').addEventListener('click', () => jumpDeal(1));
  go(dealSteps.length ? dealSteps[0] : 0);
}

loadCatalogs(['common', 'replay', 'events', 'hazari', 'verifier', 'problems']).then(() => {
  translatePage();
  start();
});
