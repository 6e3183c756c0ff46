// One sentence per event, for the table's log and the replay, from the "events" catalog.
import { cardText, runOrder, suitText } from './cards.js';
import { has, list, number, t } from './i18n.js';

/** A seat's display name from a list of seats ({seat, name}). */
export function seatName(seats, seat) {
  if (seat === null || seat === undefined) return t('common.nobody');
  const found = (seats || []).find((s) => s && s.seat === seat);
  return found && found.name ? found.name : t('common.seatN', { n: seat + 1 });
}

/** Names joined as the player's language joins a list ("Ana, Bo and Cy"). */
export function nameList(names) {
  return list(names);
}

/** "Ana 3, Bo 0, Cy −2": one number per seat, each by its player's name. */
export function byName(seats, values, signed = false) {
  return nameList(
    (values || []).map((value, s) =>
      t(signed ? 'events.nameSigned' : 'events.nameValue', {
        name: seatName(seats, s),
        value,
        sign: value > 0 ? '+' : '',
      }),
    ),
  );
}

/** A Murlan combination's kind in words ("pair", "straight"). */
export function kindName(kind) {
  return has(`events.kind.${kind}`) ? t(`events.kind.${kind}`) : t('events.kind.other');
}

/** A reason code in words, from `events.<area>.<code>`, or the area's general sentence. */
function reason(area, code) {
  return has(`events.${area}.${code}`) ? t(`events.${area}.${code}`) : t(`events.${area}.other`);
}

