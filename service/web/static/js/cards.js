// Cards as people read them: rank, suit symbol, red or black.
import { h } from './dom.js';
import { t } from './i18n.js';

const SUITS = {
  C: { symbol: '♣', colour: 'black' },
  D: { symbol: '♦', colour: 'red' },
  H: { symbol: '♥', colour: 'red' },
  S: { symbol: '♠', colour: 'black' },
};
const RANKS = new Set(['2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A']);
/** The rank as printed on the card, in the player's language (K, Q, J and A differ). */
const rankShort = (rank) => (/[2-9]/.test(rank) ? rank : t(`common.rankShort.${rank}`));
export const SUIT_SYMBOL = Object.fromEntries(Object.entries(SUITS).map(([k, v]) => [k, v.symbol]));

/** What a card looks like: {rank, symbol, colour, label}. */
export function face(card) {
  if (card === 'BJ')
    return {
      rank: t('common.jokerShort'),
      symbol: '★',
      colour: 'black',
      label: t('common.blackJoker'),
      joker: true,
    };
  if (card === 'RJ')
    return {
      rank: t('common.jokerShort'),
      symbol: '★',
      colour: 'red',
      label: t('common.redJoker'),
      joker: true,
    };
  const rank = card[0];
  const suit = SUITS[card[1]];
  if (!suit || !RANKS.has(rank))
    return { rank: '?', symbol: '', colour: 'hidden', label: t('common.hiddenCard') };
  return {
    rank: rankShort(rank),
    symbol: suit.symbol,
    colour: suit.colour,
    label: t('common.card', { rank: t(`common.rank.${rank}`), suit: t(`common.suit.${card[1]}`) }),
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

/** A straight's cards in the order of its run, A 2 3 … K A: the ace is low unless the run
 * reaches the king (other combinations keep their order). */
export function runOrder(cards, combination = 'straight') {
  const list = [...(cards || [])];
  if (combination !== 'straight') return list;
  const high = list.some((c) => c[0] === 'K');
  const place = (c) => (c[0] === 'A' && high ? 14 : ' A23456789TJQK'.indexOf(c[0]));
  return list.sort((a, b) => place(a) - place(b));
}

/** Where each game's table puts a card in a hand (as its engine sorts the seat's hand):
 * Murlan low to high, 3 … A 2, the jokers last; Hazari the highest rank first; Azi by
 * suit, low to high within it. Within a rank (or suit), clubs, diamonds, hearts, spades. */
const HAND_ORDER = {
  murlan: (c) => (c[1] === 'J' ? 100 + (c === 'RJ' ? 1 : 0) : '3456789TJQKA2'.indexOf(c[0]) * 4 + 'CDHS'.indexOf(c[1])),
  hazari: (c) => (12 - '23456789TJQKA'.indexOf(c[0])) * 4 + 'CDHS'.indexOf(c[1]),
  azi: (c) => 'CDHS'.indexOf(c[1]) * 13 + '23456789TJQKA'.indexOf(c[0]),
};

/** A hand in the order the game's table shows it (hidden cards keep their place last). */
export function handOrder(game, cards) {
  const place = HAND_ORDER[game];
  const list = [...(cards || [])];
  if (!place) return list;
  const at = (c) => (c === '??' ? 1000 : place(c));
  return list.sort((a, b) => at(a) - at(b));
}

/** Cards as text, e.g. "10♦ A♠". */
export function cardText(cards) {
  return (cards || [])
    .map((c) => {
      const f = face(c);
      if (f.colour === 'hidden') return t('common.aHiddenCard');
      return f.joker ? f.label : `${f.rank}${f.symbol}`;
    })
    .join(' ');
}

export function suitText(suit) {
  const s = SUITS[suit];
  return s ? `${s.symbol} ${t(`common.suit.${suit}`)}` : t('common.nobody');
}
