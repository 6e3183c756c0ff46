"""Murlan rules on hand-built positions: options, the deal, turns and passes,
going out and scoring, the match's target, the exchange, errors, views."""

from __future__ import annotations

import json
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engines.base import HIDDEN, OptionError, RuleError
from service.engines.murlan import ENGINE
from service.engines.murlan.combos import CARD_CODES, CARD_NAMES
from service.engines.murlan.events import (
    CardGiven,
    CardGivenBack,
    CardsPlayed,
    ExchangeSkipped,
    HandDealt,
    HandEnded,
    MatchWon,
    Passed,
    PlayStarted,
    TableCleared,
    TargetRaised,
    TopTied,
    WentOut,
)
from service.engines.murlan.state import DEALING, EXCHANGE, OVER, PLAYING, Deal, Match, MurlanState
from tests.engines.murlan.support import (
    SHUFFLER,
    FixedDeck,
    act,
    cards,
    codes,
    deck_for,
    pass_,
    play,
    position,
)


def rule_of(state: MurlanState, seat: int, move: Any) -> str:
    with pytest.raises(RuleError) as err:
        ENGINE.decide(state, seat, move)
    return err.value.rule


# -- options -------------------------------------------------------------------------------
def test_options_default_and_validate() -> None:
    assert ENGINE.parse_options({}) == {"straight_beats": "one_higher", "exchange_min_rank": 4}
    assert ENGINE.parse_options({"straight_beats": "any_higher", "exchange_min_rank": 3}) == {
        "straight_beats": "any_higher",
        "exchange_min_rank": 3,
    }
    bad: list[tuple[dict[str, Any], str]] = [
        ({"straight_beats": "higher"}, "straight_beats"),
        ({"straight_beats": 1}, "straight_beats"),
        ({"straight_beats": ["any_higher"]}, "straight_beats"),
        ({"exchange_min_rank": 5}, "exchange_min_rank"),
        ({"exchange_min_rank": "3"}, "exchange_min_rank"),
        ({"exchange_min_rank": True}, "exchange_min_rank"),
        ({"target": 31}, "target"),
    ]
    for raw, name in bad:
        with pytest.raises(OptionError) as err:
            ENGINE.parse_options(raw)
        assert err.value.option == name
        assert name in str(err.value)
    with pytest.raises(OptionError):
        ENGINE.initial({}, 3)


# -- the deal ------------------------------------------------------------------------------
def dealt(state: MurlanState) -> tuple[MurlanState, list[Any]]:
    events = ENGINE.advance(state, SHUFFLER)
    return ENGINE.fold(state, events), events


