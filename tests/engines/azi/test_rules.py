"""Hand-built Azi scenarios, one or more per rule of ``rules/azi.md``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.engines.azi import ENGINE
from service.engines.azi.engine import parse_options
from service.engines.azi.events import (
    AziDeclared,
    BiddingEnded,
    Called,
    Discarded,
    HandDealt,
    MatchEnded,
    PotSettled,
    PotWon,
    TrickTaken,
)
from service.engines.azi.state import AziState
from service.engines.base import HIDDEN, OptionError, RuleError
from service.engines.shuffle import Shuffler
from tests.engines.azi.support import (
    SHUFFLER,
    act,
    check,
    deal,
    fold,
    new_table,
    play_trick,
    settle,
    types,
)


def rule_of(state: AziState, seat: int, move: Any) -> str:
    with pytest.raises(RuleError) as err:
        ENGINE.decide(state, seat, move)
    return err.value.rule


# -- options ---------------------------------------------------------------------
def test_default_options() -> None:
    assert parse_options({}) == {
        "deck": 27,
        "cards": 3,
        "six_on_stage": True,
        "buy_in": 1000,
        "ante": 10,
        "min_bet": 10,
        "azi_buy_in": "half_pot",
    }


@pytest.mark.parametrize(
    ("raw", "option"),
    [
        ({"colour": "red"}, "colour"),
        ({"deck": 32}, "deck"),
        ({"deck": True}, "deck"),
        ({"cards": 5}, "cards"),
        ({"six_on_stage": "yes"}, "six_on_stage"),
        ({"buy_in": 0}, "buy_in"),
        ({"buy_in": 10.5}, "buy_in"),
        ({"ante": 0}, "ante"),
        ({"buy_in": 100, "ante": 101}, "ante"),
        ({"min_bet": -5}, "min_bet"),
        ({"azi_buy_in": "full_pot"}, "azi_buy_in"),
    ],
)
def test_bad_options_name_the_option(raw: dict[str, Any], option: str) -> None:
    with pytest.raises(OptionError) as err:
        parse_options(raw)
    assert err.value.option == option


# -- the deal from the shuffle -------------------------------------------------------
@pytest.mark.parametrize("cards", [3, 4])
def test_first_deal_draws_the_dealer_after_the_shuffle_and_deals_one_at_a_time(
    cards: int,
) -> None:
    state = new_table(4, cards=cards)
    assert ENGINE.pending(state) == "deal"
    events = ENGINE.advance(state, SHUFFLER)
    assert types(events)[:2] == ["AntesPaid", "HandDealt"]
    dealt = events[1]
    assert isinstance(dealt, HandDealt)
    deck, stream = SHUFFLER.deal(0, 27)
    dealer = stream.draw(4)
    assert (dealt.deal, dealt.dealer, dealt.dealer_drawn_from) == (0, dealer, 4)
    order = [(dealer + k) % 4 for k in range(1, 5)]
    for k, card in enumerate(deck[: 4 * cards]):
        seat = order[k % 4]
        assert dealt.hands[seat][k // 4] == str(card)
    if cards == 3:
        assert dealt.trump_card == str(deck[12])
    else:
        assert dealt.trump_card == dealt.hands[dealer][-1] == str(deck[15])
    assert dealt.trump == dealt.trump_card[1]
    assert dealt.six_on_stage == (dealt.trump_card[0] == "A")
    state = fold(state, events)
    assert state.phase == ("bidding" if cards == 3 else "discarding")
    assert state.pot == 40 and state.stacks == (990,) * 4


def test_first_dealer_is_drawn_among_the_players_dealt_in() -> None:
    state = new_table(3)
    state, events = act(state, 0, "leave")
    assert types(events) == ["LeaveRequested", "PlayerLeft"]
    events = ENGINE.advance(state, SHUFFLER)
    dealt = events[1]
    assert isinstance(dealt, HandDealt)
    _, stream = SHUFFLER.deal(0, 27)
    assert dealt.dealer_drawn_from == 2
    assert dealt.dealer == [1, 2][stream.draw(2)]
    assert dealt.hands[0] == ()


def test_deal_numbers_count_every_deal() -> None:
    shuffler = Shuffler(bytes(range(32)), "g-count", ("x", "y"))
    state = new_table(2)
    seen = []
    for _ in range(3):
        events = ENGINE.advance(state, shuffler)
        state = fold(state, events)
        seen += [e.deal for e in events if isinstance(e, HandDealt)]
        # The first player folds: a fold-out win, then settlement.
        state = fold(state, ENGINE.decide(state, state.turn or 0, {"action": "fold"}))
        state = fold(state, ENGINE.advance(state, shuffler))
    assert seen == [0, 1, 2]


# -- a whole plain hand -----------------------------------------------------------------
def plain_hand() -> AziState:
    """Three players, hearts trump (9H turned up), seat 2 deals."""
    state, _ = deal(new_table(3), 2, {0: "AH KS 6D", 1: "QH AS 7D", 2: "TH 8S 9D"}, "9H")
    return state


def test_bidding_starts_after_the_dealer_with_a_bet_or_fold() -> None:
    state = plain_hand()
    assert state.turn == 0 and ENGINE.to_act(state) == (0,)
    assert ENGINE.legal_moves(state, 0) == [
        {"action": "bet", "amount": 10},
        {"action": "bet", "amount": 990},
        {"action": "fold"},
        {"action": "leave"},
    ]
    assert rule_of(state, 0, {"action": "call"}) == "nothing_to_call"
    assert rule_of(state, 0, {"action": "bet", "amount": 5}) == "bet_too_small"
    assert rule_of(state, 0, {"action": "bet", "amount": 991}) == "not_enough_chips"
    assert rule_of(state, 1, {"action": "bet", "amount": 10}) == "not_your_turn"
    assert rule_of(state, 0, {"action": "play", "card": "AH"}) == "wrong_phase"


def test_a_whole_hand_bidding_follow_suit_and_two_tricks() -> None:
    state = plain_hand()
    state, events = act(state, 0, "bet", amount=20)
    assert events[0].as_dict() == {"seat": 0, "amount": 20, "paid": 20}
    # A raise must be at least min_bet above the highest bid.
    assert rule_of(state, 1, {"action": "bet", "amount": 25}) == "raise_too_small"
    state, _ = act(state, 1, "call")
    state, events = act(state, 2, "fold")
    assert types(events) == ["Folded", "BiddingEnded"]
    assert events[1] == BiddingEnded(leader=0, highest=20, short=())
    assert state.phase == "playing" and state.turn == 0 and state.pot == 70
    # Follow suit if able, with any rank (no duty to beat).
    state, _ = act(state, 0, "play", card="KS")
    assert ENGINE.legal_moves(state, 1) == [{"action": "play", "card": "AS"}, {"action": "leave"}]
    assert rule_of(state, 1, {"action": "play", "card": "QH"}) == "must_follow_suit"
    state, events = act(state, 1, "play", card="AS")
    assert events[1] == TrickTaken(trick=1, winner=1, seats=(0, 1), cards=("KS", "AS"))
    # The trick winner leads; a lower card of the led suit is allowed.
    assert state.turn == 1
    state, _ = act(state, 1, "play", card="7D")
    state, events = act(state, 0, "play", card="6D")
    assert types(events) == ["CardPlayed", "TrickTaken", "PotWon"]
    assert events[2] == PotWon(winner=1, how="two_tricks", pot=70)
    # The hand stops at two tricks; the pot awaits its settlement.
    assert state.phase == "settling" and ENGINE.pending(state) == "settle"
    assert ENGINE.to_act(state) == ()
    assert ENGINE.legal_moves(state, 0) == [{"action": "leave"}]
    assert rule_of(state, 0, {"action": "bet", "amount": 10}) == "wrong_phase"
    state, events = settle(state)
    assert events == [PotSettled(1, False, 70, (30, 30, 10), (0, 70, 0))]
    assert state.stacks == (970, 1040, 990) and state.pot == 0
    assert ENGINE.pending(state) == "deal"
    # The winner of the pot deals the next hand.
    state = fold(state, ENGINE.advance(state, SHUFFLER))
    assert state.dealer == 1 and state.hand_no == 2 and state.deals == 2


def test_trump_when_void_else_anything_and_the_highest_trump_wins() -> None:
    # Spades trump (8S turned up). Seat 1 has no diamonds but a trump.
    state, _ = deal(new_table(3), 2, {0: "KD 7H 6H", 1: "6S 9H TH", 2: "AD QH 7S"}, "8S")
    state, _ = act(state, 0, "bet", amount=10)
    state, _ = act(state, 1, "call")
    state, _ = act(state, 2, "call")
    state, _ = act(state, 0, "play", card="KD")
    assert rule_of(state, 1, {"action": "play", "card": "9H"}) == "must_trump"
    state, _ = act(state, 1, "play", card="6S")
    # Seat 2 follows suit with the Ace, but the trump takes the trick.
    state, events = act(state, 2, "play", card="AD")
    assert events[1] == TrickTaken(1, 1, (0, 1, 2), ("KD", "6S", "AD"))
    # Seat 1 leads hearts; seat 2 follows; seat 0 follows lower (allowed).
    state, _ = act(state, 1, "play", card="TH")
    state, _ = act(state, 2, "play", card="QH")
    state, events = act(state, 0, "play", card="7H")
    assert events[1] == TrickTaken(2, 2, (1, 2, 0), ("TH", "QH", "7H"))
    # Seat 2 leads the trump 7S: nobody else holds a spade, so anything goes.
    assert ENGINE.legal_moves(state, 2)[0] == {"action": "play", "card": "7S"}
    state, _ = act(state, 2, "play", card="7S")
    state, events = act(state, 0, "play", card="6H")
    state, events = act(state, 1, "play", card="9H")
    assert events[1] == TrickTaken(3, 2, (2, 0, 1), ("7S", "6H", "9H"))
    assert isinstance(events[2], PotWon) and events[2].winner == 2


def test_an_off_suit_card_never_wins_and_the_highest_of_the_led_suit_does() -> None:
    state, _ = deal(new_table(2), 1, {0: "7D 8D 9D", 1: "AH 6D KS"}, "6S")
    state, _ = act(state, 0, "bet", amount=10)
    state, _ = act(state, 1, "call")
    state, _ = act(state, 0, "play", card="7D")
    state, events = act(state, 1, "play", card="6D")
    assert isinstance(events[1], TrickTaken) and events[1].winner == 0
    state, _ = act(state, 0, "play", card="8D")
    # Seat 1 has no diamond left: his only trump, KS, must be played.
    assert ENGINE.legal_moves(state, 1) == [{"action": "play", "card": "KS"}, {"action": "leave"}]


@pytest.mark.parametrize(("six_on_stage", "winner"), [(True, 0), (False, 1)])
def test_six_on_stage(six_on_stage: bool, winner: int) -> None:
    table = new_table(2, six_on_stage=six_on_stage)
    state, events = deal(table, 1, {0: "6D 7S 8H", 1: "KD QD 9S"}, "AD")
    assert isinstance(events[1], HandDealt) and events[1].six_on_stage is six_on_stage
    assert ENGINE.view(state, None)["six_on_stage"] is six_on_stage
    state, _ = act(state, 0, "bet", amount=10)
    state, _ = act(state, 1, "call")
    state, _ = act(state, 0, "play", card="6D")
    state, events = act(state, 1, "play", card="KD")
    assert isinstance(events[1], TrickTaken) and events[1].winner == winner


def test_six_on_stage_needs_an_ace_showing_trump() -> None:
    state, events = deal(new_table(2), 1, {0: "6D 7S 8H", 1: "KD QD 9S"}, "JD")
    assert isinstance(events[1], HandDealt) and not events[1].six_on_stage
    state, _ = act(state, 0, "bet", amount=10)
    state, _ = act(state, 1, "call")
    state, _ = act(state, 0, "play", card="6D")
    state, events = act(state, 1, "play", card="KD")
    assert isinstance(events[1], TrickTaken) and events[1].winner == 1


# -- bidding limits ------------------------------------------------------------------
def test_three_actions_the_third_only_call_or_fold() -> None:
    state = plain_hand()
    for seat, amount in [(0, 10), (1, 20), (2, 30), (0, 40), (1, 50), (2, 60)]:
        state, _ = act(state, seat, "bet", amount=amount)
    assert state.actions == (2, 2, 2)
    assert ENGINE.legal_moves(state, 0) == [
        {"action": "call"},
        {"action": "fold"},
        {"action": "leave"},
    ]
    assert rule_of(state, 0, {"action": "bet", "amount": 70}) == "third_action_call_or_fold"
    state, _ = act(state, 0, "call")
    assert rule_of(state, 0, {"action": "call"}) == "fourth_action"
    state, events = act(state, 1, "call")
    assert events[-1] == BiddingEnded(leader=2, highest=60, short=())
    assert state.turn == 2 and state.pot == 3 * 70


def test_fold_out_win_without_play() -> None:
    state = plain_hand()
    state, _ = act(state, 0, "bet", amount=30)
    state, _ = act(state, 1, "fold")
    state, events = act(state, 2, "fold")
    assert types(events) == ["Folded", "PotWon"]
    assert events[1] == PotWon(winner=0, how="all_folded", pot=60)
    state, events = settle(state)
    assert state.stacks == (1020, 990, 990)


def test_fold_out_before_any_bet_gives_the_antes_to_the_last_player() -> None:
    state = plain_hand()
    state, _ = act(state, 0, "fold")
    state, events = act(state, 1, "fold")
    assert events[-1] == PotWon(winner=2, how="all_folded", pot=30)


# -- short stacks -----------------------------------------------------------------------
def shift_chips_hand(table: AziState) -> AziState:
    """Seat 0 bets 30, seat 1 calls, seat 2 folds; seat 0 takes two tricks."""
    state, _ = deal(table, 2, {0: "AH KH 6D", 1: "QS JS 7D", 2: "8D 9D TD"}, "9H")
    state, _ = act(state, 0, "bet", amount=30)
    state, _ = act(state, 1, "call")
    state, _ = act(state, 2, "fold")
    state, _ = play_trick(state, (0, "AH"), (1, "QS"))
    state, _ = play_trick(state, (0, "KH"), (1, "JS"))
    state, _ = settle(state)
    return state


def test_a_short_winner_with_odd_chips() -> None:
    state = shift_chips_hand(new_table(3, buy_in=100))
    assert state.stacks == (150, 60, 90)
    state, _ = deal(state, 0, {0: "QD JD TD", 1: "AS KS 7D", 2: "AD 8H 7H"}, "9S")
    assert state.stacks == (140, 50, 80) and state.turn == 1
    state, events = act(state, 1, "bet", amount=50)  # all in, but he set the bid
    state, _ = act(state, 2, "bet", amount=75)
    state, _ = act(state, 0, "bet", amount=90)
    assert ENGINE.legal_moves(state, 2) == [
        {"action": "call"},
        {"action": "fold"},
        {"action": "leave"},
    ]
    assert ENGINE.view(state, None)["bidding"]["short"] == [1]
    state, events = act(state, 2, "call")
    assert events[0] == Called(seat=2, paid=5, all_in=True, short=True)
    # Everyone still in has matched or is all in: the bidding ends.
    assert events[1] == BiddingEnded(leader=0, highest=90, short=(1, 2))
    assert state.short == (False, True, True)
    assert state.contributions == (100, 60, 90)
    state, _ = play_trick(state, (0, "QD"), (1, "7D"), (2, "AD"))
    state, _ = play_trick(state, (2, "8H"), (0, "TD"), (1, "AS"))
    state, events = play_trick(state, (1, "KS"), (2, "7H"), (0, "JD"))
    assert events[-1] == PotWon(winner=1, how="two_tricks", pot=250)
    state, events = settle(state)
    # floor(250 * 60 / 100) = 150 to the short winner; the other 100 back by
    # 100 : 90 -> 52.63 / 47.37 -> 52 + 47, the odd chip to seat 0.
    assert events[0] == PotSettled(1, True, 250, (100, 60, 90), (53, 150, 47))
    assert state.stacks == (50 + 53, 150, 47)


def test_players_all_in_from_the_ante_are_skipped_and_short() -> None:
    table = new_table(3, buy_in=20)
    state, _ = deal(table, 2, {0: "AH KH 6D", 1: "QS JS 7D", 2: "8D 9D TD"}, "9H")
    state, _ = act(state, 0, "bet", amount=10)
    state, _ = act(state, 1, "fold")
    state, _ = act(state, 2, "fold")
    state, _ = settle(state)
    assert state.stacks == (40, 10, 10)
    state, events = deal(state, 0, {0: "AH KH 6D", 1: "AS JS 7D", 2: "8D 9D TD"}, "9S")
    assert state.stacks == (30, 0, 0)
    # Seats 1 and 2 have nothing left to bid with: seat 0 opens.
    assert state.turn == 0
    state, events = act(state, 0, "bet", amount=10)
    assert events[1] == BiddingEnded(leader=0, highest=10, short=(1, 2))
    state, _ = play_trick(state, (0, "6D"), (1, "7D"), (2, "8D"))
    state, _ = play_trick(state, (2, "9D"), (0, "AH"), (1, "AS"))
    state, events = play_trick(state, (1, "JS"), (2, "TD"), (0, "KH"))
    assert events[-1] == PotWon(1, "two_tricks", 40)
    state, events = settle(state)
    # Seat 1 put in 10 of C_max 20: takes 40*10/20 = 20; 20 back 20:10 -> 13.33 / 6.67.
    assert events[0] == PotSettled(1, True, 40, (20, 10, 10), (13, 20, 7))


def test_nobody_can_bid_when_all_are_all_in_from_the_ante() -> None:
    state, events = deal(new_table(2, buy_in=10), 0, {0: "AH KH 6D", 1: "QS JS 7D"}, "9H")
    assert types(events) == ["AntesPaid", "HandDealt", "BiddingEnded"]
    assert events[2] == BiddingEnded(leader=1, highest=0, short=())
    state, _ = play_trick(state, (1, "7D"), (0, "6D"))
    state, events = play_trick(state, (1, "QS"), (0, "AH"))
    state, events = play_trick(state, (0, "KH"), (1, "JS"))
    state, events = settle(state)
    assert types(events) == ["PotSettled", "MatchEnded"]
    assert events[1] == MatchEnded("ante", (20, 0), (10, -10))
    assert ENGINE.result(state) == {
        "stacks": [20, 0],
        "buy_ins": [10, 10],
        "results": [10, -10],
        "pot": 0,
        "over": True,
        "reason": "ante",
    }
    assert ENGINE.pending(state) is None and ENGINE.legal_moves(state, 0) == []
    assert rule_of(state, 0, {"action": "leave"}) == "match_over"


# -- antes, sitting out, the end -------------------------------------------------------
def test_a_player_who_cannot_pay_the_ante_sits_out_and_the_match_ends() -> None:
    table = new_table(3, buy_in=30)
    state, _ = deal(table, 2, {0: "AH KH 6D", 1: "QS JS 7D", 2: "8D 9D TD"}, "9H")
    state, _ = act(state, 0, "bet", amount=20)
    state, _ = act(state, 1, "call")
    state, _ = act(state, 2, "fold")
    state, _ = play_trick(state, (0, "AH"), (1, "QS"))
    state, _ = play_trick(state, (0, "KH"), (1, "JS"))
    state, _ = settle(state)
    assert state.stacks == (70, 0, 20)
    events = ENGINE.advance(state, SHUFFLER)
    assert events[0].as_dict() == {"hand": 2, "antes": (10, 0, 10)}
    dealt = events[1]
    assert isinstance(dealt, HandDealt) and dealt.hands[1] == () and dealt.dealer == 0
    state = fold(state, events)
    assert ENGINE.legal_moves(state, 1) == [{"action": "leave"}]
    assert rule_of(state, 1, {"action": "fold"}) == "not_in_hand"
    assert state.turn == 2
    state, _ = act(state, 2, "bet", amount=10)
    state, _ = act(state, 0, "call")
    while ENGINE.pending(state) is None:  # both play their lowest legal card
        seat = state.turn
        assert seat is not None
        state, _ = act(state, seat, **ENGINE.timeout_move(state, seat))
    # Seat 2 leads 8D and 9D, seat 0 follows with 6D, then throws KS: seat 2 wins.
    state, events = settle(state)
    assert events == [PotSettled(2, False, 40, (20, 0, 20), (0, 0, 40))]
    assert state.stacks == (50, 0, 40) and ENGINE.pending(state) == "deal"
    events = ENGINE.advance(state, SHUFFLER)
    assert events[0].as_dict()["antes"] == (10, 0, 10)


def test_the_match_ends_when_fewer_than_two_can_pay() -> None:
    state, _ = deal(new_table(2, buy_in=20), 1, {0: "AH KH 6D", 1: "QS JS 7D"}, "9H")
    state, _ = act(state, 0, "bet", amount=10)
    state, _ = act(state, 1, "call")
    state, _ = play_trick(state, (0, "AH"), (1, "QS"))
    state, events = play_trick(state, (0, "KH"), (1, "JS"))
    state, events = settle(state)
    assert events[1] == MatchEnded("ante", (40, 0), (20, -20))
    assert state.over and state.phase == "over"


def test_the_dealer_is_the_next_player_dealt_in_after_a_winner_who_left() -> None:
    state = plain_hand()
    state, events = act(state, 0, "leave")
    assert types(events) == ["LeaveRequested"]  # dealt in: it waits for the settlement
    state, _ = act(state, 0, "bet", amount=10)  # and he keeps playing meanwhile
    state, _ = act(state, 1, "fold")
    state, _ = act(state, 2, "fold")
    state, events = settle(state)
    assert types(events) == ["PotSettled", "PlayerLeft"]
    assert events[1].as_dict() == {"player": 0, "stack": 1020}
    events = ENGINE.advance(state, SHUFFLER)
    assert events[0].as_dict()["antes"] == (0, 10, 10)
    assert isinstance(events[1], HandDealt) and events[1].dealer == 1
    assert events[1].dealer_drawn_from is None


# -- leaving ------------------------------------------------------------------------
def test_leaving_between_hands_takes_effect_at_once() -> None:
    state = new_table(2)
    state, events = act(state, 1, "leave")
    assert types(events) == ["LeaveRequested", "PlayerLeft", "MatchEnded"]
    assert events[2] == MatchEnded("left", (1000, 1000), (0, 0))
    assert state.over


def test_a_player_not_in_the_pot_leaves_at_once_and_one_in_it_after_settlement() -> None:
    table = new_table(3, buy_in=30)
    state = shift_chips_for_sitting_out(table)
    assert state.in_hand == (True, False, True)
    state, events = act(state, 1, "leave")  # sits this hand out: leaves now
    assert types(events) == ["LeaveRequested", "PlayerLeft"]
    assert rule_of(state, 1, {"action": "leave"}) == "left_table"
    state, events = act(state, 2, "leave")
    assert types(events) == ["LeaveRequested"]
    assert rule_of(state, 2, {"action": "leave"}) == "already_leaving"
    assert ENGINE.view(state, None)["seats"][2]["leaving"] is True
    # The leaving player still bids (and may fold).
    assert state.turn == 2
    state, events = act(state, 2, "fold")
    assert events[-1] == PotWon(0, "all_folded", 20)
    state, events = settle(state)
    assert types(events) == ["PotSettled", "PlayerLeft", "MatchEnded"]
    assert events[-1] == MatchEnded("left", (80, 0, 10), (50, -30, -20))


def shift_chips_for_sitting_out(table: AziState) -> AziState:
    state, _ = deal(table, 2, {0: "AH KH 6D", 1: "QS JS 7D", 2: "8D 9D TD"}, "9H")
    state, _ = act(state, 0, "bet", amount=20)
    state, _ = act(state, 1, "call")
    state, _ = act(state, 2, "fold")
    state, _ = play_trick(state, (0, "AH"), (1, "QS"))
    state, _ = play_trick(state, (0, "KH"), (1, "JS"))
    state, _ = settle(state)
    state, _ = deal(state, 0, {0: "AS KS 6D", 2: "8D 9D TD"}, "9H")
    return state


# -- Azi ------------------------------------------------------------------------------
AZI_HAND = {0: "AS 7D 8D", 1: "AD 7S 8S", 2: "9S TD JH", 3: "QD KD 6S"}


def first_azi(**options: Any) -> AziState:
    """Four players; seats 0, 1, 2 each take a trick, seat 3 folded."""
    state, _ = deal(new_table(4, **options), 3, AZI_HAND, "6H")
    state, _ = act(state, 0, "bet", amount=10)
    state, _ = act(state, 1, "call")
    state, _ = act(state, 2, "call")
    state, _ = act(state, 3, "fold")
    state, _ = play_trick(state, (0, "AS"), (1, "7S"), (2, "9S"))
    state, _ = play_trick(state, (0, "7D"), (1, "AD"), (2, "TD"))
    return state


def test_an_azi_with_a_buy_in_then_a_second_azi() -> None:
    state = first_azi()
    state, events = play_trick(state, (1, "8S"), (2, "JH"), (0, "8D"))
    assert events[-1] == AziDeclared(takers=(0, 1, 2), dealer=2, price=35, candidates=(3,))
    assert state.phase == "azi_buy_in" and ENGINE.to_act(state) == (3,)
    assert ENGINE.pending(state) is None
    view = ENGINE.view(state, 3)
    assert view["azi"] == {"dealer": 2, "price": 35, "in_replay": [0, 1, 2], "to_decide": [3]}
    assert rule_of(state, 0, {"action": "buy_in"}) == "already_in_azi"
    assert ENGINE.legal_moves(state, 3)[:2] == [{"action": "buy_in"}, {"action": "decline"}]
    state, events = act(state, 3, "buy_in")  # he folded, yet he may buy in
    assert events[0].as_dict() == {"seat": 3, "paid": 35}
    assert state.pot == 105 and ENGINE.pending(state) == "deal"
    # The replay: dealt by the third trick's winner, no ante, new bidding.
    replay = {3: "AS 7H 8S", 0: "9S AH KS", 1: "TS QH 9D", 2: "JS JH TD"}
    state, events = deal(state, 2, replay, "6D")
    assert types(events) == ["HandDealt"]
    assert isinstance(events[0], HandDealt) and events[0].azi and events[0].deal == 1
    assert state.pot == 105 and state.turn == 3 and state.azi_count == 1
    state, _ = act(state, 3, "bet", amount=10)
    for seat in (0, 1, 2):
        state, _ = act(state, seat, "call")
    state, _ = play_trick(state, (3, "AS"), (0, "9S"), (1, "TS"), (2, "JS"))
    state, _ = play_trick(state, (3, "7H"), (0, "AH"), (1, "QH"), (2, "JH"))
    state, events = play_trick(state, (0, "KS"), (1, "9D"), (2, "TD"), (3, "8S"))
    # A second Azi: price is half the pot now; seat 1 took no trick.
    assert events[-1] == AziDeclared(takers=(0, 2, 3), dealer=2, price=72, candidates=(1,))
    state, events = act(state, 1, "decline")
    assert ENGINE.pending(state) == "deal"
    state, events = deal(state, 2, {3: "AH KH 7S", 0: "8S 9S TS", 2: "JS QS KS"}, "6H")
    assert state.in_hand == (True, False, True, True) and state.deals == 3
    state, _ = act(state, 3, "bet", amount=10)
    state, _ = act(state, 0, "fold")
    state, _ = act(state, 2, "call")
    state, _ = play_trick(state, (3, "AH"), (2, "JS"))
    state, events = play_trick(state, (3, "KH"), (2, "QS"))
    assert events[-1] == PotWon(3, "two_tricks", 165)
    state, events = settle(state)
    # Contributions across the whole chain.
    assert events[0] == PotSettled(3, False, 165, (30, 30, 40, 65), (0, 0, 0, 165))
    assert state.stacks == (970, 970, 960, 1100)
    # The next hand is a new hand with antes, dealt by the pot's winner.
    events = ENGINE.advance(state, SHUFFLER)
    assert types(events)[:2] == ["AntesPaid", "HandDealt"]
    assert isinstance(events[1], HandDealt) and events[1].dealer == 3 and not events[1].azi


def test_closed_azi_has_no_buy_in() -> None:
    state = first_azi(azi_buy_in="closed")
    state, events = play_trick(state, (1, "8S"), (2, "JH"), (0, "8D"))
    assert events[-1] == AziDeclared(takers=(0, 1, 2), dealer=2, price=35, candidates=())
    assert ENGINE.pending(state) == "deal" and ENGINE.to_act(state) == ()
    assert rule_of(state, 3, {"action": "buy_in"}) == "azi_closed"
    events = ENGINE.advance(state, SHUFFLER)
    dealt = events[0]
    assert isinstance(dealt, HandDealt) and dealt.dealer == 2
    assert [bool(h) for h in dealt.hands] == [True, True, True, False]


def test_a_player_without_half_the_pot_cannot_buy_in() -> None:
    # Seat 3 has 990 < half a pot only with a large pot: raise the bids.
    state, _ = deal(new_table(4, buy_in=100), 3, AZI_HAND, "6H")
    state, _ = act(state, 0, "bet", amount=60)
    state, _ = act(state, 1, "call")
    state, _ = act(state, 2, "call")
    state, _ = act(state, 3, "fold")
    state, _ = play_trick(state, (0, "AS"), (1, "7S"), (2, "9S"))
    state, _ = play_trick(state, (0, "7D"), (1, "AD"), (2, "TD"))
    state, events = play_trick(state, (1, "8S"), (2, "JH"), (0, "8D"))
    assert events[-1] == AziDeclared((0, 1, 2), 2, 110, ())
    assert rule_of(state, 3, {"action": "buy_in"}) == "wrong_phase"


def test_a_leave_asked_during_an_azi_waits_for_the_whole_chain() -> None:
    state = first_azi()
    state, events = act(state, 3, "leave")  # folded, but he put the ante in
    assert types(events) == ["LeaveRequested"]
    state, events = play_trick(state, (1, "8S"), (2, "JH"), (0, "8D"))
    state, _ = act(state, 3, "decline")
    state, _ = deal(state, 2, {0: "AH KH 7S", 1: "8S 9S TS", 2: "JS QS KS"}, "6H")
    assert not state.left[3]
    state, _ = act(state, 0, "bet", amount=10)
    state, _ = act(state, 1, "fold")
    state, _ = act(state, 2, "fold")
    state, events = settle(state)
    assert types(events) == ["PotSettled", "PlayerLeft"]
    assert state.left == (False, False, False, True)


# -- the four-card deal ---------------------------------------------------------------
def test_four_card_deal_discards_face_down_before_bidding() -> None:
    table = new_table(3, cards=4)
    hands = {0: "AH KH 6D 7D", 1: "QS JS 7S 8D", 2: "8H 9D TD JD"}
    state, _ = deal(table, 2, hands, "JD")
    assert state.phase == "discarding" and ENGINE.to_act(state) == (0, 1, 2)
    assert rule_of(state, 0, {"action": "bet", "amount": 10}) == "wrong_phase"
    assert rule_of(state, 0, {"action": "discard", "card": "QS"}) == "card_not_in_hand"
    state, events = act(state, 1, "discard", card="8D")
    assert events == [Discarded(1, "8D")]
    assert events[0].redact(0) == Discarded(1, HIDDEN)
    assert events[0].redact(None) == Discarded(1, HIDDEN)
    assert events[0].redact(1) == events[0]
    assert rule_of(state, 1, {"action": "discard", "card": "7S"}) == "already_discarded"
    assert ENGINE.to_act(state) == (0, 2)
    # The dealer may discard the turned-up card.
    state, _ = act(state, 2, "discard", card="JD")
    state, _ = act(state, 0, "discard", card="6D")
    assert state.phase == "bidding" and state.turn == 0
    assert [len(h) for h in state.hands] == [3, 3, 3]
    view = ENGINE.view(state, 2)
    assert view["trump"] == "D" and view["trump_card"] == "JD"
    assert view["hand"] == ["9D", "TD", "8H"] and view["discard"] == "JD"
    assert ENGINE.view(state, 0)["discard"] == "6D"


def test_discarding_is_only_for_the_four_card_deal() -> None:
    assert rule_of(plain_hand(), 0, {"action": "discard", "card": "AH"}) == "wrong_phase"


# -- moves are checked ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("move", "rule"),
    [
        (["bet", 10], "bad_move"),
        ({"amount": 10}, "bad_move"),
        ({"action": "raise"}, "unknown_action"),
        ({"action": 3}, "unknown_action"),
        ({"action": "bet"}, "missing_field"),
        ({"action": "fold", "card": "AH"}, "unexpected_field"),
        ({"action": "bet", "amount": "20"}, "bad_amount"),
        ({"action": "bet", "amount": 20.0}, "bad_amount"),
        ({"action": "bet", "amount": True}, "bad_amount"),
        ({"action": "play", "card": "ZZ"}, "bad_card"),
        ({"action": "play", "card": 7}, "bad_card"),
        ({"action": "play", "card": None}, "bad_card"),
    ],
)
def test_malformed_moves_name_the_rule(move: Any, rule: str) -> None:
    assert rule_of(plain_hand(), 0, move) == rule


def test_card_input_is_case_insensitive_and_ten_may_be_10() -> None:
    state, _ = deal(new_table(2), 1, {0: "TD 7S 8H", 1: "KD QD 9S"}, "JD")
    state, _ = act(state, 0, "bet", amount=10)
    state, _ = act(state, 1, "call")
    events = ENGINE.decide(state, 0, {"action": "play", "card": "10d"})
    assert events[0].move_body() == {"action": "play", "card": "TD"}
    assert rule_of(state, 1, {"action": "play", "card": "KD"}) == "not_your_turn"
    assert rule_of(state, 0, {"action": "play", "card": "AS"}) == "card_not_in_hand"


def test_no_such_seat() -> None:
    assert rule_of(plain_hand(), 7, {"action": "fold"}) == "no_such_seat"


# -- what people see -----------------------------------------------------------------
def test_the_view_shows_the_table_and_only_the_viewers_cards() -> None:
    state = plain_hand()
    state, _ = act(state, 0, "bet", amount=20)
    view = ENGINE.view(state, 1)
    for key in (
        "phase",
        "dealer",
        "trump",
        "trump_card",
        "pot",
        "stacks",
        "contributions",
        "bidding",
        "trick",
        "tricks",
        "turn",
        "hand_counts",
        "deal",
        "hand",
    ):
        assert key in view
    assert view["phase"] == "bidding" and view["dealer"] == 2 and view["turn"] == 1
    assert view["pot"] == 50 and view["contributions"] == [30, 10, 10]
    assert view["bidding"]["highest"] == 20 and view["bidding"]["leader"] == 0
    assert view["bidding"]["actions"] == [1, 0, 0]
    assert view["hand"] == ["7D", "QH", "AS"] and view["hand_counts"] == [3, 3, 3]
    text = json.dumps(view)
    for card in state.hands[0] + state.hands[2]:
        assert card not in text
    public = ENGINE.view(state, None)
    assert "hand" not in public
    assert not any(card in json.dumps(public) for h in state.hands for card in h)


def test_deal_events_hide_other_hands_but_not_the_trump_card() -> None:
    _, events = deal(new_table(2), 1, {0: "TD 7S 8H", 1: "KD QD 9S"}, "JD")
    dealt = events[1]
    seen = dealt.redact(0)
    assert isinstance(seen, HandDealt)
    assert seen.hands == (("TD", "7S", "8H"), (HIDDEN,) * 3) and seen.trump_card == "JD"


def test_apply_never_changes_its_input() -> None:
    state = plain_hand()
    before = repr(state)
    ENGINE.decide(state, 0, {"action": "bet", "amount": 10})
    fold(state, ENGINE.decide(state, 0, {"action": "bet", "amount": 10}))
    assert repr(state) == before
    check(state)
