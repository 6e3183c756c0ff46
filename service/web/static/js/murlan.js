// Murlan at the table: select cards for a combination, then Play or Pass.
import { cardButton, cardRow, cardText } from './cards.js';
import { h } from './dom.js';

const selected = new Set();
const PLACES = ['1st', '2nd', '3rd', '4th'];
const SUGGESTIONS = 12;

const shown = (card) => card && card !== '??';
const sameCards = (a, b) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

function inOrder(hand) {
  return hand.filter((card) => selected.has(card));
}

export function seatFacts(v, s) {
  const t = v.table;
  const facts = [];
  const place = (t.out || []).indexOf(s);
  if (place >= 0) facts.push(`out ${PLACES[place]}`);
  if (t.dealer === s) facts.push('dealt');
  return facts;
}

export function statusText(v, c) {
  const t = v.table;
  if (t.phase === 'exchange') return 'the exchange';
  if (t.leading && t.turn !== null) {
    return `${c.name(t.turn)} leads${t.must_include ? ` (must include ${cardText([t.must_include])})` : ''}`;
  }
  return '';
}

export function resultText(v, c) {
  const winners = (v.result.winners || []).map(c.name).join(', ');
  return `${winners ? `${winners} won. ` : ''}Scores: ${v.seats.map((s) => `${c.name(s.seat)} ${v.result.scores[s.seat]}`).join(', ')}.`;
}

