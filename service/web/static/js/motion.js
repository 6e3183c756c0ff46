// Card movement: a card a seat puts on the table glides there from where it came from (the
// player's own hand, or the seat's box for the others), drawn with the Web Animations API
// as one short transform of the table's latest play (the page's layout never waits on it).
// Never drawn when the device asks for reduced motion.

const DURATION_MS = 320;
let fromHand = null; // where the player's own cards were when the move was sent: a DOMRect

export function reducedMotion() {
  return window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/** Before the player's move is sent: note where its cards are in the hand. */
export function noteHand(move) {
  const cards = move.cards || (move.card ? [move.card] : []);
  const boxes = cards
    .map((card) => document.querySelector(`#hand button.card[data-card="${CSS.escape(card)}"]`))
    .filter(Boolean)
    .map((button) => button.getBoundingClientRect());
  fromHand = boxes.length ? boxes[0] : null;
}

function origin(event, mySeat) {
  if (event.seat === mySeat && fromHand) {
    const box = fromHand;
    fromHand = null;
    return box;
  }
  const seat = document.querySelector(`#seats .seat[data-seat="${event.seat}"]`);
  return seat ? seat.getBoundingClientRect() : null;
}

/** Move the cards of the latest play (just drawn for `event`) in from their seat; true when
 * a movement was started. */
export function moveIn(event, mySeat) {
  const target = document.querySelector('#last-play .cards');
  if (!target || reducedMotion() || event.seat === undefined) return false;
  const from = origin(event, mySeat);
  if (!from) return false;
  const to = target.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  target.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(0.85)`, opacity: 0.7 },
      { transform: 'none', opacity: 1 },
    ],
    { duration: DURATION_MS, easing: 'ease-out' },
  );
  return true;
}
