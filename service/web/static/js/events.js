// One line of plain English per event, for the table's log and the replay.
import { cardText, suitText } from './cards.js';

/** A seat's display name from a list of seats ({seat, name}). */
export function seatName(seats, seat) {
  if (seat === null || seat === undefined) return '—';
  const found = (seats || []).find((s) => s && s.seat === seat);
  return found && found.name ? found.name : `Seat ${seat + 1}`;
}

const list = (values) => (values || []).join(', ');

/** The sentence for one event (`e.type` and its fields). */
export function describe(e, seats) {
  const who = (s) => seatName(seats, s);
  const whoList = (ss) => (ss || []).map(who).join(', ');
  switch (e.type) {
    case 'GameCreated':
      return `Game created (${e.game}, ${e.seats} seats); commitment ${String(e.commitment).slice(0, 16)}…`;
    case 'SeatTaken':
      return `${e.name} takes seat ${e.seat + 1}${e.bot ? ' (bot)' : ''}`;
    case 'TurnTimedOut':
      return `${who(e.seat)} ran out of time (${e.after_s} s); the move below was made for them`;
    case 'SeedRevealed':
      return 'The server seed is revealed: every shuffle can now be checked';
    case 'GameAbandoned': {
      const why = e.reason === 'idle' ? 'nobody played for too long' : e.reason;
      const st = e.standings || {};
      const where = st.stacks
        ? ` — stacks ${list(st.stacks)}`
        : st.scores
          ? ` — scores ${list(st.scores)}`
          : '';
      return `Game abandoned (${why})${where}`;
    }
    case 'SeatAway':
      return `${who(e.seat)} missed ${e.timeouts} turns in a row and is away: the bot plays for them until they act again`;
    case 'SeatBack':
      return `${who(e.seat)} is back and plays for themselves`;
    // Hazari
    case 'Dealt':
      return `Deal ${e.deal + 1}: ${who(e.dealer)} deals 13 cards each`;
    case 'Arranged':
      return `${who(e.seat)} says up`;
    case 'RoundPlayed':
      return `Round ${e.round}: ${who(e.winner)} wins ${e.points} points with ${(e.combos || [])[e.winner] || 'the best group'}`;
    case 'DealScored':
      return `Deal ${e.deal + 1} scored: ${list(e.points)} (totals ${list(e.scores)})`;
    case 'MatchEnded':
      if (e.winners)
        return `Match over: ${whoList(e.winners)} win${e.winners.length === 1 ? 's' : ''} (${list(e.scores)})`;
      return `Match over (${e.reason}): results ${list(e.results)}`;
    // Murlan
    case 'HandDealt':
      if (e.trump !== undefined) {
        return `${e.azi ? 'Azi replay' : 'Deal'} ${e.deal + 1}: ${who(e.dealer)} deals; trump ${suitText(e.trump)} (${cardText([e.trump_card])})`;
      }
      return `Hand ${e.deal + 1}: ${who(e.dealer)} deals`;
    case 'CardGiven':
      return `${who(e.from_seat)} gives ${cardText([e.card])} to ${who(e.to_seat)}`;
    case 'CardGivenBack':
      return `${who(e.seat)} gives back ${cardText([e.card])} to ${who(e.to_seat)}`;
    case 'ExchangeSkipped':
      return `No exchange: ${e.reason}`;
    case 'PlayStarted':
      return `${who(e.leader)} leads${e.must_include ? ` (must include ${cardText([e.must_include])})` : ''}`;
    case 'CardsPlayed':
      return `${who(e.seat)} plays ${e.combination} ${cardText(e.cards)}`;
    case 'Passed':
      return `${who(e.seat)} passes`;
    case 'TableCleared':
      return `Table cleared; ${who(e.leader)} leads`;
    case 'WentOut':
      return `${who(e.seat)} goes out, place ${e.place}`;
    case 'HandEnded':
      return `Hand ${e.hand + 1} over: points ${list(e.points)} (totals ${list(e.scores)})`;
    case 'TargetRaised':
      return `Target raised to ${e.target}`;
    case 'TopTied':
      return `Tied at ${e.score}: ${whoList(e.seats)}; another hand`;
    case 'MatchWon':
      return `${who(e.winner)} wins the match (${list(e.scores)})`;
    // Azi
    case 'AntesPaid':
      return `Hand ${e.hand}: antes ${list(e.antes)}`;
    case 'Discarded':
      return `${who(e.seat)} discards${e.card && e.card !== '??' ? ` ${cardText([e.card])}` : ''}`;
    case 'BetPlaced':
      return `${who(e.seat)} bets ${e.amount}`;
    case 'Called':
      return `${who(e.seat)} calls${e.all_in ? ' all in' : ''} (${e.paid})`;
    case 'Folded':
      return `${who(e.seat)} folds`;
    case 'BiddingEnded':
      return `Bidding over: ${who(e.leader)} leads at ${e.highest}`;
    case 'CardPlayed':
      return `${who(e.seat)} plays ${cardText([e.card])}`;
    case 'TrickTaken':
      return `Trick ${e.trick} to ${who(e.winner)} (${cardText(e.cards)})`;
    case 'PotWon':
      return `${who(e.winner)} wins the pot of ${e.pot}${e.how === 'all_folded' ? ' (all others folded)' : ''}`;
    case 'AziDeclared':
      return `Azi! The pot stays; buy in for ${e.price}`;
    case 'BoughtIn':
      return `${who(e.seat)} buys in (${e.paid})`;
    case 'Declined':
      return `${who(e.seat)} declines the Azi`;
    case 'PotSettled':
      return `Pot of ${e.pot} settled: payouts ${list(e.payouts)}`;
    case 'LeaveRequested':
      return `${who(e.seat)} will leave after this hand`;
    case 'PlayerLeft':
      return `${who(e.player)} leaves with ${e.stack}`;
    default:
      return e.type;
  }
}
