// Cards as people read them: rank, suit symbol, red or black.
import { h } from './dom.js';

const SUITS = {
  C: { symbol: '♣', name: 'clubs', colour: 'black' },
  D: { symbol: '♦', name: 'diamonds', colour: 'red' },
  H: { symbol: '♥', name: 'hearts', colour: 'red' },
  S: { symbol: '♠', name: 'spades', colour: 'black' },
};
const RANK_NAMES = {
  2: 'two',
  3: 'three',
  4: 'four',
  5: 'five',
  6: 'six',
  7: 'seven',
  8: 'eight',
  9: 'nine',
  T: 'ten',
  J: 'jack',
  Q: 'queen',
  K: 'king',
  A: 'ace',
};
export const SUIT_SYMBOL = Object.fromEntries(Object.entries(SUITS).map(([k, v]) => [k, v.symbol]));

/** What a card looks like: {rank, symbol, colour, label}. */
export function face(card) {
  if (card === 'BJ')
    return { rank: 'JOKER', symbol: '★', colour: 'black', label: 'black joker', joker: true };
  if (card === 'RJ')
    return { rank: 'JOKER', symbol: '★', colour: 'red', label: 'red joker', joker: true };
  const rank = card[0];
  const suit = SUITS[card[1]];
  if (!suit || !RANK_NAMES[rank])
    return { rank: '?', symbol: '', colour: 'hidden', label: 'hidden card' };
  return {
    rank: rank === 'T' ? '10' : rank,
    symbol: suit.symbol,
    colour: suit.colour,
    label: `${RANK_NAMES[rank]} of ${suit.name}`,
  };
}

function faceNodes(f) {
  return [h('span', { className: 'rank' }, f.rank), h('span', { className: 'suit' }, f.symbol)];
}

/** A card to look at. */
export function cardView(card, extra = '') {
  const f = face(card);
  return h(
    'span',
    {
      className: `card ${f.colour}${f.joker ? ' joker' : ''} ${extra}`.trim(),
      role: 'img',
      'aria-label': f.label,
      title: f.label,
      dataset: { card },
    },
    faceNodes(f),
  );
}

/** A card to press: a toggle button with aria-pressed. */
export function cardButton(
  card,
  { pressed = false, disabled = false, onclick, focusKey, extra = '' } = {},
) {
  const f = face(card);
  return h(
    'button',
    {
      type: 'button',
      className: `card ${f.colour}${f.joker ? ' joker' : ''} ${extra}`.trim(),
      'aria-pressed': pressed ? 'true' : 'false',
      'aria-label': f.label,
      title: f.label,
      disabled,
      onclick,
      dataset: { card, focus: focusKey ?? `card-${card}` },
    },
    faceNodes(f),
  );
}

/** A row of cards to look at. */
export function cardRow(cards, className = '') {
  return h(
    'span',
    { className: `cards ${className}`.trim() },
    (cards || []).map((c) => cardView(c)),
  );
}

/** Cards as text, e.g. "10♦ A♠". */
export function cardText(cards) {
  return (cards || [])
    .map((c) => {
      const f = face(c);
      if (f.colour === 'hidden') return 'a hidden card';
      return f.joker ? f.label : `${f.rank}${f.symbol}`;
    })
    .join(' ');
}

export function suitText(suit) {
  const s = SUITS[suit];
  return s ? `${s.symbol} ${s.name}` : '—';
}