def test_the_first_hand_is_dealt_from_seat_0_and_led_by_the_3s_holder() -> None:
    start = ENGINE.initial(ENGINE.parse_options({}), 4)
    assert ENGINE.pending(start) == "deal" and ENGINE.to_act(start) == ()
    state, events = dealt(start)
    deal = events[0]
    assert isinstance(deal, HandDealt) and deal.deal == 0 and deal.dealer == 0
    deck, _ = SHUFFLER.deal(0, 54)
    for i, card in enumerate(deck):
        assert deal.hands[i % 4][i // 4] == str(card)
    assert [len(h) for h in deal.hands] == [14, 14, 13, 13]
    leader = next(s for s in range(4) if "3S" in deal.hands[s])
    assert events[1:] == [PlayStarted(leader, "3S")]
    assert state.phase == PLAYING and ENGINE.to_act(state) == (leader,)
    assert ENGINE.pending(state) is None and ENGINE.advance(state, SHUFFLER) == []
    legal = ENGINE.legal_moves(state, leader)
    assert legal and all("3S" in m["cards"] for m in legal)
    assert {"action": "pass"} not in legal
    assert rule_of(state, leader, {"action": "pass"}) == "cannot_pass_lead"
    other = next(c for c in deal.hands[leader] if c != "3S")
    assert rule_of(state, leader, {"action": "play", "cards": [other]}) == "must_include_3s"
    after, _ = act(state, leader, {"action": "play", "cards": ["3s"]})
    assert after.trick.must_include == -1 and after.trick.turn == (leader + 1) % 4


def test_later_hands_are_dealt_from_seat_h_mod_4() -> None:
    ended = position({}, turn=-1, number=5, last_order=(0, 1, 2, 3))._replace(phase=DEALING)
    events = ENGINE.advance(ended, SHUFFLER)
    deal = events[0]
    assert isinstance(deal, HandDealt) and deal.deal == 6 and deal.dealer == 2
    assert [len(h) for h in deal.hands] == [13, 13, 14, 14]
    deck, _ = SHUFFLER.deal(6, 54)
    assert deal.hands[2][0] == str(deck[0]) and deal.hands[3][0] == str(deck[1])


# -- turns, passes and the table -----------------------------------------------------------
FOUR = {0: "5H 9C KD", 1: "6H 7S 8D", 2: "7H 9D QS", 3: "3C 4D 2H"}


def test_a_round_of_passes_clears_the_table_for_the_last_player() -> None:
    state, events = play(position(FOUR, turn=0), 0, "5H")
    assert events == [CardsPlayed(0, ("5H",), "single")]
    state, _ = pass_(state, 1)
    state, _ = pass_(state, 2)
    assert state.trick.passes == 2 and state.trick.turn == 3
    state, events = pass_(state, 3)
    assert events == [Passed(3), TableCleared(0)]
    assert state.trick.table is None and state.trick.turn == 0
    assert rule_of(state, 0, {"action": "pass"}) == "cannot_pass_lead"


def test_a_pass_only_skips_that_turn() -> None:
    state, _ = play(position(FOUR, turn=0), 0, "5H")
    state, _ = pass_(state, 1)
    state, _ = play(state, 2, "7H")
    state, _ = pass_(state, 3)
    state, _ = pass_(state, 0)
    assert state.trick.turn == 1
    state, events = play(state, 1, "8D")  # seat 1 passed before and plays now
    assert events == [CardsPlayed(1, ("8D",), "single")]
    assert state.trick.passes == 0 and state.trick.seat == 1


def test_the_lead_passes_on_when_the_last_player_has_gone_out() -> None:
    hands = {0: "9C", 1: "6H 7S", 2: "7H 9D", 3: "3C 4D"}
    state, events = play(position(hands, turn=0), 0, "9C")
    assert events == [CardsPlayed(0, ("9C",), "single"), WentOut(0, 1)]
    state, _ = pass_(state, 1)
    state, _ = pass_(state, 2)
    state, events = pass_(state, 3)  # all three still in passed: seat 0 is out
    assert events == [Passed(3), TableCleared(1)]
    assert state.trick.turn == 1


def test_the_lead_skips_players_already_out() -> None:
    hands = {0: "9C", 2: "7H 9D", 3: "3C 4D"}  # seat 1 went out before
    state = position(hands, turn=0, out=(1,))
    state, _ = play(state, 0, "9C")
    assert state.trick.turn == 2
    state, _ = pass_(state, 2)
    state, events = pass_(state, 3)
    assert events == [Passed(3), TableCleared(2)]


def test_a_player_out_is_skipped_in_turn() -> None:
    hands = {0: "5H 6H", 2: "7H 9D", 3: "3C 4D"}
    state, _ = play(position(hands, turn=3, out=(1,)), 3, "4D")
    assert state.trick.turn == 0
    state, _ = play(state, 0, "5H")
    assert state.trick.turn == 2


# -- going out, points and the match -------------------------------------------------------
def finish(
    scores: tuple[int, ...], target: int, order: tuple[int, int, int]
) -> tuple[MurlanState, list[Any]]:
    """Let ``order`` go out in that order (seat 3 - the fourth - keeps cards)."""
    hands = {s: f"{r}C" for s, r in zip(order, "567", strict=True)}
    last = next(s for s in range(4) if s not in order)
    hands[last] = "3D 4D"
    state = position(hands, turn=order[0], scores=scores, target=target)
    every: list[Any] = []
    for seat in order:
        while state.trick.turn != seat:
            state, events = pass_(state, state.trick.turn)
            every += events
        state, events = play(state, seat, hands[seat])
        every += events
    return state, every


def test_three_out_end_the_hand_with_3_2_1_0() -> None:
    state, events = finish((0, 0, 0, 0), 21, (2, 0, 3))
    assert WentOut(2, 1) in events and WentOut(0, 2) in events and WentOut(3, 3) in events
    ended = [e for e in events if isinstance(e, HandEnded)]
    assert ended == [HandEnded(1, (2, 0, 3, 1), (2, 0, 3, 1), (2, 0, 3, 1))]
    assert state.phase == DEALING and ENGINE.pending(state) == "deal"
    assert state.match.scores == (2, 0, 3, 1) and state.match.last_order == (2, 0, 3, 1)
    assert ENGINE.to_act(state) == () and ENGINE.legal_moves(state, 1) == []


def test_two_reaching_the_target_is_not_a_win() -> None:
    state, events = finish((19, 18, 20, 5), 21, (0, 1, 2))
    assert events[-1] == TargetRaised((0, 2), 31)  # seats 0 and 2 both reached 21
    assert state.phase == DEALING


def test_target_rises_when_several_reach_it() -> None:
    state, events = finish((19, 19, 0, 0), 21, (0, 1, 2))
    assert events[-1] == TargetRaised((0, 1), 31)
    assert state.match.target == 31 and state.phase == DEALING
    state, events = finish((29, 10, 10, 10), 31, (0, 1, 2))
    assert events[-1] == MatchWon(0, (32, 12, 11, 10))
    state, events = finish((39, 40, 0, 0), 41, (0, 1, 2))
    assert events[-1] == TargetRaised((0, 1), 51)


def test_exactly_one_reaching_wins_even_if_others_are_close() -> None:
    state, events = finish((19, 10, 20, 5), 21, (0, 1, 3))
    assert events[-1] == MatchWon(0, (22, 12, 20, 6))
    assert state.phase == OVER and ENGINE.is_over(state) and ENGINE.pending(state) is None
    assert ENGINE.result(state) == {"scores": [22, 12, 20, 6], "target": 21, "winners": [0]}
    assert rule_of(state, 0, {"action": "pass"}) == "game_over"


def test_at_51_the_highest_total_wins() -> None:
    _, events = finish((49, 50, 0, 0), 51, (1, 0, 2))
    assert events[-1] == MatchWon(1, (51, 53, 1, 0))


def test_a_tie_at_the_top_at_51_means_another_hand() -> None:
    state, events = finish((49, 50, 0, 0), 51, (0, 1, 2))
    assert events[-1] == TopTied((0, 1), 52)
    assert state.phase == DEALING and ENGINE.pending(state) == "deal"
    assert not ENGINE.is_over(state) and "winners" not in ENGINE.result(state)


def test_the_target_does_not_move_when_nobody_reaches_it() -> None:
    _, events = finish((1, 2, 3, 4), 21, (0, 1, 2))
    assert isinstance(events[-1], HandEnded)


# -- the exchange --------------------------------------------------------------------------
# Previous hand: seat 2 first, then 0, 3, and seat 1 last. Hand 1 is dealt from seat 1.
EXCHANGE_HANDS = [
    "3C 3D 4C 5C 6C 7C 8C 9C TC JC QC KC AC",  # seat 0
    "3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2C RJ",  # seat 1 (last): RJ is his highest
    "JD QD KD AD 2D 2H 2S JS QS KS AS BJ 3S TD",  # seat 2 (first): one 4-10 card (TD)
    "4D 5D 6D 7D 8D 9D 4S 5S 6S 7S 8S 9S TS",  # seat 3
]


def after_hand(last_order: tuple[int, ...] = (2, 0, 3, 1), **options: Any) -> MurlanState:
    base = ENGINE.initial(ENGINE.parse_options(options), 4)
    return base._replace(deal=Deal(number=0), match=Match(last_order=last_order))


def exchange(hands: list[str], **options: Any) -> tuple[MurlanState, list[Any]]:
    deck = FixedDeck(deck_for(hands, first=1))
    state = after_hand(**options)
    events = ENGINE.advance(state, deck)  # type: ignore[arg-type]
    assert deck.dealt == [1]
    return ENGINE.fold(state, events), events


def test_the_last_finisher_gives_his_highest_card_and_the_first_gives_one_back() -> None:
    state, events = exchange(EXCHANGE_HANDS)
    assert events[1:] == [CardGiven(1, 2, "RJ")]
    assert state.phase == EXCHANGE and ENGINE.to_act(state) == (2,)
    assert "RJ" in cards(" ".join(ENGINE.view(state, 2)["hand"]))
    legal = ENGINE.legal_moves(state, 2)
    assert legal == [{"action": "give_back", "card": "TD"}]
    assert ENGINE.legal_moves(state, 1) == []
    assert rule_of(state, 2, {"action": "give_back", "card": "3S"}) == "give_back_rank"
    assert rule_of(state, 2, {"action": "give_back", "card": "5C"}) == "card_not_in_hand"
    assert rule_of(state, 2, {"action": "give_back"}) == "bad_card"
    assert rule_of(state, 2, {"action": "give_back", "card": "XX"}) == "bad_card"
    assert rule_of(state, 1, {"action": "give_back", "card": "TD"}) == "not_your_turn"
    assert rule_of(state, 2, {"action": "play", "cards": ["TD"]}) == "exchange_pending"
    assert rule_of(state, 2, {"action": "pass"}) == "exchange_pending"
    state, events = act(state, 2, {"action": "give_back", "card": "td"})
    assert events == [CardGivenBack(2, 1, "TD"), PlayStarted(1)]
    assert state.phase == PLAYING and ENGINE.to_act(state) == (1,)
    assert state.trick.must_include == -1
    assert [len(h) for h in state.deal.hands] == [13, 14, 14, 13]
    assert "TD" in ENGINE.view(state, 1)["hand"] and "RJ" in ENGINE.view(state, 2)["hand"]
    legal = ENGINE.legal_moves(state, 1)  # the last finisher leads with anything
    assert {"action": "play", "cards": ["4H"]} in legal
    assert rule_of(state, 2, {"action": "give_back", "card": "TD"}) == "no_exchange"


def test_exchange_min_rank_3_allows_threes() -> None:
    state, _ = exchange(EXCHANGE_HANDS, exchange_min_rank=3)
    assert [m["card"] for m in ENGINE.legal_moves(state, 2)] == ["3S", "TD"]


def swap(hands: list[str], seat_a: int, give: str, seat_b: int, take: str) -> list[str]:
    """``hands`` with ``give`` (held by ``seat_a``) and ``take`` (``seat_b``) swapped."""
    out = list(hands)
    a, b = out[seat_a].split(), out[seat_b].split()
    for card in give.split():
        a.remove(card)
        b.append(card)
    for card in take.split():
        b.remove(card)
        a.append(card)
    out[seat_a], out[seat_b] = " ".join(a), " ".join(b)
    return out


def test_with_no_card_from_4_to_10_he_gives_one_of_his_lowest_rank() -> None:
    no_low = swap(EXCHANGE_HANDS, 2, "3S TD", 1, "JH QH")
    for min_rank in (4, 3):
        state, events = exchange(no_low, exchange_min_rank=min_rank)
        assert events[1:] == [CardGiven(1, 2, "RJ")]
        assert [m["card"] for m in ENGINE.legal_moves(state, 2)] == ["JD", "JH", "JS"]
    # With a 3 and nothing from 4 to 10, the 3 is his lowest rank, so he gives it.
    three_only = swap(EXCHANGE_HANDS, 2, "TD", 1, "JH")
    state, _ = exchange(three_only)
    assert [m["card"] for m in ENGINE.legal_moves(state, 2)] == ["3S"]


def test_among_equal_ranks_the_higher_suit_is_given() -> None:
    hands = list(EXCHANGE_HANDS)
    hands[1] = hands[1].replace("RJ", "2H")
    hands[2] = hands[2].replace("2H", "RJ")
    _, events = exchange(hands)
    assert events[1:] == [CardGiven(1, 2, "2H")]


def test_no_exchange_when_the_last_finisher_was_dealt_both_jokers() -> None:
    hands = list(EXCHANGE_HANDS)
    hands[1] = hands[1].replace("2C", "BJ")
    hands[2] = hands[2].replace("BJ", "2C")
    state, events = exchange(hands)
    assert events[1:] == [ExchangeSkipped(1, 2), PlayStarted(2)]
    assert state.phase == PLAYING and ENGINE.to_act(state) == (2,)
    assert ENGINE.view(state, 0)["exchange"]["skipped"] is True


def test_the_exchanged_cards_are_seen_by_the_two_seats_only() -> None:
    state, events = exchange(EXCHANGE_HANDS)
    given = events[1]
    assert given.redact(1) == given and given.redact(2) == given
    assert given.redact(0) == CardGiven(1, 2, HIDDEN) and given.redact(None).card == HIDDEN
    assert ENGINE.view(state, 2)["exchange"]["card_given"] == "RJ"
    assert ENGINE.view(state, 0)["exchange"]["card_given"] == HIDDEN
    assert ENGINE.view(state, None)["exchange"]["card_given"] == HIDDEN
    state, events = act(state, 2, {"action": "give_back", "card": "TD"})
    back = events[0]
    assert back.redact(1) == back and back.redact(3).card == HIDDEN
    assert back.move_body() == {"action": "give_back", "card": "TD"}
    assert ENGINE.view(state, 1)["exchange"]["card_given_back"] == "TD"
    assert ENGINE.view(state, 3)["exchange"]["card_given_back"] == HIDDEN


def test_the_exchange_stays_in_the_views_for_the_whole_hand() -> None:
    state, _ = exchange(EXCHANGE_HANDS)
    state, _ = act(state, 2, {"action": "give_back", "card": "TD"})
    expected = {"first_finisher": 2, "last_finisher": 1, "skipped": False}
    state, _ = act(state, 1, {"action": "play", "cards": ["4H"]})
    state, _ = act(state, 2, {"action": "pass"})
    assert state.phase == PLAYING and state.trick.cards
    for viewer, card, back in [(1, "RJ", "TD"), (2, "RJ", "TD"), (0, HIDDEN, HIDDEN)]:
        shown = ENGINE.view(state, viewer)["exchange"]
        assert shown == {**expected, "card_given": card, "card_given_back": back}
    assert ENGINE.view(state, None)["exchange"]["card_given"] == HIDDEN


# -- illegal moves -------------------------------------------------------------------------
def test_each_illegal_play_names_its_rule() -> None:
    state = position(FOUR, turn=1, table="5C", table_seat=0)
    cases: list[tuple[int, Any, str]] = [
        (0, {"action": "pass"}, "not_your_turn"),
        (1, {"action": "fold"}, "unknown_action"),
        (1, {"action": ["play"]}, "unknown_action"),
        (1, {}, "unknown_action"),
        (1, "pass", "bad_move"),
        (1, {"action": "play"}, "no_cards"),
        (1, {"action": "play", "cards": []}, "no_cards"),
        (1, {"action": "play", "cards": "6H"}, "bad_cards"),
        (1, {"action": "play", "cards": ["6H", "6h"]}, "duplicate_card"),
        (1, {"action": "play", "cards": ["6Z"]}, "bad_card"),
        (1, {"action": "play", "cards": [6]}, "bad_card"),
        (1, {"action": "play", "cards": ["9H"]}, "card_not_in_hand"),
        (1, {"action": "play", "cards": ["6H", "7S"]}, "not_a_combination"),
        (1, {"action": "give_back", "card": "6H"}, "no_exchange"),
        (1, {"action": "pass", "cards": []}, "unexpected_field"),
        (1, {"action": "play", "cards": ["6H"], "card": "6H"}, "unexpected_field"),
        (1, {"action": "play", "card": ["6H"]}, "unexpected_field"),
    ]
    for seat, move, rule in cases:
        assert rule_of(state, seat, move) == rule, move
    low = position({1: "4H 5D 5S 9C"}, turn=1, table="5C", table_seat=0)
    assert rule_of(low, 1, {"action": "play", "cards": ["4H"]}) == "not_higher"
    assert rule_of(low, 1, {"action": "play", "cards": ["5D", "5S"]}) == "does_not_match"
    run = position({1: "5D 6D 7D 8D 9D"}, turn=1, table="3C 4D 5H 6S 7C", table_seat=0)
    assert rule_of(run, 1, {"action": "play", "cards": ["5D", "6D", "7D", "8D", "9D"]}) == (
        "straight_not_next"
    )
    run = position(
        {1: "5D 6D 7D 8D 9D"},
        turn=1,
        table="3C 4D 5H 6S 7C",
        table_seat=0,
        straight_beats="any_higher",
    )
    _, events = act(run, 1, {"action": "play", "cards": ["9D", "8D", "7D", "6D", "5D"]})
    assert events[0] == CardsPlayed(1, ("5D", "6D", "7D", "8D", "9D"), "straight")
    bomb = position({1: "2C RJ"}, turn=1, table="4C 4D 4H 4S", table_seat=0)
    assert rule_of(bomb, 1, {"action": "play", "cards": ["RJ"]}) == "only_quad_beats_quad"
    unplayed = ENGINE.initial(ENGINE.parse_options({}), 4)
    assert rule_of(unplayed, 0, {"action": "pass"}) == "not_dealt"


def test_error_messages_name_the_input() -> None:
    state = position(FOUR, turn=1, table="5C", table_seat=0)
    with pytest.raises(RuleError, match="9H"):
        ENGINE.decide(state, 1, {"action": "play", "cards": ["9H"]})
    with pytest.raises(RuleError, match="6Z"):
        ENGINE.decide(state, 1, {"action": "play", "cards": ["6Z"]})
    with pytest.raises(RuleError, match="seat 1"):
        ENGINE.decide(state, 0, {"action": "pass"})


def test_a_quad_beats_a_straight_on_the_table() -> None:
    state = position({1: "4C 4D 4H 4S 9C"}, turn=1, table="TC JD QH KS AC", table_seat=0)
    legal = ENGINE.legal_moves(state, 1)
    assert legal == [{"action": "play", "cards": ["4C", "4D", "4H", "4S"]}, {"action": "pass"}]
    _, events = act(state, 1, {"action": "play", "cards": ["4S", "4H", "4D", "4C"]})
    assert events[0] == CardsPlayed(1, ("4C", "4D", "4H", "4S"), "quad")


# -- legal moves, views, bodies ------------------------------------------------------------
def test_legal_moves_are_canonical_and_accepted_in_any_order() -> None:
    state = position({0: "AH 2D 3S 4C 5H 5S BJ", 1: "9C"}, turn=0)
    legal = ENGINE.legal_moves(state, 0)
    assert {"action": "play", "cards": ["3S", "4C", "5H", "AH", "2D"]} in legal
    assert {"action": "play", "cards": ["5H", "5S"]} in legal
    assert {"action": "pass"} not in legal
    assert ENGINE.legal_moves(state, 1) == []
    for move in legal:
        reordered = {"action": "play", "cards": [c.lower() for c in reversed(move["cards"])]}
        assert ENGINE.decide(state, 0, reordered) == ENGINE.decide(state, 0, move)
    following = position({0: "9C 9D 3S", 1: "9H"}, turn=0, table="8C", table_seat=1)
    assert ENGINE.legal_moves(following, 0) == [
        {"action": "play", "cards": ["9C"]},
        {"action": "play", "cards": ["9D"]},
        {"action": "pass"},
    ]


def test_move_bodies_follow_the_api() -> None:
    assert CardsPlayed(0, ("3S", "3H"), "pair").move_body() == {
        "action": "play",
        "cards": ["3S", "3H"],
    }
    assert Passed(2).move_body() == {"action": "pass"} and Passed(2).seat_of_move == 2
    assert CardGivenBack(1, 3, "7H").move_body() == {"action": "give_back", "card": "7H"}
    assert CardGiven(3, 1, "RJ").move_body() is None
    for cls in ENGINE.event_types:
        assert cls.type == cls.__name__


def test_views_show_the_table_and_only_the_viewers_hand() -> None:
    state, _ = play(position(FOUR, turn=0, scores=(3, 5, 0, 1)), 0, "5H")
    view = ENGINE.view(state, 1)
    assert view["phase"] == "playing" and view["turn"] == 1 and view["to_act"] == [1]
    assert view["table"] == {"cards": ["5H"], "combination": "single", "seat": 0, "passes": 0}
    assert view["hand"] == ["6H", "7S", "8D"] and view["hand_counts"] == [2, 3, 3, 3]
    assert view["scores"] == [3, 5, 0, 1] and view["target"] == 21
    assert view["hand_number"] == 1 and view["dealer"] == 1 and view["out"] == []
    assert view["leading"] is False and view["winners"] == []
    public = ENGINE.view(state, None)
    assert "hand" not in public
    text = json.dumps(public)
    for seat, hand in FOUR.items():
        for card in hand.split():
            if card != "5H":
                assert card not in text, (seat, card)
    assert ENGINE.result(state) == {"scores": [3, 5, 0, 1], "target": 21}


def test_timeout_moves() -> None:
    leading = position({0: "9C 4D 2H", 1: "3C"}, turn=0)
    assert ENGINE.timeout_move(leading, 0) == {"action": "play", "cards": ["4D"]}
    following = position({0: "9C 4D 2H", 1: "3C"}, turn=0, table="5C", table_seat=1)
    assert ENGINE.timeout_move(following, 0) == {"action": "pass"}
    first = position({0: "9C 3S 2H", 1: "3C"}, turn=0, must_include="3S")
    assert ENGINE.timeout_move(first, 0) == {"action": "play", "cards": ["3S"]}
    state, _ = exchange(EXCHANGE_HANDS)
    assert ENGINE.timeout_move(state, 2) == {"action": "give_back", "card": "TD"}
    with pytest.raises(RuleError):
        ENGINE.timeout_move(leading, 1)


def test_events_are_json_friendly() -> None:
    state, events = exchange(EXCHANGE_HANDS)
    _, more = act(state, 2, {"action": "give_back", "card": "TD"})
    for event in [*events, *more]:
        json.dumps(event.as_dict())
    assert isinstance(events[0], HandDealt) and events[0].redact(0).hands[1][0] == HIDDEN


def test_states_are_plain_values() -> None:
    a = position(FOUR, turn=0)
    b = position(FOUR, turn=0)
    assert a == b and a is not b
    after, _ = play(a, 0, "5H")
    assert a == b and after != a  # apply never changes its input
    assert codes("5H") == codes("5h") == (CARD_CODES["5H"],)


# -- decide agrees with legal_moves on every subset of a hand -------------------------------
TABLE_CHOICES = [
    None,
    "7C",
    "2S",
    "BJ",
    "9C 9D",
    "4C 4D 4H",
    "QC QD QH QS",
    "3C 4D 5H 6S 7C",
    "AC 2D 3H 4S 5C",
    "6C 7D 8H 9S TC JD",
]


@settings(max_examples=60, deadline=None)
@given(
    hand=st.lists(st.sampled_from(CARD_NAMES), min_size=1, max_size=10, unique=True),
    table=st.sampled_from(TABLE_CHOICES),
    any_higher=st.booleans(),
)
def test_decide_accepts_exactly_the_listed_moves(
    hand: list[str], table: str | None, any_higher: bool
) -> None:
    held = [c for c in hand if table is None or c not in table.split()]
    if not held:
        return
    options = {"straight_beats": "any_higher"} if any_higher else {}
    state = position(
        {0: " ".join(held), 1: "3D"}, turn=0, table=table, table_seat=1 if table else -1, **options
    )
    legal = ENGINE.legal_moves(state, 0)
    listed = {tuple(m["cards"]) for m in legal if m["action"] == "play"}
    assert ({"action": "pass"} in legal) == (table is not None)
    assert len(listed) == len(legal) - (table is not None)
    for size in range(1, len(held) + 1):
        for subset in combinations(sorted(held, key=CARD_NAMES.index), size):
            try:
                ENGINE.decide(state, 0, {"action": "play", "cards": list(subset)})
            except RuleError:
                assert subset not in listed
            else:
                assert subset in listed


def test_the_exchange_stays_hidden_after_the_hand_when_the_order_changes() -> None:
    state, _ = exchange(EXCHANGE_HANDS)
    state, _ = act(state, 2, {"action": "give_back", "card": "TD"})
    # The hand ends with seats 0 and 3 first and last: they were not in this exchange.
    ended = state._replace(match=state.match._replace(last_order=(0, 1, 2, 3)))
    for outsider in (0, 3, None):
        view = ENGINE.view(ended, outsider)["exchange"]
        assert view["card_given"] == HIDDEN and view["card_given_back"] == HIDDEN
        assert (view["first_finisher"], view["last_finisher"]) == (2, 1)
    assert ENGINE.view(ended, 1)["exchange"]["card_given_back"] == "TD"
