"""The features as computed (suit masks, bitwise counts) against their plain definitions."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from service.engines.cards import canonical_deck
from service.engines.hazari.arrange import arrange
from service.engines.hazari.combos import combo_of, key
from service.fairness.features import (
    LONGEST_CAP,
    WINDOWS_CAP,
    Obs,
    deal_fields,
    deal_observations,
    groups,
    hazari_counts,
    hazari_features,
    longest_run,
    murlan_features,
    rank_counts,
    windows,
)

DECK54 = [str(c) for c in canonical_deck(54)]
DECK52 = DECK54[:52]


def plain_hazari(hand: Sequence[str]) -> dict[str, tuple[str, int]]:
    """Hazari's counted features, straight from their definitions."""
    n = len(hand)
    counts = rank_counts(hand)
    color_runs = sum(windows({c[0] for c in hand if c[1] == suit}) for suit in "CDHS")
    return {
        "troys": (f"troys:{n}:0", sum(v >= 3 for v in counts.values())),
        "color_runs": (f"colorruns:{n}", min(color_runs, WINDOWS_CAP)),
        "runs": (f"runs:{n}:0", min(windows(set(counts)), WINDOWS_CAP)),
        "pairs": (f"pairs:{n}:0", sum(v == 2 for v in counts.values())),
    }


def plain_murlan(hand: Sequence[str]) -> dict[str, tuple[str, int]]:
    n = len(hand)
    counts = rank_counts(hand)
    return {
        "jokers": (f"hg:54:2:{n}:0", sum(c in ("BJ", "RJ") for c in hand)),
        "twos": (f"hg:54:4:{n}:0", counts.get("2", 0)),
        "aces": (f"hg:54:4:{n}:0", counts.get("A", 0)),
        "three_of_spades": (f"hg:54:1:{n}:0", int("3S" in hand)),
        "quads": (f"quads:{n}:2", sum(v == 4 for v in counts.values())),
        "longest_straight": (f"straight:{n}:2", min(longest_run(set(counts)), LONGEST_CAP)),
        "strong_cards": (
            f"hg:54:10:{n}:0",
            counts.get("A", 0) + counts.get("2", 0) + sum(c in ("BJ", "RJ") for c in hand),
        ),
        **{f"rank_{r}": (f"hg:54:4:{n}:0", counts.get(r, 0)) for r in "3456789TJQK"},
    }


@settings(max_examples=1000, deadline=None)
@given(st.permutations(DECK52), st.integers(0, 52))
def test_hazari_counts_follow_their_definitions_for_any_hand(deck: list[str], n: int) -> None:
    assert hazari_counts(deck[:n]) == plain_hazari(deck[:n])


@settings(max_examples=1000, deadline=None)
@given(st.permutations(DECK54), st.integers(0, 54))
def test_murlan_features_follow_their_definitions_for_any_hand(deck: list[str], n: int) -> None:
    """Any size, jokers or not: every rank count and straight length occurs."""
    assert murlan_features(deck[:n]) == plain_murlan(deck[:n])


def test_features_of_many_dealt_hands() -> None:
    rng = random.Random(11)
    for _ in range(2000):
        deck = DECK52[:]
        rng.shuffle(deck)
        for seat in range(4):
            hand = deck[seat * 13 : seat * 13 + 13]
            assert hazari_counts(hand) == plain_hazari(hand), hand
        deck = DECK54[:]
        rng.shuffle(deck)
        assert murlan_features(deck[:14]) == plain_murlan(deck[:14]), deck[:14]


@settings(max_examples=200, deadline=None)
@given(st.permutations(DECK52))
def test_best_combination_is_the_type_of_the_arrangers_first_group(deck: list[str]) -> None:
    hand = deck[:13]
    assert hazari_features(hand)["best_combination"] == (
        "sim:hazari_best:13",
        int(combo_of(key(arrange(hand)[0]))),
    )


class Deal:
    def __init__(self, hands: Sequence[Sequence[str]], dealer: int, trump_card: str = "") -> None:
        self.hands, self.dealer, self.trump_card = hands, dealer, trump_card


