// Hazari combinations in the browser, only to name groups and warn early;
// the server's check of the arrangement is the one that counts.
const RANKS = '23456789TJQKA';
const ACE = 12;
const TYPES = ['', 'indi', 'pair', 'color', 'run', 'color run', 'troy'];

function key3(cards) {
  const ranks = cards.map((c) => RANKS.indexOf(c[0])).sort((x, y) => y - x);
  const [a, b, c] = ranks;
  if (a === c) return (6 << 12) | (a << 8);
  if (a === b || b === c) {
    const [pair, odd] = a === b ? [a, c] : [b, a];
    return (2 << 12) | (pair << 8) | (odd << 4);
  }
  const sameSuit = cards[0][1] === cards[1][1] && cards[1][1] === cards[2][1];
  let slot = null;
  if (a === ACE && b === ACE - 1 && c === ACE - 2) slot = 13;
  else if (a === ACE && b === 1 && c === 0) slot = 12;
  else if (a - 1 === b && b - 1 === c) slot = a;
  if (slot !== null) return ((sameSuit ? 5 : 4) << 12) | (slot << 8);
  return ((sameSuit ? 3 : 1) << 12) | (a << 8) | (b << 4) | c;
}

/** The key of a group of 3 (or the best 3 of 4) cards; higher is stronger. */
export function groupKey(cards) {
  if (cards.length === 3) return key3(cards);
  if (cards.length !== 4) return -1;
  let best = -1;
  for (let skip = 0; skip < 4; skip += 1) {
    best = Math.max(best, key3(cards.filter((_, i) => i !== skip)));
  }
  return best;
}

const rankName = (r) => (RANKS[r] === 'T' ? '10' : RANKS[r]);

/** "pair of 7s, A kicker", "color run A-K-Q" … */
export function describeGroup(cards) {
  const k = groupKey(cards);
  if (k < 0) return '';
  const type = k >> 12;
  const a = (k >> 8) & 15;
  const b = (k >> 4) & 15;
  const c = k & 15;
  if (type === 6) return `troy of ${rankName(a)}s`;
  if (type === 2) return `pair of ${rankName(a)}s, ${rankName(b)} kicker`;
  if (type === 4 || type === 5) {
    let ranks;
    if (a === 13) ranks = 'A-K-Q';
    else if (a === 12) ranks = 'A-2-3';
    else ranks = [a, a - 1, a - 2].map(rankName).join('-');
    return `${TYPES[type]} ${ranks}`;
  }
  return `${TYPES[type]} ${rankName(a)}-${rankName(b)}-${rankName(c)}`;
}

/** Index of the first group that beats the one before it, or -1. */
export function firstOutOfOrder(groups) {
  const keys = groups.map(groupKey);
  for (let i = 1; i < keys.length; i += 1) {
    if (keys[i] > keys[i - 1]) return i;
  }
  return -1;
}

export const ORDER_RULE =
  'Groups go strongest first: group 1 ≥ group 2 ≥ group 3 ≥ group 4, and the four-card group counts by its best three cards. ' +
  'From strongest to weakest type: troy (three of a rank), color run, run, color (three of a suit), pair, indi. ' +
  'Within a type the higher ranks win; A-K-Q is the top run, then A-2-3, then K-Q-J down to 4-3-2.';
