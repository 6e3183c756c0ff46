// The shuffle verifier that runs in the player's own browser: from a cardroom-replay-v1
// document alone it re-derives the commitment and every deal with WebCrypto (SHA-256 and
// HMAC-SHA256), following cardroom-shuffle-v1 exactly as docs/fairness.md publishes it, and
// compares each seat's hand. It trusts nothing the server says about the result.
//
// It has no imports and touches no page: the replay viewer imports it, and the offline
// verifier (/verifier, docs/verifier.html) carries the same text inline. Its answers are
// codes with parameters; each page words them from its catalogs.

export const FORMAT = 'cardroom-replay-v1';
export const ALGORITHM = 'cardroom-shuffle-v1';
export const LIMITS = Object.freeze({ bytes: 20_000_000, deals: 5000, seats: 16, events: 200_000 });
const HEX64 = /^[0-9a-f]{64}$/;
const CLIENT_SEED = /^[A-Za-z0-9_-]{1,64}$/;
const RANKS = '23456789TJQKA';
const SIZES = new Set([27, 36, 52, 54]);
const DEAL_EVENTS = new Set(['Dealt', 'HandDealt']);

/** A document the verifier cannot read: `code` names what is wrong, `params` where. */
export class ReplayProblem extends Error {
  constructor(code, params = {}) {
    super(`${code} ${JSON.stringify(params)}`);
    this.code = code;
    this.params = params;
  }
}

/** The canonical deck order of docs/fairness.md, step 4. */
export function canonical(size) {
  if (size === 52) return [...'CDHS'].flatMap((s) => [...RANKS].map((r) => r + s));
  if (size === 54) return [...canonical(52), 'BJ', 'RJ'];
  const suits = size === 27 ? 'DHS' : 'CDHS';
  return [...suits].flatMap((s) => [...RANKS.slice(4)].map((r) => r + s));
}

export function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function sha256Hex(bytes, subtle = globalThis.crypto.subtle) {
  return bytesToHex(await subtle.digest('SHA-256', bytes));
}