/** The sentence for one event (`e.type` and its fields). */
export function describe(e, seats) {
  const who = (s) => seatName(seats, s);
  const whoList = (ss) => nameList((ss || []).map(who));
  const cards = (list) => cardText(list);
  const hidden = (card) => !card || card === '??';
  switch (e.type) {
    case 'GameCreated':
      return t('events.GameCreated', {
        game: t(`common.game.${e.game}`),
        seats: e.seats,
        commitment: String(e.commitment).slice(0, 16),
      });
    case 'SeatTaken':
      return t(e.bot ? 'events.SeatTaken.bot' : 'events.SeatTaken', {
        name: e.name,
        seat: e.seat + 1,
      });
    case 'TurnTimedOut':
      return t('events.TurnTimedOut', { name: who(e.seat), seconds: e.after_s });
    case 'SeedRevealed':
      return t('events.SeedRevealed');
    case 'GameAbandoned': {
      const st = e.standings || {};
      const why = reason('abandoned', e.reason);
      if (st.stacks)
        return t('events.GameAbandoned.stacks', { why, standings: byName(seats, st.stacks) });
      if (st.scores)
        return t('events.GameAbandoned.scores', { why, standings: byName(seats, st.scores) });
      return t('events.GameAbandoned', { why });
    }
    case 'SeatAway':
      return t('events.SeatAway', { name: who(e.seat), count: e.timeouts });
    case 'SeatBack':
      return t('events.SeatBack', { name: who(e.seat) });
    // Hazari
    case 'Dealt':
      return t('events.Dealt', { deal: e.deal + 1, dealer: who(e.dealer) });
    case 'Arranged':
      return t('events.Arranged', { name: who(e.seat) });
    case 'RoundPlayed':
      return t('events.RoundPlayed', {
        round: e.round,
        name: who(e.winner),
        count: e.points,
        cards: cards((e.laid || [])[e.winner]),
      });
    case 'DealScored':
      return t('events.DealScored', {
        deal: e.deal + 1,
        points: byName(seats, e.points),
        totals: byName(seats, e.scores),
      });
    case 'MatchEnded':
      if (e.winners)
        return t('events.MatchEnded.winners', {
          names: whoList(e.winners),
          count: e.winners.length,
          totals: byName(seats, e.scores),
        });
      return t('events.MatchEnded.chips', {
        why: reason('matchEnded', e.reason),
        results: byName(seats, e.results, true),
      });
    // Murlan
    case 'HandDealt':
      if (e.trump !== undefined) {
        return t(e.azi ? 'events.HandDealt.aziReplay' : 'events.HandDealt.azi', {
          deal: e.deal + 1,
          dealer: who(e.dealer),
          trump: suitText(e.trump),
          card: cards([e.trump_card]),
        });
      }
      return t('events.HandDealt', { hand: e.deal + 1, dealer: who(e.dealer) });
    case 'CardGiven':
      return hidden(e.card)
        ? t('events.CardGiven.hidden', { from: who(e.from_seat), to: who(e.to_seat) })
        : t('events.CardGiven', { from: who(e.from_seat), to: who(e.to_seat), card: cards([e.card]) });
    case 'CardGivenBack':
      return hidden(e.card)
        ? t('events.CardGivenBack.hidden', { from: who(e.seat), to: who(e.to_seat) })
        : t('events.CardGivenBack', { from: who(e.seat), to: who(e.to_seat), card: cards([e.card]) });
    case 'ExchangeSkipped':
      return t(
        e.reason === 'both_jokers' ? 'events.ExchangeSkipped.both_jokers' : 'events.ExchangeSkipped',
        { last: who(e.last_finisher), first: who(e.first_finisher) },
      );
    case 'PlayStarted':
      return e.must_include
        ? t('events.PlayStarted.mustInclude', { name: who(e.leader), card: cards([e.must_include]) })
        : t('events.PlayStarted', { name: who(e.leader) });
    case 'CardsPlayed':
      return t('events.CardsPlayed', {
        name: who(e.seat),
        kind: kindName(e.combination),
        cards: cards(runOrder(e.cards, e.combination)),
      });
    case 'Passed':
      return t('events.Passed', { name: who(e.seat) });
    case 'TableCleared':
      return t('events.TableCleared', { name: who(e.leader) });
    case 'WentOut':
      return t('events.WentOut', { name: who(e.seat), place: e.place });
    case 'HandEnded':
      return t('events.HandEnded', {
        hand: e.hand + 1,
        points: byName(seats, e.points),
        totals: byName(seats, e.scores),
      });
    case 'TargetRaised':
      return t('events.TargetRaised', { target: e.target, names: whoList(e.reached) });
    case 'TopTied':
      return t('events.TopTied', { score: e.score, names: whoList(e.seats) });
    case 'MatchWon':
      return t('events.MatchWon', { name: who(e.winner), totals: byName(seats, e.scores) });
    // Azi
    case 'AntesPaid':
      return t('events.AntesPaid', { hand: e.hand, antes: byName(seats, e.antes) });
    case 'Discarded':
      return hidden(e.card)
        ? t('events.Discarded.hidden', { name: who(e.seat) })
        : t('events.Discarded', { name: who(e.seat), card: cards([e.card]) });
    case 'BetPlaced':
      return t('events.BetPlaced', { name: who(e.seat), amount: e.amount });
    case 'Called':
      return t(e.all_in ? 'events.Called.allIn' : 'events.Called', {
        name: who(e.seat),
        paid: e.paid,
      });
    case 'Folded':
      return t('events.Folded', { name: who(e.seat) });
    case 'BiddingEnded':
      return t('events.BiddingEnded', { name: who(e.leader), amount: e.highest });
    case 'CardPlayed':
      return t('events.CardPlayed', { name: who(e.seat), card: cards([e.card]) });
    case 'TrickTaken':
      return t('events.TrickTaken', {
        trick: e.trick,
        name: who(e.winner),
        cards: cards(e.cards),
      });
    case 'PotWon':
      return t(e.how === 'all_folded' ? 'events.PotWon.all_folded' : 'events.PotWon', {
        name: who(e.winner),
        pot: e.pot,
      });
    case 'AziDeclared':
      return t('events.AziDeclared', {
        dealer: who(e.dealer),
        price: e.price,
        takers: whoList(e.takers),
      });
    case 'BoughtIn':
      return t('events.BoughtIn', { name: who(e.seat), paid: e.paid });
    case 'Declined':
      return t('events.Declined', { name: who(e.seat) });
    case 'PotSettled':
      return t('events.PotSettled', {
        pot: e.pot,
        amount: (e.payouts || [])[e.winner] ?? 0,
        name: who(e.winner),
        payouts: byName(seats, e.payouts),
      });
    case 'LeaveRequested':
      return t('events.LeaveRequested', { name: who(e.seat) });
    case 'PlayerLeft':
      return t('events.PlayerLeft', { name: who(e.player), stack: e.stack });
    default:
      return t('events.unknown', { n: number(e.version ?? 0) });
  }
}