export function board(v, c) {
  const t = v.table;
  const facts = h(
    'div',
    { className: 'facts' },
    h('span', { className: 'fact' }, 'Hand ', h('b', {}, String((t.hand_number ?? 0) + 1))),
    h('span', { className: 'fact' }, 'Target ', h('b', {}, String(t.target))),
    h(
      'span',
      { className: 'fact' },
      'Straights: ',
      t.options.straight_beats === 'any_higher' ? 'any higher beats' : 'exactly one higher beats',
    ),
  );
  let centre;
  if (t.table) {
    centre = h(
      'div',
      { className: 'trick', id: 'murlan-table' },
      h(
        'div',
        { className: 'play' },
        cardRow(t.table.cards),
        h(
          'span',
          { className: 'who' },
          `${t.table.combination} by ${c.name(t.table.seat)}`,
          t.table.passes ? ` · ${t.table.passes} pass${t.table.passes === 1 ? '' : 'es'}` : '',
        ),
      ),
    );
  } else if (t.phase === 'playing') {
    centre = h(
      'p',
      { id: 'murlan-table' },
      `The table is clear: ${c.name(t.turn)} leads`,
      t.must_include ? ` — the first play must include ${cardText([t.must_include])}.` : '.',
    );
  } else {
    centre = h(
      'p',
      { id: 'murlan-table' },
      t.phase === 'over' ? 'The match is over.' : `Phase: ${t.phase}`,
    );
  }
  const out = (t.out || []).length
    ? h('p', {}, 'Out: ', t.out.map((s, i) => `${PLACES[i]} ${c.name(s)}`).join(', '))
    : null;
  const ex = t.exchange;
  let exchange = null;
  if (ex) {
    exchange = ex.skipped
      ? h('p', { className: 'hint' }, 'No exchange this hand.')
      : h(
          'p',
          { className: 'hint' },
          `Exchange: ${c.name(ex.last_finisher)} gives the highest card to ${c.name(ex.first_finisher)}`,
          shown(ex.card_given) ? ` (${cardText([ex.card_given])})` : '',
          ', who gives one back',
          shown(ex.card_given_back) ? ` (${cardText([ex.card_given_back])})` : '',
          '.',
        );
  }
  const scores = h(
    'table',
    { className: 'list', 'aria-label': 'Scores' },
    h(
      'thead',
      {},
      h('tr', {}, h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Points')),
    ),
    h(
      'tbody',
      {},
      v.seats.map((s) =>
        h('tr', {}, h('td', {}, c.name(s.seat)), h('td', {}, String(t.scores[s.seat]))),
      ),
    ),
  );
  return [facts, centre, out, exchange, h('h3', {}, 'Scores'), scores];
}

export function you(v, c) {
  const hand = v.hand || [];
  for (const card of [...selected]) if (!hand.includes(card)) selected.delete(card);
  const legal = v.legal_moves || [];
  const giveBacks = legal.filter((m) => m.action === 'give_back').map((m) => m.card);
  const plays = legal.filter((m) => m.action === 'play').map((m) => m.cards);
  const canPass = legal.some((m) => m.action === 'pass');
  const giving = giveBacks.length > 0;
  const toggle = (card) => () => {
    if (selected.has(card)) selected.delete(card);
    else {
      if (giving) selected.clear();
      selected.add(card);
    }
    c.rerender();
  };
  const cards = hand.map((card) =>
    cardButton(card, {
      pressed: selected.has(card),
      disabled: giving && !giveBacks.includes(card),
      onclick: toggle(card),
    }),
  );
  const chosen = inOrder(hand);
  const actions = [];
  if (giving) {
    const ex = v.table.exchange;
    actions.push(
      h(
        'p',
        {},
        `Give one card back to ${ex ? c.name(ex.last_finisher) : 'the last finisher'}: `,
        cardText(giveBacks),
        ' may be given.',
      ),
    );
    actions.push(
      h(
        'div',
        { className: 'moves' },
        h(
          'button',
          {
            type: 'button',
            className: 'primary',
            disabled: chosen.length !== 1,
            dataset: { focus: 'give-back', action: 'give_back' },
            onclick: async () => {
              if (await c.submit({ action: 'give_back', card: chosen[0] })) selected.clear();
            },
          },
          'Give back',
        ),
      ),
    );
  } else if (plays.length || canPass) {
    let hint = 'Select cards for a combination, then Play (Esc clears the selection).';
    if (chosen.length) {
      const ok = plays.some((p) => sameCards(p, chosen));
      hint = `Selected ${cardText(chosen)}: ${ok ? 'a legal play.' : 'not a legal play now.'}`;
    }
    actions.push(h('p', { className: 'hint', id: 'selection-hint', 'aria-live': 'polite' }, hint));
    actions.push(
      h(
        'div',
        { className: 'moves' },
        h(
          'button',
          {
            type: 'button',
            className: 'primary',
            disabled: chosen.length === 0,
            dataset: { focus: 'play', action: 'play' },
            onclick: async () => {
              if (await c.submit({ action: 'play', cards: chosen })) selected.clear();
            },
          },
          'Play',
        ),
        canPass
          ? h(
              'button',
              {
                type: 'button',
                dataset: { focus: 'pass', action: 'pass' },
                onclick: async () => {
                  if (await c.submit({ action: 'pass' })) selected.clear();
                },
              },
              'Pass',
            )
          : null,
        h(
          'button',
          {
            type: 'button',
            disabled: chosen.length === 0,
            dataset: { focus: 'clear' },
            onclick: () => {
              selected.clear();
              c.rerender();
            },
          },
          'Clear selection',
        ),
      ),
    );
    if (plays.length) {
      actions.push(
        h(
          'div',
          { className: 'moves', 'aria-label': 'Legal plays' },
          h('span', { className: 'hint' }, `Legal plays (${plays.length}):`),
          plays.slice(0, SUGGESTIONS).map((p, i) =>
            h(
              'button',
              {
                type: 'button',
                dataset: { focus: `suggest-${i}` },
                title: 'Select these cards',
                onclick: () => {
                  selected.clear();
                  p.forEach((card) => selected.add(card));
                  c.rerender();
                },
              },
              cardText(p),
            ),
          ),
          plays.length > SUGGESTIONS
            ? h('span', { className: 'hint' }, `… and ${plays.length - SUGGESTIONS} more`)
            : null,
        ),
      );
    }
  } else {
    actions.push(
      h(
        'p',
        { className: 'hint' },
        v.status === 'ended' ? 'The game is over.' : 'Wait for your turn.',
      ),
    );
  }
  return [cards, actions];
}

export function onKey(event, v, c) {
  if (event.key === 'Escape' && selected.size) {
    selected.clear();
    c.rerender();
    return true;
  }
  return false;
}
