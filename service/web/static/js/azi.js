// Azi at the table: bet, call, fold, discard, play a card, buy in or decline, leave.
import { cardButton, cardText, cardView, suitText } from './cards.js';
import { h } from './dom.js';
import { nameList } from './events.js';
import { has, t } from './i18n.js';

let selected = null;
let betDraft = null; // {version, amount}

const phase = (p) => (has(`azi.phase.${p}`) ? t(`azi.phase.${p}`) : t('azi.phase.other'));

export function seatFacts(v, s) {
  const seat = v.table.seats[s];
  if (!seat) return [];
  const facts = [];
  if (v.table.dealer === s) facts.push(t('azi.seat.dealer'));
  if (seat.left) facts.push(t('azi.seat.left'));
  else if (!seat.in_hand) facts.push(t('azi.seat.sitsOut'));
  if (seat.bid) facts.push(t('azi.seat.bid', { amount: seat.bid }));
  if (seat.folded) facts.push(t('azi.seat.folded'));
  if (seat.all_in) facts.push(t('azi.seat.allIn'));
  if (seat.short) facts.push(t('azi.seat.short'));
  if (seat.tricks) facts.push(t('azi.seat.tricks', { count: seat.tricks }));
  if (seat.leaving) facts.push(t('azi.seat.leaving'));
  return facts;
}

export function statusText(v, c) {
  const tb = v.table;
  if (tb.phase === 'bidding') {
    return tb.bidding.highest
      ? t('azi.status.bid', { amount: tb.bidding.highest, name: c.name(tb.bidding.leader) })
      : t('azi.status.noBid');
  }
  if (tb.phase === 'settling' && tb.pot_winner !== null && tb.pot_winner !== undefined)
    return t('azi.status.settling', { name: c.name(tb.pot_winner) });
  return phase(tb.phase);
}

export function resultText(v, c) {
  const r = v.result;
  return t('azi.result', {
    results: nameList(
      v.seats.map((s) =>
        t('azi.nameResult', {
          name: c.name(s.seat),
          value: r.results[s.seat],
          sign: r.results[s.seat] > 0 ? '+' : '',
        }),
      ),
    ),
  });
}

function lastTrick(c) {
  const e = c.recent;
  if (!e || e.type !== 'TrickTaken') return null;
  return h(
    'div',
    { className: 'trick done', id: 'trick', 'aria-label': t('azi.trick.lastLabel') },
    h('p', { className: 'trick-note' }, t('azi.trick.won', { trick: e.trick, name: c.name(e.winner) })),
    e.seats.map((seat, i) =>
      h(
        'div',
        { className: `play${seat === e.winner ? ' winner' : ''}` },
        cardView(e.cards[i]),
        h('span', { className: 'who' }, c.name(seat)),
      ),
    ),
  );
}

/** The pot, the trump and the highest bid (with ids on the board, without beside the hand). */
function trumpFacts(v, c, onBoard) {
  const tb = v.table;
  return h(
    'div',
    { className: 'facts', id: onBoard ? 'trump' : null },
    h('span', { className: 'pot', id: onBoard ? 'pot' : null }, t('azi.pot', { pot: tb.pot })),
    tb.trump
      ? h(
          'span',
          { className: 'fact' },
          t('azi.trump', { suit: suitText(tb.trump) }),
          ' ',
          tb.trump_card ? cardView(tb.trump_card, 'small') : null,
        )
      : null,
    tb.six_on_stage ? h('span', { className: 'tag turn' }, t('azi.sixOnStage')) : null,
    // the last bidding's highest bid is history while an Azi's buy-ins are decided
    tb.bidding.highest && tb.phase !== 'azi_buy_in'
      ? h(
          'span',
          { className: 'fact' },
          t('azi.highestBid', { amount: tb.bidding.highest, name: c.name(tb.bidding.leader) }),
        )
      : null,
  );
}

/** An Azi replay: who deals it and what buying in costs. */
function replayNotice(v, c) {
  const tb = v.table;
  if (!tb.azi) return null;
  return h(
    'p',
    { className: 'notice' },
    t('azi.replay', { dealer: c.name(tb.azi.dealer), price: tb.azi.price }),
    tb.azi.in_replay.length
      ? ` ${t('azi.inReplay', { names: nameList(tb.azi.in_replay.map(c.name)) })}`
      : '',
  );
}

/** What the player must see to decide, beside the hand on a phone. */
export function decide(v, c) {
  const tb = v.table;
  const trick = tb.trick.length
    ? h(
        'div',
        { className: 'decide-line' },
        tb.trick.map((p) => h('span', { className: 'decide-play' }, cardView(p.card, 'small'), ` ${c.name(p.seat)}`)),
      )
    : null;
  return [trumpFacts(v, c, false), replayNotice(v, c), trick];
}