/** The HMAC key of a server seed (32 bytes). */
export function seedKey(seedBytes, subtle = globalThis.crypto.subtle) {
  return subtle.importKey('raw', seedBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

/** The byte stream of one deal (docs/fairness.md, steps 2 and 3). */
export class DealStream {
  constructor(key, gameId, deal, clientSeeds, subtle = globalThis.crypto.subtle) {
    this.key = key;
    this.subtle = subtle;
    this.prefix = `${ALGORITHM}:${gameId}:${deal}:${clientSeeds.join(':')}`;
    this.block = 0;
    this.buf = new Uint8Array(0);
    this.pos = 0;
  }

  async next4() {
    if (this.pos + 4 > this.buf.length) {
      const msg = new TextEncoder().encode(`${this.prefix}:${this.block}`);
      const block = new Uint8Array(await this.subtle.sign('HMAC', this.key, msg));
      const rest = this.buf.slice(this.pos);
      this.buf = new Uint8Array(rest.length + block.length);
      this.buf.set(rest);
      this.buf.set(block, rest.length);
      this.pos = 0;
      this.block += 1;
    }
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return ((b[p] << 24) >>> 0) + (b[p + 1] << 16) + (b[p + 2] << 8) + b[p + 3];
  }

  /** A uniform integer in [0, n) by rejection (no modulo bias). */
  async draw(n) {
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const x = await this.next4();
      if (x < limit) return x % n;
    }
  }
}

/** The client seed the server derives for a seat it supplies (docs/fairness.md):
 * the first 16 bytes of HMAC-SHA256(server seed, "client-seed:<seat>"), in hex. */
export async function derivedSeed(key, seat, subtle = globalThis.crypto.subtle) {
  const mac = await subtle.sign('HMAC', key, new TextEncoder().encode(`client-seed:${seat}`));
  return bytesToHex(mac).slice(0, 32);
}

/** Fisher–Yates from the top index down (step 5); the stream stays after the shuffle. */
export async function shuffle(key, gameId, deal, clientSeeds, size, subtle) {
  const deck = canonical(size);
  const stream = new DealStream(key, gameId, deal, clientSeeds, subtle);
  for (let i = deck.length - 1; i > 0; i -= 1) {
    const j = await stream.draw(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return { deck, stream };
}

// -- reading the document: every field the check uses, or a problem naming it --------------
/** Who chose a seat's seed (the document's `seed_origin`): a seed the server supplied is
 * `derived` from the committed server seed, and is re-derived here. */
const ORIGINS = new Set(['player', 'derived', 'unrecorded']);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isCount = (v, max) => Number.isInteger(v) && v >= 0 && v <= max;

function need(ok, code, params) {
  if (!ok) throw new ReplayProblem(code, params);
}

/** Parse the text of a replay document (size-limited JSON). */
export function parseReplay(text) {
  need(typeof text === 'string' && text.trim() !== '', 'empty', {});
  need(text.length <= LIMITS.bytes, 'too-large', { limit: LIMITS.bytes });
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ReplayProblem('not-json', {});
  }
  return doc;
}

function readSeats(doc) {
  need(Array.isArray(doc.seats), 'field', { field: 'seats' });
  need(doc.seats.length >= 1 && doc.seats.length <= LIMITS.seats, 'field', { field: 'seats' });
  return doc.seats.map((s, i) => {
    need(isObject(s), 'field', { field: `seats[${i}]` });
    need(s.seat === i, 'field', { field: `seats[${i}].seat` });
    need(typeof s.client_seed === 'string' && CLIENT_SEED.test(s.client_seed), 'field', {
      field: `seats[${i}].client_seed`,
    });
    const origin = ORIGINS.has(s.seed_origin) ? s.seed_origin : null;
    return { seat: i, name: typeof s.name === 'string' ? s.name : `#${i}`, seed: s.client_seed, origin };
  });
}

function readDeal(d, i, seatCount) {
  const at = `deals[${i}]`;
  need(isObject(d), 'field', { field: at });
  need(isCount(d.deal, 1_000_000), 'field', { field: `${at}.deal` });
  need(SIZES.has(d.deck_size), 'field', { field: `${at}.deck_size` });
  need(isObject(d.hands), 'field', { field: `${at}.hands` });
  need(Array.isArray(d.deal_order) && d.deal_order.length > 0, 'field', { field: `${at}.deal_order` });
  const order = d.deal_order;
  need(
    order.every((s) => isCount(s, seatCount - 1)) && new Set(order).size === order.length,
    'field',
    { field: `${at}.deal_order` },
  );
  const keys = Object.keys(d.hands);
  need(
    keys.length === order.length && order.every((s) => Object.hasOwn(d.hands, String(s))),
    'field',
    { field: `${at}.hands` },
  );
  let cards = 0;
  for (const k of keys) {
    const hand = d.hands[k];
    need(Array.isArray(hand) && hand.every((c) => typeof c === 'string'), 'field', {
      field: `${at}.hands.${k}`,
    });
    cards += hand.length;
  }
  need(cards <= d.deck_size, 'field', { field: `${at}.hands` });
  return { deal: d.deal, size: d.deck_size, order, hands: d.hands, dealer: d.dealer };
}

/** What the check needs of a document, every field checked for shape. */
export function readReplay(doc) {
  need(isObject(doc), 'not-object', {});
  need(doc.format === FORMAT, 'format', { format: String(doc.format).slice(0, 40) });
  need(doc.algorithm === undefined || doc.algorithm === ALGORITHM, 'algorithm', {
    algorithm: String(doc.algorithm).slice(0, 40),
  });
  need(typeof doc.game_id === 'string' && doc.game_id.length > 0 && doc.game_id.length <= 200, 'field', {
    field: 'game_id',
  });
  need(typeof doc.commitment === 'string' && HEX64.test(doc.commitment), 'field', { field: 'commitment' });
  if (doc.server_seed === null || doc.server_seed === undefined) throw new ReplayProblem('not-revealed', {});
  need(typeof doc.server_seed === 'string' && HEX64.test(doc.server_seed), 'field', { field: 'server_seed' });
  const seats = readSeats(doc);
  need(Array.isArray(doc.deals) && doc.deals.length <= LIMITS.deals, 'field', { field: 'deals' });
  const deals = doc.deals.map((d, i) => readDeal(d, i, seats.length));
  need(doc.events === undefined || Array.isArray(doc.events), 'field', { field: 'events' });
  const events = Array.isArray(doc.events) ? doc.events : [];
  need(events.length <= LIMITS.events, 'field', { field: 'events' });
  return { gameId: doc.game_id, game: doc.game, commitment: doc.commitment, seed: doc.server_seed, seats, deals, events };
}

// -- the check ----------------------------------------------------------------------------
const sameHand = (a, b) => a.length === b.length && a.every((c, i) => c === b[i]);

/** The deal events of the document's event list, as the deals they record (hands by seat). */
function dealEvents(events) {
  return events
    .filter((e) => isObject(e) && DEAL_EVENTS.has(e.type))
    .map((e) => ({ deal: e.deal, hands: Array.isArray(e.hands) ? e.hands : [] }));
}

/** Every hand of one deal against the re-derived deck: the seats whose hand differs. */
function compareDeal(deal, deck) {
  const wrong = [];
  deal.order.forEach((seat, i) => {
    const hand = deal.hands[String(seat)];
    const expect = deck.filter((_, n) => n % deal.order.length === i).slice(0, hand.length);
    if (!sameHand(hand, expect)) wrong.push(seat);
  });
  return wrong.sort((a, b) => a - b);
}

/** The document's own records agree: the first event's commitment, the seats' seeds in the
 * seat events, and each deal event's hands with the deal summary. */
function consistency(r) {
  const first = r.events[0];
  if (isObject(first) && typeof first.commitment === 'string' && first.commitment !== r.commitment)
    return { code: 'commitment-event', params: {} };
  for (const e of r.events) {
    if (isObject(e) && e.type === 'SeatTaken' && Number.isInteger(e.seat) && r.seats[e.seat]) {
      if (e.client_seed !== r.seats[e.seat].seed)
        return { code: 'seat-event', params: { seat: e.seat + 1, name: r.seats[e.seat].name } };
    }
  }
  const recorded = dealEvents(r.events);
  if (r.events.length && recorded.length !== r.deals.length)
    return { code: 'deal-count', params: { events: recorded.length, deals: r.deals.length } };
  for (let i = 0; i < recorded.length; i += 1) {
    const d = r.deals[i];
    const ev = recorded[i];
    if (ev.deal !== d.deal) return { code: 'deal-event', params: { deal: d.deal + 1 } };
    for (const seat of d.order) {
      const inEvent = ev.hands[seat];
      if (!Array.isArray(inEvent) || !sameHand(inEvent, d.hands[String(seat)]))
        return { code: 'deal-event', params: { deal: d.deal + 1, seat: seat + 1, name: r.seats[seat].name } };
    }
  }
  return null;
}

/**
 * Verify a parsed replay document. Resolves to
 * `{ ok, code, params, commitment: {ok, computed}, seeds, deals: [{deal, ok, wrong}] }`:
 * Deals and seats in `params` count from 1, as the pages show them.
 * `code` is `verified`, or what failed first (`commitment`, `deal-number`, `hand`, or a
 * consistency code), or a reading problem (`field`, `format`, `not-revealed`, …) with
 * `ok: false`. Never throws; `onProgress(done, total)` is told after each deal.
 */
export async function verifyReplay(doc, { subtle = globalThis.crypto?.subtle, onProgress } = {}) {
  let r;
  try {
    if (!subtle) throw new ReplayProblem('no-webcrypto', {});
    r = readReplay(doc);
  } catch (error) {
    if (error instanceof ReplayProblem) return { ok: false, code: error.code, params: error.params, deals: [] };
    return { ok: false, code: 'unreadable', params: {}, deals: [] };
  }
  const seedBytes = hexToBytes(r.seed);
  const computed = await sha256Hex(seedBytes, subtle);
  const out = {
    ok: true,
    code: 'verified',
    params: { deals: r.deals.length },
    gameId: r.gameId,
    game: r.game,
    commitment: { ok: computed === r.commitment, computed, published: r.commitment },
    seeds: r.seats,
    deals: [],
  };
  const fail = (code, params) => {
    if (out.ok) Object.assign(out, { ok: false, code, params });
  };
  if (!out.commitment.ok) fail('commitment', {});
  const key = await seedKey(seedBytes, subtle);
  for (const s of r.seats) {
    if (s.origin !== 'derived') continue;
    s.derivedOk = (await derivedSeed(key, s.seat, subtle)) === s.seed;
    if (!s.derivedOk) fail('derived-seed', { seat: s.seat + 1, name: s.name });
  }
  const clientSeeds = r.seats.map((s) => s.seed);
  for (let i = 0; i < r.deals.length; i += 1) {
    const d = r.deals[i];
    const { deck } = await shuffle(key, r.gameId, d.deal, clientSeeds, d.size, subtle);
    const wrong = compareDeal(d, deck);
    const numbered = d.deal === i;
    out.deals.push({ deal: d.deal, ok: wrong.length === 0 && numbered, wrong, seats: d.order.length });
    if (!numbered) fail('deal-number', { deal: d.deal + 1, expected: i + 1 });
    else if (wrong.length) fail('hand', { deal: d.deal + 1, seat: wrong[0] + 1, name: r.seats[wrong[0]].name });
    if (onProgress) onProgress(i + 1, r.deals.length);
  }
  const inconsistent = consistency(r);
  if (inconsistent) fail(inconsistent.code, inconsistent.params);
  return out;
}

/** The verifier on the text of a document (a file dropped, a paste). */
export async function verifyText(text, options = {}) {
  let doc;
  try {
    doc = parseReplay(text);
  } catch (error) {
    return { ok: false, code: error.code || 'unreadable', params: error.params || {}, deals: [] };
  }
  return verifyReplay(doc, options);
}

/** One row of docs/fairness.md's test vectors, recomputed: the deck's first ten cards, its
 * SHA-256 and the next draw(4), and the seed's commitment. */
export async function vector(seedHex, gameId, clientSeeds, deal, size, subtle = globalThis.crypto.subtle) {
  const seed = hexToBytes(seedHex);
  const key = await seedKey(seed, subtle);
  const { deck, stream } = await shuffle(key, gameId, deal, clientSeeds, size, subtle);
  return {
    first: deck.slice(0, 10).join(' '),
    digest: await sha256Hex(new TextEncoder().encode(deck.join(' ')), subtle),
    next: await stream.draw(4),
    commitment: await sha256Hex(seed, subtle),
  };
}
