// The table's pace: what arrives on the live stream is queued here and shown one step at a
// time, each play of another seat held long enough to be seen. The server is never slowed:
// only this page waits.

const STORE_KEY = 'cardroom.pace';
/** How long each play of another seat stays alone on the table, in milliseconds. */
export const PACES = { normal: 700, fast: 250, instant: 0 };
/** A finished hand or deal stays this many times longer before the next one starts. */
const END_FACTOR = 3;
/** Events after which the page pauses (a seat's move or its consequence on the table). */
export const SHOWN = new Set([
  'CardsPlayed',
  'Passed',
  'CardGiven',
  'CardGivenBack',
  'Arranged',
  'RoundPlayed',
  'Discarded',
  'BetPlaced',
  'Called',
  'Folded',
  'CardPlayed',
  'TrickTaken',
  'BoughtIn',
  'Declined',
  'WentOut',
]);
const ENDS = new Set(['HandEnded', 'DealScored', 'PotSettled', 'MatchWon', 'MatchEnded']);

/** The chosen pace: ?pace= in the address, else the one kept in this browser, else normal. */
export function pickPace(search = window.location.search) {
  const asked = new URLSearchParams(search).get('pace');
  if (asked && asked in PACES) return asked;
  try {
    const kept = window.localStorage.getItem(STORE_KEY);
    if (kept && kept in PACES) return kept;
  } catch {
    // storage refused: the default
  }
  return 'normal';
}

export function keepPace(pace) {
  try {
    window.localStorage.setItem(STORE_KEY, pace);
  } catch {
    // a private window: the choice lasts for this page
  }
}

/** Plays waiting beyond which the page catches up: each is then held a third as long, and
 * beyond the second figure not at all (a tab come back from the background, say). */
const BEHIND = 6;
const FAR_BEHIND = 40;

/** How long to hold the table after showing `event` with `pending` lines still queued
 * (0: go straight on). Nobody watches a hidden tab: it never waits. */
export function holdFor(event, pace, mySeat, pending = 0) {
  let ms = PACES[pace] ?? PACES.normal;
  if (pending > FAR_BEHIND || (typeof document !== 'undefined' && document.hidden)) ms = 0;
  else if (pending > BEHIND) ms = Math.round(ms / 3);
  if (!ms) return 0;
  if (ENDS.has(event.type)) return ms * END_FACTOR;
  if (!SHOWN.has(event.type)) return 0;
  const actor = event.seat ?? event.from_seat ?? null;
  return actor !== null && actor === mySeat ? 0 : ms;
}

/**
 * A queue of stream lines played out in order: `show(line)` is called for each, and the
 * next one waits until the hold `show` returned (in ms) has passed.
 */
export class Player {
  constructor(show) {
    this.show = show;
    this.items = [];
    this.running = false;
    this.wake = null;
  }

  push(line) {
    this.items.push(line);
    if (!this.running) this.run();
  }

  /** Drop what has not been shown yet (a restarted stream sends it again). */
  clear() {
    this.items = [];
  }

  /** Show everything still queued at once (the pace was set to instant). */
  hurry() {
    if (this.wake) this.wake();
  }

  get pending() {
    return this.items.length;
  }

  async run() {
    this.running = true;
    try {
      while (this.items.length) {
        const line = this.items.shift();
        let hold = 0;
        try {
          hold = this.show(line) || 0;
        } catch (error) {
          // One line that cannot be drawn must not stop the table: say so and go on.
          console.error('the table could not show a step', error);
        }
        // Whatever arrives meanwhile waits out this hold (pushing only queues it).
        if (hold > 0)
          await new Promise((resolve) => {
            this.wake = resolve;
            setTimeout(resolve, hold);
          });
        // Even without a hold, what was shown is on the page for a moment (observers see it).
        else await Promise.resolve();
        this.wake = null;
      }
    } finally {
      this.running = false;
    }
  }
}
