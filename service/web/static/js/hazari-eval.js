// Hazari combinations in the browser, only to name groups and warn early;
// the server's check of the arrangement is the one that counts.
import { t } from './i18n.js';

const RANKS = '23456789TJQKA';
const ACE = 12;
const TYPES = ['', 'indi', 'pair', 'color', 'run', 'colorRun', 'troy'];

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

/** A rank as printed on the cards in the player's language (Д for a queen in Russian…). */
const rankName = (r) => (/[2-9]/.test(RANKS[r]) ? RANKS[r] : t(`common.rankShort.${RANKS[r]}`));

/** "pair of 7s, A kicker", "color run A-K-Q" … in the player's language. */
export function describeGroup(cards) {
  const k = groupKey(cards);
  if (k < 0) return '';
  const type = k >> 12;
  const a = (k >> 8) & 15;
  const b = (k >> 4) & 15;
  const c = k & 15;
  if (type === 6) return t('hazari.combo.troy', { rank: rankName(a) });
  if (type === 2) return t('hazari.combo.pair', { rank: rankName(a), kicker: rankName(b) });
  let ranks;
  if ((type === 4 || type === 5) && a === 13) ranks = [ACE, ACE - 1, ACE - 2].map(rankName).join('-');
  else if ((type === 4 || type === 5) && a === 12) ranks = [ACE, 0, 1].map(rankName).join('-');
  else if (type === 4 || type === 5) ranks = [a, a - 1, a - 2].map(rankName).join('-');
  else ranks = [a, b, c].map(rankName).join('-');
  return t(`hazari.combo.${TYPES[type]}`, { ranks });
}

/** Index of the first group that beats the one before it, or -1. */
export function firstOutOfOrder(groups) {
  const keys = groups.map(groupKey);
  for (let i = 1; i < keys.length; i += 1) {
    if (keys[i] > keys[i - 1]) return i;
  }
  return -1;
}

/** The order rule in words. */
export function orderRule() {
  return t('hazari.orderRule');
}
