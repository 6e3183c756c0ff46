"""Azi: 2-6 players, a 27-card deck, trumps, bidding for the lead, pots and Azi replays.

The engine follows ``rules/azi.md``; every choice made where those rules are
silent is written down in ``docs/rules/azi.md``. Chips are exact: at every
event the stacks plus the pot equal the chips brought (:func:`total_chips`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..base import JSON, Engine, Event, Move, OptionError, RuleError
from ..cards import CardError, parse_card
from ..shuffle import Shuffler
from .bot import choose_move, weakest_card
from .cards import deck, playable, sorted_cards, suit_of
from .consequences import consequence
from .events import (
    EVENT_TYPES,
    AntesPaid,
    BetPlaced,
    BoughtIn,
    Called,
    CardPlayed,
    Declined,
    Discarded,
    Folded,
    HandDealt,
    LeaveRequested,
    PotSettled,
)
from .settle import settle_pot
from .state import (
    AZI_BUY_IN,
    BIDDING,
    DEALING,
    DISCARDING,
    MAX_ACTIONS,
    PLAYING,
    SETTLING,
    AziOptions,
    AziState,
    apply,
)
from .view import table_view

MAX_CHIPS = 10**9

# action -> (required fields, all fields)
MOVE_FIELDS: dict[str, tuple[str, ...]] = {
    "bet": ("amount",),
    "call": (),
    "fold": (),
    "discard": ("card",),
    "play": ("card",),
    "buy_in": (),
    "decline": (),
    "leave": (),
}


def total_chips(state: AziState) -> int:
    """Stacks (including those taken away by players who left) plus the pot."""
    return sum(state.stacks) + state.pot


def chips_brought(state: AziState) -> int:
    return state.seats * state.options.buy_in


# -- options -------------------------------------------------------------------
def _int_option(raw: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = raw.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(name, f"{name} must be a whole number, not {value!r}", "option-not-whole")
    if not low <= value <= high:
        raise OptionError(
            name,
            f"{name} {value} is out of range {low}..{high}",
            "option-out-of-range",
            value=value,
            min=low,
            max=high,
        )
    return value


def parse_options(raw: Mapping[str, Any]) -> JSON:
    """Validate Azi's table options and fill the defaults."""
    known = set(AziOptions().as_dict())
    for name in raw:
        if name not in known:
            raise OptionError(
                str(name),
                f"unknown Azi option {name!r}: use {', '.join(sorted(known))}",
                "option-unknown",
            )
    deck_size = raw.get("deck", 27)
    if isinstance(deck_size, bool) or deck_size not in (27, 36):
        raise OptionError(
            "deck", f"deck must be 27 or 36, not {deck_size!r}", "option-choice", choices=[27, 36]
        )
    cards = raw.get("cards", 3)
    if isinstance(cards, bool) or cards not in (3, 4):
        raise OptionError(
            "cards", f"cards must be 3 or 4, not {cards!r}", "option-choice", choices=[3, 4]
        )
    six = raw.get("six_on_stage", True)
    if not isinstance(six, bool):
        raise OptionError(
            "six_on_stage",
            f"six_on_stage must be true or false, not {six!r}",
            "option-choice",
            choices=[True, False],
        )
    buy_in = _int_option(raw, "buy_in", 1000, 1, MAX_CHIPS)
    ante = _int_option(raw, "ante", 10, 1, buy_in)
    min_bet = _int_option(raw, "min_bet", 10, 1, buy_in)
    azi_buy_in = raw.get("azi_buy_in", "half_pot")
    if azi_buy_in not in ("half_pot", "closed"):
        raise OptionError(
            "azi_buy_in",
            f"azi_buy_in must be 'half_pot' or 'closed', not {azi_buy_in!r}",
            "option-choice",
            choices=["half_pot", "closed"],
        )
    return AziOptions(
        int(deck_size), int(cards), six, buy_in, ante, min_bet, str(azi_buy_in)
    ).as_dict()


# -- reading a move -------------------------------------------------------------
def _read_move(move: Move) -> tuple[str, Mapping[str, Any]]:
    if not isinstance(move, Mapping):
        raise RuleError("bad_move", f"a move is an object with an 'action', not {move!r}")
    action = move.get("action")
    if action is None:
        raise RuleError("bad_move", f"move {dict(move)!r} has no 'action'")
    if not isinstance(action, str) or action not in MOVE_FIELDS:
        raise RuleError(
            "unknown_action", f"unknown Azi action {action!r}: use {', '.join(MOVE_FIELDS)}"
        )
    fields = MOVE_FIELDS[action]
    for name in move:
        if name != "action" and name not in fields:
            raise RuleError("unexpected_field", f"{action} takes no field {name!r}")
    for name in fields:
        if name not in move:
            raise RuleError("missing_field", f"{action} needs the field {name!r}")
    return action, move


