// The HTTP API as the pages use it: JSON requests, problem documents, seat
// tokens kept in localStorage (never in a URL) and the live NDJSON stream.

const TOKEN_PREFIX = 'cardroom.seat.';

/** An answer that was not a success: the problem document's fields. */
export class ApiProblem extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.rule = problem.rule || null;
  }
}

async function problemOf(response) {
  let body = {};
  try {
    body = await response.json();
  } catch {
    body = { title: response.statusText, detail: `HTTP ${response.status}` };
  }
  const problem = new ApiProblem(response.status, body);
  problem.retryAfter = Number(response.headers.get('Retry-After')) || null;
  return problem;
}

/** The seat this browser holds in a game: {token, seat, name} or null. */
export function seatOf(gameId) {
  try {
    const raw = window.localStorage.getItem(TOKEN_PREFIX + gameId);
    const seat = raw ? JSON.parse(raw) : null;
    return seat && typeof seat.token === 'string' ? seat : null;
  } catch {
    return null;
  }
}

export function keepSeat(gameId, seat) {
  window.localStorage.setItem(TOKEN_PREFIX + gameId, JSON.stringify(seat));
}

export function forgetSeat(gameId) {
  window.localStorage.removeItem(TOKEN_PREFIX + gameId);
}

/** Game ids this browser holds a seat in. */
export function heldGames() {
  const out = [];
  for (let i = 0; i < window.localStorage.length; i += 1) {
    const key = window.localStorage.key(i);
    if (key && key.startsWith(TOKEN_PREFIX)) out.push(key.slice(TOKEN_PREFIX.length));
  }
  return out;
}

function headers(token, extra = {}) {
  const out = { Accept: 'application/json', ...extra };
  if (token) out.Authorization = `Bearer ${token}`;
  return out;
}

// -- 429: over a rate budget. Nothing was done; wait and send the same request again. ---------
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30000;

/** How long to wait before retry number `attempt` (0, 1, …) of a refused request:
 * the server's Retry-After, or a back-off doubling from 1 s, whichever is longer
 * (at most 30 s), with a little jitter so several tabs do not come back together. */
export function retryDelay(retryAfter, attempt) {
  const asked = Number(retryAfter);
  const server = Number.isFinite(asked) && asked > 0 ? asked * 1000 : 0;
  const backoff = RETRY_FIRST_MS * 2 ** Math.min(attempt, 5);
  return Math.min(RETRY_MAX_MS, Math.max(server, backoff)) * (1 + Math.random() * 0.2);
}

function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    if (signal) {
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(new DOMException('aborted', 'AbortError'));
        },
        { once: true },
      );
    }
  });
}

/** fetch(), quietly retrying a 429 (over a rate budget: the request changed nothing,
 * so sending it again, idempotency key and all, is safe) until it is let through —
 * unless `giveUp(response)` says this 429 is for the caller to handle. */
async function fetchPatiently(path, init, giveUp = async () => false) {
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(path, init);
    if (response.status !== 429 || (await giveUp(response))) return response;
    await pause(retryDelay(response.headers.get('Retry-After'), attempt), init.signal);
  }
}

/** A live stream refused for capacity: its 429 says to read views by polling meanwhile
 * (`fallback: "poll"`), not to ask for the stream again and again. */
async function pollInstead(response) {
  try {
    const body = await response.clone().json();
    return body.fallback === 'poll';
  } catch {
    return false;
  }
}

export async function getJson(path, token) {
  const response = await fetchPatiently(path, { headers: headers(token), cache: 'no-store' });
  if (!response.ok) throw await problemOf(response);
  return response.json();
}

export async function postJson(path, body, token) {
  const response = await fetchPatiently(path, {
    method: 'POST',
    headers: headers(token, { 'Content-Type': 'application/json' }),
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await problemOf(response);
  return response.json();
}

export const gamePath = (gameId) => `/games/${encodeURIComponent(gameId)}`;

/** Submit a move; a fresh idempotency key makes a retried click land once. */
export function submitMove(gameId, token, move) {
  const key =
    window.crypto && window.crypto.randomUUID
      ? window.crypto.randomUUID()
      : `${Date.now()}-${Math.random()}`;
  return postJson(`${gamePath(gameId)}/moves`, { move, idempotency_key: key }, token);
}

/**
 * The live stream of a game, one parsed line at a time:
 * {kind: 'view'|'event'|'keepalive'|'end', version, view?, event?}.
 * With views, a `view` line (this viewer's whole view) follows each batch of
 * events, so the page never polls for it.
 * fetch() rather than EventSource, so the Authorization header can be sent.
 * A stream refused for capacity throws its ApiProblem (429, `problem.fallback` "poll",
 * `problem.poll_after_s`, `retryAfter`): the caller polls views meanwhile.
 */
export async function* liveLines(gameId, token, after, signal, views = false) {
  const params = new URLSearchParams();
  if (after) params.set('after', String(after));
  if (views) params.set('views', 'true');
  const query = params.toString() ? `?${params}` : '';
  const response = await fetchPatiently(`${gamePath(gameId)}/events${query}`, {
    headers: headers(token, { Accept: 'application/x-ndjson' }),
    cache: 'no-store',
    signal,
  }, pollInstead);
  if (!response.ok) throw await problemOf(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) yield JSON.parse(line);
      newline = buffer.indexOf('\n');
    }
  }
}
