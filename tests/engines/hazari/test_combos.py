"""Hazari combinations: the counts over all 22,100 sets, every example of the
rules text, and the key's order checked against a plain reading of the rules."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, pairwise, permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engines.cards import CardError
from service.engines.hazari.combos import (
    CARD_STRS,
    Combo,
    best_three,
    card_index,
    card_points,
    combo_of,
    describe,
    key,
    key3,
    key4,
)

ALL_TRIPLES = list(combinations(CARD_STRS, 3))

# -- a reference reading of the rules, written independently of the key ------------

RANK_VALUE = {r: v for v, r in enumerate("23456789TJQKA", start=2)}
RUN_ORDER = ["432", "543", "654", "765", "876", "987", "T98", "JT9", "QJT", "KQJ", "A23", "AKQ"]
TYPE_ORDER = ["indi", "pair", "color", "run", "color run", "troy"]


def reference(cards: tuple[str, ...]) -> tuple[str, tuple[int, ...]]:
    """(type name, what the rules compare within the type, most important first)."""
    values = sorted((RANK_VALUE[c[0]] for c in cards), reverse=True)
    one_suit = len({c[1] for c in cards}) == 1
    counts = Counter(values)
    if len(counts) == 1:
        return "troy", (values[0],)
    if len(counts) == 2:
        pair = next(v for v, n in counts.items() if n == 2)
        odd = next(v for v, n in counts.items() if n == 1)
        return "pair", (pair, odd)
    ranks = "".join(sorted((c[0] for c in cards), key=lambda r: -RANK_VALUE[r]))
    name = {"A32": "A23"}.get(ranks, ranks)
    if name in RUN_ORDER:
        return ("color run" if one_suit else "run"), (RUN_ORDER.index(name),)
    return ("color" if one_suit else "indi"), tuple(values)


def reference_value(cards: tuple[str, ...]) -> tuple[int, tuple[int, ...]]:
    kind, tiebreak = reference(cards)
    return TYPE_ORDER.index(kind), tiebreak


def beats(a: list[str], b: list[str]) -> bool:
    return key(a) > key(b)


def equal(a: list[str], b: list[str]) -> bool:
    return key(a) == key(b)


# -- counts ----------------------------------------------------------------------------


def test_counts_of_each_type_over_all_22100_sets() -> None:
    counts = Counter(combo_of(key(t)) for t in ALL_TRIPLES)
    assert len(ALL_TRIPLES) == 22_100
    assert counts == {
        Combo.TROY: 52,
        Combo.COLOR_RUN: 48,
        Combo.RUN: 720,
        Combo.COLOR: 1_096,
        Combo.PAIR: 3_744,
        Combo.INDI: 16_440,
    }


def test_the_reference_agrees_on_every_type() -> None:
    for t in ALL_TRIPLES:
        assert combo_of(key(t)).label == reference(t)[0], t


def test_key_orders_all_22100_sets_exactly_as_the_rules_do() -> None:
    """Sorting by key and by the reference reading gives the same order, and
    two sets have equal keys exactly when the rules call them equal."""
    by_key = sorted(ALL_TRIPLES, key=key)
    for a, b in pairwise(by_key):
        ka, kb, ra, rb = key(a), key(b), reference_value(a), reference_value(b)
        assert ra <= rb, (a, b)
        assert (ka == kb) == (ra == rb), (a, b)


def test_there_are_741_distinct_values() -> None:
    assert len({key(t) for t in ALL_TRIPLES}) == 741


# -- the rules' examples ---------------------------------------------------------------


def test_troys_aaa_highest_222_lowest() -> None:
    troys = sorted((t for t in ALL_TRIPLES if combo_of(key(t)) is Combo.TROY), key=key)
    assert {c[0] for c in troys[-1]} == {"A"}
    assert {c[0] for c in troys[0]} == {"2"}
    assert beats(["KS", "KH", "KD"], ["QS", "QH", "QD"])


def test_a_higher_type_always_beats_a_lower_type() -> None:
    keys = [key(t) for t in ALL_TRIPLES]
    lowest = {kind: min(k for k in keys if combo_of(k) is kind) for kind in Combo}
    highest = {kind: max(k for k in keys if combo_of(k) is kind) for kind in Combo}
    kinds = sorted(Combo)
    for low, high in pairwise(kinds):
        assert lowest[high] > highest[low], (low, high)
    # "any color run beats any ordinary run"
    assert beats(["4C", "3C", "2C"], ["AS", "KD", "QH"])


@pytest.mark.parametrize("kind_suits", [("C", "C", "C"), ("S", "H", "D")])
def test_run_order_akq_then_a23_then_kqj_down_to_432(kind_suits: tuple[str, str, str]) -> None:
    s1, s2, s3 = kind_suits

    def run(ranks: str) -> list[str]:
        return [ranks[0] + s1, ranks[1] + s2, ranks[2] + s3]

    order = ["AKQ", "A23", "KQJ", "QJT", "JT9", "T98", "987", "876", "765", "654", "543", "432"]
    keys = [key(run(r)) for r in order]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
    expected = Combo.COLOR_RUN if s1 == s2 == s3 else Combo.RUN
    assert {combo_of(k) for k in keys} == {expected}


def test_k_a_2_is_not_a_run() -> None:
    assert combo_of(key(["KS", "AS", "2S"])) is Combo.COLOR
    assert combo_of(key(["KS", "AH", "2D"])) is Combo.INDI


def test_color_compares_card_by_card() -> None:
    # The rules' example: J-9-2 of diamonds beats J-8-7 of spades, since 9 > 8.
    assert beats(["JD", "9D", "2D"], ["JS", "8S", "7S"])
    assert beats(["KH", "4H", "2H"], ["QC", "JC", "9C"])
    assert beats(["KH", "9H", "3H"], ["KC", "9C", "2C"])
    colors = [t for t in ALL_TRIPLES if combo_of(key(t)) is Combo.COLOR]
    assert {c[0] for c in max(colors, key=key)} == {"A", "K", "J"}
    assert {c[0] for c in min(colors, key=key)} == {"5", "3", "2"}


def test_pair_compares_the_pair_then_the_odd_card() -> None:
    assert beats(["8S", "8H", "2D"], ["7S", "7H", "AD"])
    assert beats(["8S", "8H", "KD"], ["8C", "8D", "QS"])
    assert equal(["8S", "8H", "KD"], ["8C", "8D", "KS"])
    # a pair beats any indi, and any color beats any pair
    assert beats(["2S", "2H", "3D"], ["AS", "KH", "JD"])
    assert beats(["5S", "3S", "2S"], ["AS", "AH", "KD"])


def test_indi_compares_highest_middle_lowest() -> None:
    assert beats(["AS", "5H", "3D"], ["KS", "QH", "9D"])
    assert beats(["AS", "9H", "3D"], ["AC", "8H", "7D"])
    assert beats(["AS", "9H", "4D"], ["AC", "9D", "3S"])
    assert combo_of(key(["AS", "KH", "JD"])) is Combo.INDI


def test_suits_never_rank() -> None:
    assert equal(["AS", "KS", "QS"], ["AH", "KH", "QH"])
    assert equal(["9S", "7H", "4D"], ["9C", "7D", "4H"])
    assert equal(["QS", "JH", "TD"], ["QH", "JC", "TS"])


def test_four_cards_are_valued_by_their_best_three() -> None:
    assert key(["7S", "7H", "7D", "2C"]) == key(["7S", "7H", "7D"])
    assert key(["AS", "KS", "2H", "QS"]) == key(["AS", "KS", "QS"])
    assert best_three(["9H", "7D", "4D", "4H"]) == ("9H", "4D", "4H")
    # a four-card group compares against a three-card group by its best three
    assert equal(["QH", "JC", "TS", "2D"], ["QS", "JD", "TH"])


# -- properties -------------------------------------------------------------------------

cards3 = st.lists(st.integers(0, 51), min_size=3, max_size=3, unique=True)
cards4 = st.lists(st.integers(0, 51), min_size=4, max_size=4, unique=True)


@settings(max_examples=300, deadline=None)
@given(cards3, cards3, cards3)
def test_order_is_antisymmetric_and_transitive(a: list[int], b: list[int], c: list[int]) -> None:
    ka, kb, kc = key3(*a), key3(*b), key3(*c)
    ra, rb, rc = (reference_value(tuple(CARD_STRS[i] for i in x)) for x in (a, b, c))
    for kx, ky, rx, ry in ((ka, kb, ra, rb), (kb, kc, rb, rc), (ka, kc, ra, rc)):
        assert (kx > ky) == (rx > ry) and (kx == ky) == (rx == ry)
    assert not (ka > kb and kb > ka)
    if ka >= kb and kb >= kc:
        assert ka >= kc
    if ka > kb and kb > kc:
        assert ka > kc


@settings(max_examples=200, deadline=None)
@given(cards3, st.permutations("CDHS"))
def test_key_ignores_card_order_and_suit_names(cards: list[int], suits: list[str]) -> None:
    strs = [CARD_STRS[i] for i in cards]
    renamed = [c[0] + suits["CDHS".index(c[1])] for c in strs]
    assert {key(list(p)) for p in permutations(strs)} == {key(renamed)}


@settings(max_examples=300, deadline=None)
@given(cards4)
def test_four_card_key_is_the_best_of_its_threes(cards: list[int]) -> None:
    threes = [key3(*t) for t in combinations(cards, 3)]
    assert key4(*cards) == max(threes)
    assert {key4(*p) for p in permutations(cards)} == {max(threes)}
    strs = [CARD_STRS[i] for i in cards]
    assert key(best_three(strs)) == key(strs)


# -- notation and points ---------------------------------------------------------------


def test_card_index_round_trips_and_accepts_player_notation() -> None:
    for i, s in enumerate(CARD_STRS):
        assert card_index(s) == i
    assert card_index("10s") == card_index("TS")
    assert card_index("ah") == card_index("AH")
    for bad in ("BJ", "1S", "", 7, None, "ZZ"):
        with pytest.raises(CardError):
            card_index(bad)


def test_card_points_total_360() -> None:
    assert sum(card_points(c) for c in CARD_STRS) == 360
    assert [card_points(c) for c in ("AS", "KS", "QS", "JS", "TS", "9S", "2S")] == [
        10,
        10,
        10,
        10,
        10,
        5,
        5,
    ]


def test_key_rejects_repeated_cards_and_wrong_sizes() -> None:
    with pytest.raises(ValueError, match="repeated"):
        key(["AS", "AS", "KD"])
    with pytest.raises(ValueError, match="3 or 4"):
        key(["AS", "KD"])


@pytest.mark.parametrize(
    ("cards", "name"),
    [
        (["7S", "7H", "7D"], "troy of 7s"),
        (["2H", "AH", "3H"], "color run A-2-3"),
        (["QS", "KH", "AD"], "run A-K-Q"),
        (["9C", "8D", "7C"], "run 9-8-7"),
        (["JD", "9D", "2D"], "color J-9-2"),
        (["7S", "7H", "AD"], "pair of 7s, A kicker"),
        (["AS", "9H", "4D"], "indi A-9-4"),
        (["AS", "KD", "JH", "2C"], "indi A-K-J"),
    ],
)
def test_describe(cards: list[str], name: str) -> None:
    assert describe(cards) == name