def _read_card(token: object, action: str) -> str:
    try:
        card = parse_card(token)
    except CardError as exc:
        raise RuleError("bad_card", f"{action}: {exc}") from exc
    return str(card)


def _read_amount(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError("bad_amount", f"bet amount must be a whole number of chips, not {value!r}")
    return value


# -- the engine -----------------------------------------------------------------
class AziEngine(Engine[AziState]):
    name: ClassVar[str] = "azi"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 6
    event_types: ClassVar[tuple[type[Event], ...]] = EVENT_TYPES

    def parse_options(self, raw: Mapping[str, Any]) -> JSON:
        return parse_options(raw)

    def initial(self, options: Mapping[str, Any], seats: int) -> AziState:
        if not self.min_seats <= seats <= self.max_seats:
            raise OptionError(
                "seats",
                f"Azi is played by 2-6 players, not {seats}",
                "seats-out-of-range",
                min=self.min_seats,
                max=self.max_seats,
            )
        return AziState.start(AziOptions(**parse_options(options)), seats)

    # -- system steps ------------------------------------------------------------
    def pending(self, state: AziState) -> str | None:
        if state.over:
            return None
        if state.phase == DEALING:
            return "deal"
        if state.phase == SETTLING:
            return "settle"
        return None

    def advance(self, state: AziState, shuffler: Shuffler) -> list[Event]:
        step = self.pending(state)
        if step == "deal":
            return self.with_consequences(state, self._deal(state, shuffler))
        if step == "settle":
            return self.with_consequences(state, [self.settlement(state)])
        return []

    def settlement(self, state: AziState) -> PotSettled:
        """The settlement of the pot that awaits it, by :func:`settle_pot`."""
        winner = state.pot_winner
        if state.phase != SETTLING or winner is None:
            raise RuleError("nothing_to_settle", f"no pot awaits settlement (phase {state.phase})")
        payouts = settle_pot(state.contributions, winner, state.short[winner])
        return PotSettled(winner, state.short[winner], state.pot, state.contributions, payouts)

    def _deal(self, state: AziState, shuffler: Shuffler) -> list[Event]:
        opts = state.options
        events: list[Event] = []
        replay = state.pot > 0
        if replay:
            dealt = list(state.replay_seats)
        else:
            dealt = [
                s for s in range(state.seats) if not state.left[s] and state.stacks[s] >= opts.ante
            ]
            antes = tuple(opts.ante if s in dealt else 0 for s in range(state.seats))
            events.append(AntesPaid(state.hand_no + 1, antes))
        cards, stream = shuffler.deal(state.deals, opts.deck)
        drawn_from: int | None = None
        if replay:
            assert state.next_dealer is not None
            dealer = state.next_dealer
        elif state.last_winner is None:
            # The first dealer: draw(n) over the players dealt in, in seat order.
            drawn_from = len(dealt)
            dealer = dealt[stream.draw(drawn_from)]
        else:
            dealer = state.last_winner
            if dealer not in dealt:
                found = state.next_seat(dealer, lambda s: s in dealt)
                assert found is not None
                dealer = found
        order = [(dealer + k) % state.seats for k in range(1, state.seats + 1)]
        order = [s for s in order if s in dealt]  # ends with the dealer
        hands: list[list[str]] = [[] for _ in range(state.seats)]
        top = 0
        for _ in range(opts.cards):
            for seat in order:
                hands[seat].append(str(cards[top]))
                top += 1
        trump_card = str(cards[top]) if opts.cards == 3 else hands[dealer][-1]
        events.append(
            HandDealt(
                deal=state.deals,
                dealer=dealer,
                hands=tuple(tuple(h) for h in hands),
                trump_card=trump_card,
                trump=suit_of(trump_card),
                six_on_stage=opts.six_on_stage and trump_card[0] == "A",
                azi=replay,
                dealer_drawn_from=drawn_from,
            )
        )
        return events

    def with_consequences(self, state: AziState, events: list[Event]) -> list[Event]:
        """``events`` followed by every event the rules then force without a
        move (a trick taken, a pot won, an Azi, a delayed leave, the end)."""
        for event in events:
            state = apply(state, event)
        out = list(events)
        while (forced := consequence(state)) is not None:
            out.append(forced)
            state = apply(state, forced)
        return out

    # -- moves --------------------------------------------------------------------
    def decide(self, state: AziState, seat: int, move: Move) -> list[Event]:
        action, body = _read_move(move)
        if state.over:
            raise RuleError("match_over", f"{action}: the match is over")
        if not 0 <= seat < state.seats:
            raise RuleError("no_such_seat", f"{action}: there is no seat {seat}")
        if state.left[seat]:
            raise RuleError("left_table", f"{action}: seat {seat} has left the table")
        event: Event
        if action == "leave":
            if state.leaving[seat]:
                raise RuleError("already_leaving", f"leave: seat {seat} already asked to leave")
            event = LeaveRequested(seat)
        elif action == "discard":
            event = self._discard(state, seat, _read_card(body["card"], action))
        elif action in ("bet", "call", "fold"):
            event = self._bid(state, seat, action, body)
        elif action == "play":
            event = self._play(state, seat, _read_card(body["card"], action))
        else:
            event = self._buy_in(state, seat, action)
        return self.with_consequences(state, [event])

    @staticmethod
    def _phase(state: AziState, action: str, phase: str) -> None:
        if state.phase != phase:
            raise RuleError(
                "wrong_phase", f"{action} is a move of the {phase} phase; the hand is {state.phase}"
            )

    @staticmethod
    def _in_hand(state: AziState, seat: int, action: str) -> None:
        if not state.in_hand[seat]:
            raise RuleError("not_in_hand", f"{action}: seat {seat} is not dealt in this hand")
        if state.folded[seat]:
            raise RuleError("folded", f"{action}: seat {seat} has folded this hand")

    @staticmethod
    def _turn(state: AziState, seat: int, action: str) -> None:
        if state.turn != seat:
            raise RuleError(
                "not_your_turn", f"{action}: it is seat {state.turn}'s turn, not seat {seat}'s"
            )

    def _discard(self, state: AziState, seat: int, card: str) -> Event:
        self._phase(state, "discard", DISCARDING)
        self._in_hand(state, seat, "discard")
        if state.discarded[seat] is not None:
            raise RuleError("already_discarded", f"discard {card}: seat {seat} already discarded")
        if card not in state.hands[seat]:
            raise RuleError("card_not_in_hand", f"discard {card}: not in seat {seat}'s hand")
        return Discarded(seat, card)

    def _bid(self, state: AziState, seat: int, action: str, body: Mapping[str, Any]) -> Event:
        self._phase(state, action, BIDDING)
        self._in_hand(state, seat, action)
        if state.actions[seat] >= MAX_ACTIONS:
            raise RuleError(
                "fourth_action", f"{action}: seat {seat} has used its {MAX_ACTIONS} bidding actions"
            )
        self._turn(state, seat, action)
        owed = state.highest - state.bids[seat]
        if action == "fold":
            return Folded(seat)
        if action == "call":
            if state.highest == 0:
                raise RuleError(
                    "nothing_to_call", "call: nobody has bet yet; open with a bet or fold"
                )
            paid = min(owed, state.stacks[seat])
            return Called(seat, paid, paid == state.stacks[seat], paid < owed)
        amount = _read_amount(body["amount"])
        if state.actions[seat] == MAX_ACTIONS - 1:
            raise RuleError(
                "third_action_call_or_fold",
                f"bet {amount}: seat {seat}'s third action in this bidding may only call or fold",
            )
        low, high = self.bet_range(state, seat)
        if amount > high:
            raise RuleError(
                "not_enough_chips",
                f"bet {amount}: seat {seat} can bid at most {high} "
                f"(bid {state.bids[seat]} + stack {state.stacks[seat]})",
            )
        if amount < low:
            rule = "raise_too_small" if state.highest else "bet_too_small"
            raise RuleError(
                rule,
                f"bet {amount}: the bid must be at least {low} "
                f"(highest {state.highest} + min_bet {state.options.min_bet})",
            )
        return BetPlaced(seat, amount, amount - state.bids[seat])

    @staticmethod
    def bet_range(state: AziState, seat: int) -> tuple[int, int]:
        """The smallest and largest new highest bid ``seat`` may make now."""
        low = state.highest + state.options.min_bet
        high = state.bids[seat] + state.stacks[seat]
        return low, high

    def _play(self, state: AziState, seat: int, card: str) -> Event:
        self._phase(state, "play", PLAYING)
        self._in_hand(state, seat, "play")
        self._turn(state, seat, "play")
        hand = state.hands[seat]
        if card not in hand:
            raise RuleError("card_not_in_hand", f"play {card}: not in seat {seat}'s hand")
        led = state.led_suit()
        assert state.trump is not None
        if card not in playable(hand, led, state.trump):
            if any(suit_of(c) == led for c in hand):
                raise RuleError("must_follow_suit", f"play {card}: seat {seat} must follow {led}")
            raise RuleError(
                "must_trump", f"play {card}: seat {seat} cannot follow {led} and must play a trump"
            )
        return CardPlayed(seat, card)

    def _buy_in(self, state: AziState, seat: int, action: str) -> Event:
        if action == "buy_in" and state.options.azi_buy_in == "closed":
            raise RuleError("azi_closed", "buy_in: this table plays Azi replays without buy-ins")
        self._phase(state, action, AZI_BUY_IN)
        if seat in state.replay_seats:
            raise RuleError("already_in_azi", f"{action}: seat {seat} took a trick and is in free")
        if seat not in state.azi_queue:
            if state.stacks[seat] < state.azi_price:
                raise RuleError(
                    "not_enough_chips",
                    f"{action}: seat {seat} has {state.stacks[seat]} chips, "
                    f"the buy-in is {state.azi_price}",
                )
            raise RuleError("already_decided", f"{action}: seat {seat} has already decided")
        self._turn(state, seat, action)
        if action == "decline":
            return Declined(seat)
        return BoughtIn(seat, state.azi_price)

    def apply(self, state: AziState, event: Event) -> AziState:
        return apply(state, event)

    def to_act(self, state: AziState) -> tuple[int, ...]:
        if state.over:
            return ()
        if state.phase == DISCARDING:
            return tuple(
                s for s in range(state.seats) if state.in_hand[s] and state.discarded[s] is None
            )
        if state.phase in (BIDDING, PLAYING, AZI_BUY_IN) and state.turn is not None:
            return (state.turn,)
        return ()

    def legal_moves(self, state: AziState, seat: int) -> list[JSON]:
        """Every legal body; a bet is listed by its smallest and largest amount
        (any whole amount between them is accepted too). ``leave`` is listed
        whenever it is legal, also when it is not the seat's turn."""
        if state.over or not 0 <= seat < state.seats or state.left[seat]:
            return []
        moves: list[JSON] = []
        if seat in self.to_act(state):
            moves = self._turn_moves(state, seat)
        if not state.leaving[seat]:
            moves.append({"action": "leave"})
        return moves

    def _turn_moves(self, state: AziState, seat: int) -> list[JSON]:
        if state.phase == DISCARDING:
            return [{"action": "discard", "card": c} for c in sorted_cards(state.hands[seat])]
        if state.phase == BIDDING:
            moves: list[JSON] = []
            if state.actions[seat] < MAX_ACTIONS - 1:
                low, high = self.bet_range(state, seat)
                if high >= low:
                    moves.append({"action": "bet", "amount": low})
                if high > low:
                    moves.append({"action": "bet", "amount": high})
            if state.highest > 0:
                moves.append({"action": "call"})
            moves.append({"action": "fold"})
            return moves
        if state.phase == PLAYING:
            assert state.trump is not None
            cards = playable(state.hands[seat], state.led_suit(), state.trump)
            return [{"action": "play", "card": c} for c in sorted_cards(cards)]
        if state.phase == AZI_BUY_IN:
            return [{"action": "buy_in"}, {"action": "decline"}]
        return []

    # -- what people see ----------------------------------------------------------
    def view(self, state: AziState, viewer: int | None) -> JSON:
        return table_view(state, viewer, self.to_act(state))

    def is_over(self, state: AziState) -> bool:
        return state.over

    def result(self, state: AziState) -> JSON:
        buy_in = state.options.buy_in
        return {
            "stacks": list(state.stacks),
            "buy_ins": [buy_in] * state.seats,
            "results": [s - buy_in for s in state.stacks],
            "pot": state.pot,
            "over": state.over,
            "reason": state.end_reason,
        }

    # -- automatic players ----------------------------------------------------------
    def bot_move(self, state: AziState, seat: int) -> JSON:
        return choose_move(state, seat)

    def timeout_move(self, state: AziState, seat: int) -> JSON:
        """Fold in bidding, decline an Azi, discard or play the weakest card."""
        if state.phase == DISCARDING and seat in self.to_act(state):
            return {"action": "discard", "card": weakest_card(state, seat, state.hands[seat])}
        if state.phase == BIDDING and state.turn == seat:
            return {"action": "fold"}
        if state.phase == PLAYING and state.turn == seat:
            assert state.trump is not None
            cards = playable(state.hands[seat], state.led_suit(), state.trump)
            return {"action": "play", "card": weakest_card(state, seat, cards)}
        if state.phase == AZI_BUY_IN and state.turn == seat:
            return {"action": "decline"}
        raise RuleError("not_your_turn", f"seat {seat} has no move to time out")


ENGINE = AziEngine()

__all__ = ["ENGINE", "AziEngine", "AziOptions", "AziState", "chips_brought", "deck", "total_chips"]
