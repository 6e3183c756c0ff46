"""Hazari Lite engine: options, the deal, validation of arrangements, the
rounds and the match, views and redaction, on hand-built deals."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engines.base import HIDDEN, OptionError, RuleError
from service.engines.hazari import ENGINE
from service.engines.hazari.combos import CARD_STRS, key
from service.engines.hazari.events import Arranged, DealScored, Dealt, MatchEnded, RoundPlayed
from service.engines.hazari.state import HazariState
from service.engines.shuffle import Shuffler

# A deal built so that it shows every rule of play: the dealer is seat 3, so
# seat 0 lays first. Round 1: seats 0 and 1 both lay Q-J-T runs and seat 1,
# laying later, wins. Round 2 is led by seat 1; seats 1 and 0 tie with pairs
# of 8s and seat 0, laying last, wins. Round 3 (led by seat 0) goes to seat
# 1's pair of 6s; round 4 (16 cards, led by seat 1) to seat 0's K-9-4.
SCENARIO: tuple[list[list[str]], ...] = (
    [["QS", "JH", "TD"], ["8S", "8H", "5C"], ["AC", "7D", "3H"], ["KC", "9D", "4S", "2H"]],
    [["QH", "JD", "TC"], ["8C", "8D", "5D"], ["6S", "6H", "2S"], ["9C", "7H", "4D", "3S"]],
    [["AH", "KH", "TH"], ["AD", "KS", "9H"], ["AS", "QC", "7C"], ["JS", "6D", "3C", "2D"]],
    [["TS", "9S", "7S"], ["5H", "5S", "JC"], ["4C", "4H", "KD"], ["2C", "6C", "3D", "QD"]],
)
SCENARIO_DEALER = 3


def body(groups: Any) -> dict[str, Any]:
    return {"action": "arrange", "groups": groups}


def hand_of(groups: list[list[str]]) -> tuple[str, ...]:
    return tuple(sorted(c for g in groups for c in g))


def dealt(
    arrangements: tuple[list[list[str]], ...] = SCENARIO,
    dealer: int = SCENARIO_DEALER,
    deal: int = 0,
    target: int = 1000,
    scores: tuple[int, ...] = (0, 0, 0, 0),
) -> HazariState:
    start = replace(HazariState(target=target), scores=scores, deal=deal - 1)
    hands = tuple(hand_of(groups) for groups in arrangements)
    return ENGINE.apply(start, Dealt(deal, dealer, hands))


def arrange_all(state: HazariState, order: tuple[int, ...] = (2, 0, 3, 1)) -> list[Any]:
    """Every seat says up with its SCENARIO groups; the events of the last move."""
    events: list[Any] = []
    for seat in order:
        events = ENGINE.decide(state, seat, body(SCENARIO[seat]))
        state = ENGINE.fold(state, events)
    return events


# -- options and set-up --------------------------------------------------------------


def test_options_default_and_range() -> None:
    assert ENGINE.parse_options({}) == {"target": 1000}
    assert ENGINE.parse_options({"target": 360}) == {"target": 360}
    assert ENGINE.parse_options({"target": 10_000}) == {"target": 10_000}


@pytest.mark.parametrize(
    ("raw", "option"),
    [
        ({"target": 359}, "target"),
        ({"target": 10_001}, "target"),
        ({"target": "1000"}, "target"),
        ({"target": 1000.0}, "target"),
        ({"target": True}, "target"),
        ({"target": None}, "target"),
        ({"goal": 500}, "goal"),
    ],
)
def test_bad_options_name_the_option(raw: dict[str, Any], option: str) -> None:
    with pytest.raises(OptionError) as err:
        ENGINE.parse_options(raw)
    assert err.value.option == option
    assert option in str(err.value)


def test_four_seats_only() -> None:
    assert (ENGINE.min_seats, ENGINE.max_seats) == (4, 4)
    with pytest.raises(OptionError):
        ENGINE.initial({}, 3)


def test_every_event_type_is_listed() -> None:
    assert set(ENGINE.event_types) == {Dealt, Arranged, RoundPlayed, DealScored, MatchEnded}
    assert Dealt.is_deal
    assert ENGINE.legal_moves_complete is False


# -- the deal ---------------------------------------------------------------------------

SHUFFLER = Shuffler(bytes(range(32)), "hazari-deal", ("a", "b", "c", "d"))


def test_first_dealer_is_the_draw_after_the_shuffle_and_cards_go_one_at_a_time() -> None:
    state = ENGINE.initial({}, 4)
    assert ENGINE.pending(state) == "deal"
    assert ENGINE.to_act(state) == ()
    (event,) = ENGINE.advance(state, SHUFFLER)
    deck, stream = SHUFFLER.deal(0, 52)
    dealer = stream.draw(4)
    assert isinstance(event, Dealt)
    assert (event.deal, event.dealer) == (0, dealer)
    for seat in range(4):
        # dealer + 1 gets the first card, then the next seat, and so on
        assert event.hands[seat] == tuple(str(c) for c in deck[(seat - dealer - 1) % 4 :: 4])
    state = ENGINE.apply(state, event)
    assert ENGINE.pending(state) is None
    assert ENGINE.advance(state, SHUFFLER) == []
    assert ENGINE.to_act(state) == (0, 1, 2, 3)


def test_the_deal_passes_to_the_next_seat_with_the_next_deal_number() -> None:
    state = ENGINE.initial({"target": 10_000}, 4)
    dealers = []
    for number in range(6):
        (event,) = ENGINE.advance(state, SHUFFLER)
        assert isinstance(event, Dealt) and event.deal == number
        deck, _ = SHUFFLER.deal(number, 52)
        assert sorted(c for h in event.hands for c in h) == sorted(str(c) for c in deck)
        dealers.append(event.dealer)
        state = ENGINE.apply(state, event)
        for seat in range(4):
            state = ENGINE.fold(state, ENGINE.decide(state, seat, ENGINE.bot_move(state, seat)))
        assert ENGINE.pending(state) == "deal"
    assert dealers == [(dealers[0] + i) % 4 for i in range(6)]


# -- play: the scenario -------------------------------------------------------------------


def test_rounds_follow_the_rules() -> None:
    events = arrange_all(dealt())
    assert isinstance(events[0], Arranged) and events[0].seat == 1
    rounds = events[1:5]
    assert all(isinstance(r, RoundPlayed) for r in rounds)
    assert [(r.round, r.leader, r.order, r.winner, r.points) for r in rounds] == [
        (1, 0, (0, 1, 2, 3), 1, 110),  # equal runs: the later one wins
        (2, 1, (1, 2, 3, 0), 0, 75),  # the winner leads; equal pairs: seat 0 laid last
        (3, 0, (0, 1, 2, 3), 1, 80),
        (4, 1, (1, 2, 3, 0), 0, 95),  # 16 cards
    ]
    for r in rounds:
        assert r.laid == tuple(tuple(SCENARIO[s][r.round - 1]) for s in range(4))
    assert rounds[0].combos == ("run Q-J-T", "run Q-J-T", "color A-K-T", "color T-9-7")
    assert rounds[3].combos[0] == "indi K-9-4"
    assert events[5] == DealScored(0, (170, 190, 0, 0), (170, 190, 0, 0))
    assert len(events) == 6


def test_the_order_of_saying_up_does_not_matter() -> None:
    a = arrange_all(dealt(), order=(0, 1, 2, 3))
    b = arrange_all(dealt(), order=(3, 2, 1, 0))
    assert a[1:] == b[1:]


def test_state_after_a_deal() -> None:
    state = dealt()
    for seat in (0, 1, 2, 3):
        state = ENGINE.fold(state, ENGINE.decide(state, seat, body(SCENARIO[seat])))
    assert state.scores == (170, 190, 0, 0)
    assert state.hands == ((),) * 4
    assert sorted(state.collected[0] + state.collected[1]) == sorted(CARD_STRS)
    assert len(state.collected[0]) == 12 + 16 and len(state.collected[1]) == 24
    assert ENGINE.pending(state) == "deal" and ENGINE.to_act(state) == ()
    assert not ENGINE.is_over(state)
    assert ENGINE.result(state) == {"scores": [170, 190, 0, 0], "target": 1000}


def test_match_ends_when_the_target_is_reached_with_a_single_top_total() -> None:
    events = arrange_all(dealt(scores=(900, 900, 0, 0)))
    assert events[-1] == MatchEnded((1070, 1090, 0, 0), (1,))
    state = dealt(scores=(900, 900, 0, 0))
    for seat in (2, 0, 3, 1):
        state = ENGINE.fold(state, ENGINE.decide(state, seat, body(SCENARIO[seat])))
    assert ENGINE.is_over(state) and ENGINE.pending(state) is None
    assert ENGINE.result(state) == {
        "scores": [1070, 1090, 0, 0],
        "target": 1000,
        "winners": [1],
    }
    with pytest.raises(RuleError) as err:
        ENGINE.decide(state, 0, body(SCENARIO[0]))
    assert err.value.rule == "game_over"


def test_reaching_the_target_exactly_ends_the_match() -> None:
    events = arrange_all(dealt(scores=(830, 0, 0, 0)))
    assert events[-1] == MatchEnded((1000, 190, 0, 0), (0,))


def test_a_shared_top_total_means_another_deal() -> None:
    state = dealt(scores=(850, 830, 0, 0))
    for seat in range(4):
        state = ENGINE.fold(state, ENGINE.decide(state, seat, body(SCENARIO[seat])))
    assert state.scores == (1020, 1020, 0, 0)
    assert not ENGINE.is_over(state)
    assert ENGINE.pending(state) == "deal"
    assert "winners" not in ENGINE.result(state)


def test_nobody_at_the_target_means_another_deal() -> None:
    events = arrange_all(dealt(target=360))
    assert not any(isinstance(e, MatchEnded) for e in events)


# -- invalid arrangements --------------------------------------------------------------

G = SCENARIO[0]


def swapped(i: int, j: int) -> list[list[str]]:
    groups = [list(g) for g in G]
    groups[i], groups[j] = groups[j], groups[i]
    return groups


def replaced(old: str, new: Any) -> list[list[Any]]:
    return [[new if c == old else c for c in g] for g in G]


INVALID: list[tuple[str, Any, str, str]] = [
    ("a string", "arrange", "bad_move", "JSON object"),
    ("a list", [G], "bad_move", "JSON object"),
    ("no action", {"groups": G}, "unknown_action", "no 'action'"),
    ("another game's action", {"action": "play", "groups": G}, "unknown_action", "'play'"),
    ("no groups", {"action": "arrange"}, "missing_groups", "groups"),
    ("an extra field", {**body(G), "cards": []}, "unexpected_field", "cards"),
    ("groups as a string", body("QS JH TD"), "bad_groups", "QS JH TD"),
    ("groups as an object", body({"1": G[0]}), "bad_groups", "four lists"),
    ("three groups", body(G[:3]), "bad_groups", "not 3"),
    ("five groups", body([*G, []]), "bad_groups", "not 5"),
    ("a group as a string", body([G[0], G[1], G[2], "KC 9D 4S 2H"]), "bad_groups", "KC 9D"),
    ("four-card group first", body([G[3], G[0], G[1], G[2]]), "bad_group_sizes", "4, 3, 3, 3"),
    ("four-card group third", body(swapped(2, 3)), "bad_group_sizes", "3, 3, 4, 3"),
    (
        "sizes 2, 4, 3, 4",
        body([["QS", "JH"], ["TD", "8S", "8H", "5C"], G[2], G[3]]),
        "bad_group_sizes",
        "2, 4, 3, 4",
    ),
    ("12 cards", body([G[0], G[1], G[2], G[3][:3]]), "bad_group_sizes", "3, 3, 3, 3"),
    ("an unknown card", body(replaced("2H", "2X")), "bad_card", "2X"),
    ("a number for a card", body(replaced("2H", 2)), "bad_card", "2"),
    ("null for a card", body(replaced("2H", None)), "bad_card", "None"),
    ("a joker", body(replaced("2H", "BJ")), "bad_card", "jokers"),
    ("a card twice", body(replaced("2H", "QS")), "duplicate_card", "QS"),
    ("a card twice, other notation", body(replaced("2H", "qs")), "duplicate_card", "QS"),
    ("another seat's card", body(replaced("2H", "AS")), "not_your_card", "left out: 2H"),
    ("group 2 above group 1", body(swapped(0, 1)), "groups_out_of_order", "group 2"),
    ("group 3 above group 2", body(swapped(1, 2)), "groups_out_of_order", "group 3"),
    (
        "the four-card group above group 3",
        body([G[0], G[1], ["KC", "9D", "4S"], ["AC", "7D", "3H", "2H"]]),
        "four_card_group_not_lowest",
        "must be the weakest",
    ),
]


@pytest.mark.parametrize(
    ("label", "move", "rule", "in_message"), INVALID, ids=[c[0] for c in INVALID]
)
def test_invalid_arrangement_is_rejected_with_its_own_rule(
    label: str, move: Any, rule: str, in_message: str
) -> None:
    state = dealt()
    snapshot = replace(state)
    with pytest.raises(RuleError) as err:
        ENGINE.decide(state, 0, move)
    assert err.value.rule == rule, (label, str(err.value))
    assert in_message in str(err.value)
    assert state == snapshot
    assert ENGINE.to_act(state) == (0, 1, 2, 3)
    # the valid move is still accepted afterwards
    assert ENGINE.decide(state, 0, body(G))[0] == Arranged(0, tuple(tuple(g) for g in G))


def test_each_way_of_being_wrong_has_its_own_rule() -> None:
    rules = {c[2] for c in INVALID}
    assert rules == {
        "bad_move",
        "unknown_action",
        "missing_groups",
        "unexpected_field",
        "bad_groups",
        "bad_group_sizes",
        "bad_card",
        "duplicate_card",
        "not_your_card",
        "groups_out_of_order",
        "four_card_group_not_lowest",
    }


def test_saying_up_twice_is_refused() -> None:
    state = dealt()
    state = ENGINE.fold(state, ENGINE.decide(state, 0, body(G)))
    for move in (body(G), body(swapped(0, 1))):
        with pytest.raises(RuleError) as err:
            ENGINE.decide(state, 0, move)
        assert err.value.rule == "already_up"
    assert state.arrangements[0] == tuple(tuple(g) for g in G)


def test_moves_before_the_deal_or_from_no_seat_are_refused() -> None:
    with pytest.raises(RuleError) as err:
        ENGINE.decide(ENGINE.initial({}, 4), 0, body(G))
    assert err.value.rule == "no_deal"
    for seat in (-1, 4, True):
        with pytest.raises(RuleError) as err:
            ENGINE.decide(dealt(), seat, body(G))
        assert err.value.rule == "no_such_seat"


def test_player_notation_is_accepted_and_stored_canonically() -> None:
    groups = [["qs", "jh", "10d"], ["8S", "8h", "5c"], ["AC", "7D", "3H"], ["KC", "9D", "4S", "2H"]]
    (event,) = ENGINE.decide(dealt(), 0, body(groups))
    assert isinstance(event, Arranged)
    assert event.groups[0] == ("QS", "JH", "TD")
    assert event.move_body() == body([list(g) for g in G])


def test_equal_groups_are_in_order() -> None:
    """Groups only have to be >= the next: equal values are fine, the
    four-card group included."""
    groups = [
        ["AS", "AH", "AD"],
        ["QS", "JS", "TS"],
        ["9S", "9H", "KS"],
        ["9C", "9D", "KC", "2H"],
    ]
    assert key(groups[3]) == key(groups[2])
    state = dealt(arrangements=(groups, *SCENARIO[1:]))
    (event,) = ENGINE.decide(state, 0, body(groups))
    assert isinstance(event, Arranged)


cards_or_junk = st.one_of(
    st.sampled_from(CARD_STRS),
    st.sampled_from(["10s", "qh", "BJ", "1S", "", "??"]),
    st.integers(-1, 60),
    st.none(),
)
json_values = st.recursive(
    cards_or_junk | st.booleans() | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(["action", "groups", "x"]), inner, max_size=3)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_any_json_is_a_rule_error_or_a_move(move: Any) -> None:
    state = dealt()
    snapshot = replace(state)
    try:
        ENGINE.decide(state, 0, move)
    except RuleError as err:
        assert err.rule and str(err)
    assert state == snapshot


@settings(max_examples=300, deadline=None)
@given(st.permutations([c for g in G for c in g]), st.booleans())
def test_any_split_of_the_hand_is_accepted_exactly_when_it_is_in_order(
    cards: list[str], sort_first: bool
) -> None:
    """Check validation against a direct reading of the ordering rule."""
    groups = [cards[0:3], cards[3:6], cards[6:9], cards[9:13]]
    if sort_first:
        groups[:3] = sorted(groups[:3], key=key, reverse=True)
    keys = [key(g) for g in groups]
    in_order = keys[0] >= keys[1] >= keys[2] >= keys[3]
    state = dealt()
    try:
        events = ENGINE.decide(state, 0, body(groups))
    except RuleError as err:
        assert not in_order
        assert err.rule in ("groups_out_of_order", "four_card_group_not_lowest")
    else:
        assert in_order and events == [Arranged(0, tuple(tuple(g) for g in groups))]


# -- what seats see ---------------------------------------------------------------------


def test_arrangements_are_hidden_from_the_other_seats() -> None:
    event = Arranged(0, tuple(tuple(g) for g in G))
    assert event.redact(0) == event
    for viewer in (1, 2, 3, None):
        hidden = event.redact(viewer)
        assert isinstance(hidden, Arranged)
        assert [len(g) for g in hidden.groups] == [3, 3, 3, 4]
        assert {c for g in hidden.groups for c in g} == {HIDDEN}
        assert hidden.seat == 0


def test_deal_hides_other_hands() -> None:
    state = ENGINE.initial({}, 4)
    (event,) = ENGINE.advance(state, SHUFFLER)
    assert isinstance(event, Dealt)
    seen = event.redact(2)
    assert isinstance(seen, Dealt)
    assert seen.hands[2] == event.hands[2]
    assert all(set(seen.hands[s]) == {HIDDEN} and len(seen.hands[s]) == 13 for s in (0, 1, 3))


def test_views_while_arranging() -> None:
    state = dealt()
    state = ENGINE.fold(state, ENGINE.decide(state, 0, body(G)))
    mine = ENGINE.view(state, 0)
    theirs = ENGINE.view(state, 1)
    public = ENGINE.view(state, None)
    assert mine["phase"] == "arranging"
    assert (mine["deal"], mine["dealer"], mine["first_to_lay"]) == (0, 3, 0)
    assert mine["said_up"] == [True, False, False, False]
    assert mine["to_act"] == [1, 2, 3]
    assert mine["hand_counts"] == [13, 13, 13, 13]
    assert mine["arrangement"] == G
    assert mine["hand"][0] == "AC" and sorted(mine["hand"]) == list(hand_of(G))
    assert theirs["arrangement"] is None
    assert theirs["hand"] == sorted(theirs["hand"], key=lambda c: -"23456789TJQKA".index(c[0]))
    assert "hand" not in public and "arrangement" not in public
    for viewer, view in ((1, theirs), (None, public)):
        text = json.dumps(view)
        others = [c for s in range(4) if s != viewer for c in state.hands[s]]
        assert not any(f'"{c}"' in text for c in others), viewer


def test_view_after_the_rounds_shows_what_was_laid() -> None:
    state = dealt()
    for seat in range(4):
        state = ENGINE.fold(state, ENGINE.decide(state, seat, body(SCENARIO[seat])))
    view = ENGINE.view(state, 2)
    assert view["phase"] == "dealing"
    assert view["hand"] == [] and view["arrangement"] is None
    last = view["last_deal"]
    assert last["deal"] == 0 and last["points"] == [170, 190, 0, 0]
    assert [r["winner"] for r in last["rounds"]] == [1, 0, 1, 0]
    assert last["rounds"][3]["laid"][0] == ["KC", "9D", "4S", "2H"]
    assert view["scores"] == [170, 190, 0, 0]
    json.dumps(view)


def test_legal_moves_bot_and_timeout() -> None:
    state = dealt()
    (suggestion,) = ENGINE.legal_moves(state, 1)
    assert suggestion == ENGINE.bot_move(state, 1) == ENGINE.timeout_move(state, 1)
    assert ENGINE.decide(state, 1, suggestion)[0].seat == 1  # type: ignore[attr-defined]
    state = ENGINE.fold(state, ENGINE.decide(state, 1, suggestion))
    assert ENGINE.legal_moves(state, 1) == []
    with pytest.raises(RuleError):
        ENGINE.bot_move(state, 1)
    assert ENGINE.legal_moves(ENGINE.initial({}, 4), 0) == []