def test_deal_fields_are_the_observations_of_every_hand_in_every_group() -> None:
    rng = random.Random(3)
    deck = DECK52[:]
    rng.shuffle(deck)
    hands = [deck[s::4] for s in range(4)]
    names: list[str | None] = ["ann", None, "b|ob", "cy"]
    fields = deal_fields("hazari", {}, Deal(hands, 2), names)
    expected: list[str] = []
    for seat, hand in enumerate(hands):
        name = None if names[seat] is None else str(names[seat]).replace("|", "/")
        for feature, (context, value) in hazari_features(hand).items():
            for group in groups(seat, (seat - 2) % 4, name):
                expected.append(Obs("hazari", feature, group, context, value).field())
    assert fields == expected
    assert "hazari|troys|player:b/ob|troys:13:0|" in "".join(fields)
    observed = deal_observations("hazari", {}, Deal(hands, 2), names)
    assert [o.field() for o in observed] == fields


def test_azi_and_murlan_deals_give_their_fields() -> None:
    options: dict[str, Any] = {"deck": 27, "cards": 3}
    azi = Deal([["AD", "6H", "7H"], ["9S", "TD", "KH"], [], ["6S", "7S", "8S"]], 0, "AH")
    fields = deal_fields("azi", options, azi, ["a", "b", "c", "d"])
    assert "azi/27/3|trumps|seat:1|hg:26:8:3:0|1" in fields
    assert "azi/27/3|trump_card_rank|dealer:a|u:9|8" in fields
    assert not [f for f in fields if "seat:2" in f]  # an empty seat holds no hand
    deck = DECK54[:]
    random.Random(5).shuffle(deck)
    murlan = Deal([deck[s::4] for s in range(4)], 1)
    fields = deal_fields("murlan", {}, murlan, [None] * 4)
    assert len(fields) == 4 * 18 * 3  # four hands, 18 features, groups all/seat/pos
    assert [o.field() for o in deal_observations("murlan", {}, murlan, [None] * 4)] == fields


def test_the_only_person_at_a_table_of_bots_counts_in_the_people_group() -> None:
    deck = DECK54[:]
    random.Random(6).shuffle(deck)
    murlan = Deal([deck[s::4] for s in range(4)], 0)
    fields = deal_fields("murlan", {}, murlan, [None] * 4, [True, False, True, True])
    people = [f for f in fields if "|people|" in f]
    assert len(people) == 18  # one hand, 18 features
    assert sorted(people) == sorted(
        f.replace("|seat:1|", "|people|") for f in fields if "|seat:1|" in f
    )
    two = deal_fields("murlan", {}, murlan, [None] * 4, [True, False, False, True])
    assert not [f for f in two if "|people|" in f]
    assert not [f for f in deal_fields("murlan", {}, murlan, [None] * 4) if "|people|" in f]


def test_the_bot_after_the_only_person_counts_in_the_bots_group() -> None:
    """The bots' side of the ``people`` row: one bot's hand per deal, the bot
    seated after the person (round the table)."""
    deck = DECK54[:]
    random.Random(8).shuffle(deck)
    murlan = Deal([deck[s::4] for s in range(4)], 0)
    fields = deal_fields("murlan", {}, murlan, [None] * 4, [True, True, True, False])
    bots = [f for f in fields if "|bots|" in f]
    assert sorted(bots) == sorted(
        f.replace("|seat:0|", "|bots|") for f in fields if "|seat:0|" in f
    )
    assert len(bots) == 18
    two = deal_fields("murlan", {}, murlan, [None] * 4, [False, True, False, True])
    assert not [f for f in two if "|bots|" in f or "|people|" in f]
    azi = Deal([["AD", "6H", "7H"], ["9S", "TD", "KH"], ["6S", "7S", "8S"]], 0, "AH")
    fields = deal_fields("azi", {"deck": 27, "cards": 3}, azi, [None] * 3, [False, True, True])
    assert {f.split("|")[1] for f in fields if "|bots|" in f} >= {"trumps", "trump_strength"}
    assert "azi/27/3|rank_9|bots|hg:26:3:3:0|1" in fields  # seat 1's hand: 9S TD KH
    assert "azi/27/3|trump_strength|bots|trumps:26:3:A:1:0|8" in fields  # the King
