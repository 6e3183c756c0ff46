// Azi at the table: bet, call, fold, discard, play a card, buy in or decline, leave.
import { cardButton, cardText, cardView, suitText } from './cards.js';
import { h } from './dom.js';

let selected = null;
let betDraft = null; // {version, amount}
const PHASES = {
  dealing: 'dealing',
  discarding: 'discarding',
  bidding: 'bidding',
  playing: 'playing tricks',
  azi_buy_in: 'Azi: buy in or decline',
  settling: 'settling the pot',
  over: 'over',
};

export function seatFacts(v, s) {
  const seat = v.table.seats[s];
  if (!seat) return [];
  const facts = [];
  if (v.table.dealer === s) facts.push('dealer');
  if (seat.left) facts.push('left');
  else if (!seat.in_hand) facts.push('sits out');
  if (seat.bid) facts.push(`bid ${seat.bid}`);
  if (seat.folded) facts.push('folded');
  if (seat.all_in) facts.push('all in');
  if (seat.short) facts.push('short');
  if (seat.tricks) facts.push(`${seat.tricks} trick${seat.tricks === 1 ? '' : 's'}`);
  if (seat.leaving) facts.push('leaving');
  return facts;
}

export function statusText(v, c) {
  const t = v.table;
  if (t.phase === 'bidding') {
    return t.bidding.highest
      ? `bidding: ${t.bidding.highest} by ${c.name(t.bidding.leader)}`
      : 'bidding: no bid yet';
  }
  return PHASES[t.phase] || t.phase;
}

export function resultText(v, c) {
  const r = v.result;
  return `Results: ${v.seats.map((s) => `${c.name(s.seat)} ${r.results[s.seat] > 0 ? '+' : ''}${r.results[s.seat]}`).join(', ')}.`;
}

export function board(v, c) {
  const t = v.table;
  const facts = h(
    'div',
    { className: 'facts' },
    h('span', { className: 'fact' }, 'Hand ', h('b', {}, String(t.hand_no))),
    t.dealer !== null
      ? h('span', { className: 'fact' }, 'Dealer ', h('b', {}, c.name(t.dealer)))
      : null,
    h('span', { className: 'fact' }, 'Phase ', h('b', {}, PHASES[t.phase] || t.phase)),
    h('span', { className: 'fact' }, `Ante ${t.ante} · minimum bet ${t.min_bet}`),
  );
  const trump = h(
    'div',
    { className: 'facts', id: 'trump' },
    h('span', { className: 'pot', id: 'pot' }, `Pot ${t.pot}`),
    t.trump
      ? h(
          'span',
          { className: 'fact' },
          'Trump ',
          h('b', {}, suitText(t.trump)),
          ' ',
          t.trump_card ? cardView(t.trump_card, 'small') : null,
        )
      : null,
    t.six_on_stage
      ? h('span', { className: 'tag turn' }, 'six on stage: the 6 of trumps is the highest card')
      : null,
    t.bidding.highest
      ? h(
          'span',
          { className: 'fact' },
          'Highest bid ',
          h('b', {}, String(t.bidding.highest)),
          ` by ${c.name(t.bidding.leader)}`,
        )
      : null,
  );
  const trick = t.trick.length
    ? h(
        'div',
        { className: 'trick', id: 'trick', 'aria-label': 'The trick' },
        t.trick.map((p) =>
          h(
            'div',
            { className: 'play' },
            cardView(p.card),
            h('span', { className: 'who' }, c.name(p.seat)),
          ),
        ),
      )
    : h(
        'p',
        { className: 'hint', id: 'trick' },
        t.phase === 'playing' ? `${c.name(t.turn)} leads the trick.` : '',
      );
  const azi = t.azi
    ? h(
        'p',
        { className: 'notice', style: null },
        `Azi! The pot stays for a replay dealt by ${c.name(t.azi.dealer)}. Buying in costs ${t.azi.price}. `,
        t.azi.in_replay.length ? `In the replay: ${t.azi.in_replay.map(c.name).join(', ')}.` : '',
      )
    : null;
  const winner =
    t.pot_winner !== null && t.pot_winner !== undefined
      ? h('p', {}, `${c.name(t.pot_winner)} wins the pot.`)
      : null;
  const table = h(
    'table',
    { className: 'list', 'aria-label': 'Players' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Player', 'Stack', 'Bid', 'In the pot', 'Tricks', ''].map((x) =>
          h('th', { scope: 'col' }, x),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      t.seats.map((s) =>
        h(
          'tr',
          {},
          h('td', {}, c.name(s.seat)),
          h('td', {}, String(s.stack)),
          h('td', {}, String(s.bid)),
          h('td', {}, String(s.contribution)),
          h('td', {}, String(s.tricks)),
          h(
            'td',
            {},
            [
              s.folded ? 'folded' : '',
              s.all_in ? 'all in' : '',
              s.short ? 'short' : '',
              s.left ? 'left' : '',
              !s.in_hand && !s.left ? 'sits out' : '',
            ]
              .filter(Boolean)
              .join(', '),
          ),
        ),
      ),
    ),
  );
  return [facts, trump, azi, trick, winner, table];
}