export function board(v, c) {
  const tb = v.table;
  const facts = h(
    'div',
    { className: 'facts' },
    h('span', { className: 'fact' }, t('azi.fact.hand', { hand: tb.hand_no })),
    tb.dealer !== null
      ? h('span', { className: 'fact' }, t('azi.fact.dealer', { name: c.name(tb.dealer) }))
      : null,
    h('span', { className: 'fact' }, t('azi.fact.phase', { phase: phase(tb.phase) })),
    h('span', { className: 'fact' }, t('azi.fact.ante', { ante: tb.ante, min: tb.min_bet })),
  );
  const trump = trumpFacts(v, c, true);
  const azi = replayNotice(v, c);
  const trick = tb.trick.length
    ? h(
        'div',
        { className: 'trick', id: 'trick', 'aria-label': t('azi.trick.label') },
        tb.trick.map((p) =>
          h(
            'div',
            { className: 'play' },
            cardView(p.card),
            h('span', { className: 'who' }, c.name(p.seat)),
          ),
        ),
      )
    : lastTrick(c) ||
      h(
        'p',
        { className: 'hint', id: 'trick' },
        tb.phase === 'playing' ? t('azi.trick.leads', { name: c.name(tb.turn) }) : '',
      );
  const winner =
    tb.pot_winner !== null && tb.pot_winner !== undefined
      ? h('p', {}, t('azi.potWinner', { name: c.name(tb.pot_winner) }))
      : null;
  const table = h(
    'table',
    { className: 'list', tabindex: '0', 'aria-label': t('azi.players') },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        [
          t('azi.col.player'),
          t('azi.col.stack'),
          t('azi.col.bid'),
          t('azi.col.inPot'),
          t('azi.col.tricks'),
          '',
        ].map((x) => h('th', { scope: 'col' }, x)),
      ),
    ),
    h(
      'tbody',
      {},
      tb.seats.map((s) =>
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
              s.folded ? t('azi.seat.folded') : '',
              s.all_in ? t('azi.seat.allIn') : '',
              s.short ? t('azi.seat.short') : '',
              s.left ? t('azi.seat.left') : '',
              !s.in_hand && !s.left ? t('azi.seat.sitsOut') : '',
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
    h('label', {}, h('span', { className: 'lbl' }, raise ? t('azi.raiseTo') : t('azi.bet')), input),
    h('span', { className: 'hint', id: 'bet-range' }, t('azi.betRange', { low, high })),
    h(
      'button',
      { type: 'submit', className: 'primary', dataset: { focus: 'bet', action: 'bet' } },
      raise ? t('azi.raise') : t('azi.bet'),
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
  const tb = v.table;
  const hand = v.hand || [];
  const legal = v.legal_moves || [];
  const of = (action) => legal.filter((m) => m.action === action);
  const playable = of('play').map((m) => m.card);
  const discardable = of('discard').map((m) => m.card);
  const choosing = playable.length ? playable : discardable;
  if (selected && !choosing.includes(selected)) selected = null;
  // Cards that cannot be chosen now stay fully readable: they are marked, not faded.
  const cards = hand.map((card) =>
    cardButton(card, {
      pressed: selected === card,
      disabled: !choosing.includes(card),
      extra: choosing.includes(card) ? 'legal' : 'idle',
      onclick: () => {
        selected = selected === card ? null : card;
        c.rerender();
      },
    }),
  );
  const actions = [];
  if (tb.discard) actions.push(h('p', { className: 'hint' }, t('azi.discarded', { card: cardText([tb.discard]) })));
  const bets = of('bet');
  if (bets.length) actions.push(betControls(v, c, bets));
  const row = [];
  if (of('call').length) {
    const me = tb.seats[c.seat];
    const owed = Math.min(tb.bidding.highest - me.bid, me.stack);
    row.push(moveButton(t('azi.call', { amount: owed }), { action: 'call' }, c, { className: 'primary' }));
  }
  if (of('fold').length) row.push(moveButton(t('azi.fold'), { action: 'fold' }, c));
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
        selected ? t('azi.playCard', { card: cardText([selected]) }) : t('azi.playSelected'),
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
        selected ? t('azi.discardCard', { card: cardText([selected]) }) : t('azi.discardSelected'),
      ),
    );
  }
  if (of('buy_in').length) {
    row.push(
      moveButton(t('azi.buyIn', { price: tb.azi ? tb.azi.price : 0 }), { action: 'buy_in' }, c, {
        className: 'primary',
      }),
    );
  }
  if (of('decline').length) row.push(moveButton(t('azi.decline'), { action: 'decline' }, c));
  if (of('leave').length)
    row.push(moveButton(t('azi.leave'), { action: 'leave' }, c, { className: 'danger' }));
  if (row.length) actions.push(h('div', { className: 'moves' }, row));
  if (playable.length || discardable.length) {
    actions.push(
      h('p', { className: 'hint' }, playable.length ? t('azi.hint.play') : t('azi.hint.discard')),
    );
  } else if (of('buy_in').length || of('decline').length) {
    // the hand held is the last deal's: the replay deals those who buy in new cards
    actions.push(h('p', { className: 'hint' }, t('azi.hint.buyIn')));
  } else if (hand.length && legal.length) {
    actions.push(h('p', { className: 'hint' }, t('azi.hint.cardsLater')));
  }
  if (!legal.length)
    actions.push(
      h('p', { className: 'hint' }, v.status === 'ended' ? t('azi.hint.over') : t('azi.hint.wait')),
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