function betControls(v, c, bets) {
  const amounts = bets.map((m) => m.amount);
  const low = Math.min(...amounts);
  const high = Math.max(...amounts);
  if (!betDraft || betDraft.version !== v.version) betDraft = { version: v.version, amount: low };
  const input = h('input', {
    type: 'number',
    id: 'bet-amount',
    min: String(low),
    max: String(high),
    step: '1',
    value: String(betDraft.amount),
    'aria-describedby': 'bet-range',
    dataset: { focus: 'bet-amount' },
    oninput: (event) => {
      betDraft.amount = Number.parseInt(event.target.value, 10);
    },
  });
  const raise = v.table.bidding.highest > 0;
  return h(
    'form',
    {
      className: 'moves',
      onsubmit: async (event) => {
        event.preventDefault();
        const amount = Number.parseInt(input.value, 10);
        if (await c.submit({ action: 'bet', amount })) betDraft = null;
      },
    },
    h('label', {}, h('span', { className: 'lbl' }, raise ? 'Raise to' : 'Bet'), input),
    h('span', { className: 'hint', id: 'bet-range' }, `${low}–${high}`),
    h(
      'button',
      { type: 'submit', className: 'primary', dataset: { focus: 'bet', action: 'bet' } },
      raise ? 'Raise' : 'Bet',
    ),
  );
}

function moveButton(label, move, c, extra = {}) {
  return h(
    'button',
    {
      type: 'button',
      dataset: { focus: move.action, action: move.action },
      onclick: async () => {
        if (await c.submit(move)) selected = null;
      },
      ...extra,
    },
    label,
  );
}

export function you(v, c) {
  const t = v.table;
  const hand = v.hand || [];
  const legal = v.legal_moves || [];
  const of = (action) => legal.filter((m) => m.action === action);
  const playable = of('play').map((m) => m.card);
  const discardable = of('discard').map((m) => m.card);
  const choosing = playable.length ? playable : discardable;
  if (selected && !choosing.includes(selected)) selected = null;
  const cards = hand.map((card) =>
    cardButton(card, {
      pressed: selected === card,
      disabled: !choosing.includes(card),
      extra: choosing.includes(card) ? 'legal' : '',
      onclick: () => {
        selected = selected === card ? null : card;
        c.rerender();
      },
    }),
  );
  const actions = [];
  if (t.discard)
    actions.push(h('p', { className: 'hint' }, 'You discarded ', cardText([t.discard]), '.'));
  const bets = of('bet');
  if (bets.length) actions.push(betControls(v, c, bets));
  const row = [];
  if (of('call').length) {
    const me = t.seats[c.seat];
    const owed = Math.min(t.bidding.highest - me.bid, me.stack);
    row.push(moveButton(`Call (${owed})`, { action: 'call' }, c, { className: 'primary' }));
  }
  if (of('fold').length) row.push(moveButton('Fold', { action: 'fold' }, c));
  if (playable.length) {
    row.push(
      h(
        'button',
        {
          type: 'button',
          className: 'primary',
          disabled: !selected,
          dataset: { focus: 'play', action: 'play' },
          onclick: async () => {
            if (selected && (await c.submit({ action: 'play', card: selected }))) selected = null;
          },
        },
        selected ? `Play ${cardText([selected])}` : 'Play the selected card',
      ),
    );
  }
  if (discardable.length) {
    row.push(
      h(
        'button',
        {
          type: 'button',
          className: 'primary',
          disabled: !selected,
          dataset: { focus: 'discard', action: 'discard' },
          onclick: async () => {
            if (selected && (await c.submit({ action: 'discard', card: selected })))
              selected = null;
          },
        },
        selected ? `Discard ${cardText([selected])}` : 'Discard the selected card',
      ),
    );
  }
  if (of('buy_in').length) {
    row.push(
      moveButton(`Buy in (${t.azi ? t.azi.price : ''})`, { action: 'buy_in' }, c, {
        className: 'primary',
      }),
    );
  }
  if (of('decline').length) row.push(moveButton('Decline', { action: 'decline' }, c));
  if (of('leave').length)
    row.push(moveButton('Leave after this hand', { action: 'leave' }, c, { className: 'danger' }));
  if (row.length) actions.push(h('div', { className: 'moves' }, row));
  if (playable.length || discardable.length) {
    actions.push(
      h(
        'p',
        { className: 'hint' },
        playable.length
          ? 'Select a card, then play it. Follow the led suit; if you cannot, play a trump if you can.'
          : 'Select the card to discard face down.',
      ),
    );
  }
  if (!legal.length)
    actions.push(
      h(
        'p',
        { className: 'hint' },
        v.status === 'ended' ? 'The game is over.' : 'Wait for your turn.',
      ),
    );
  return [cards, actions];
}

export function onKey(event, v, c) {
  if (event.key === 'Escape' && selected) {
    selected = null;
    c.rerender();
    return true;
  }
  return false;
}
