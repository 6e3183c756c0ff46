"""Murlan combinations: card codes, classification, beating and the listing
of legal plays (checked against brute force over every subset of a hand)."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engines.base import RuleError
from service.engines.cards import deck_54
from service.engines.murlan.combos import (
    CARD_CODES,
    CARD_NAMES,
    PAIR,
    QUAD,
    SINGLE,
    STRAIGHT,
    TRIPLE,
    Combo,
    beat_failure,
    beats,
    card_code,
    classify,
    expand,
    nth_play,
    parse_play,
    play_blocks,
    plays,
)
from tests.engines.murlan.support import codes

ALL_CODES = list(range(54))


def kind_of(text: str) -> Combo | None:
    return classify(codes(text))


# -- card codes ---------------------------------------------------------------------------
def test_codes_sort_in_the_games_order_then_suit() -> None:
    order = [f"{r}{s}" for r in "3456789TJQKA2" for s in "CDHS"] + ["BJ", "RJ"]
    assert list(CARD_NAMES) == order
    assert sorted(CARD_CODES[str(c)] for c in deck_54()) == ALL_CODES
    for name, code in CARD_CODES.items():
        assert CARD_NAMES[code] == name


@pytest.mark.parametrize(
    ("token", "name"), [("7h", "7H"), ("10S", "TS"), ("ts", "TS"), ("bj", "BJ"), (" RJ ", "RJ")]
)
def test_card_tokens_are_read_case_insensitively(token: str, name: str) -> None:
    assert CARD_NAMES[card_code(token)] == name


@pytest.mark.parametrize("token", ["1S", "7X", "", "JJ", 7, None, ["7H"], "7HH"])
def test_bad_card_tokens_are_rule_errors_naming_them(token: object) -> None:
    with pytest.raises(RuleError) as err:
        card_code(token)
    assert err.value.rule == "bad_card"
    assert repr(token) in str(err.value)


def test_parse_play_sorts_and_rejects_repeats_and_non_lists() -> None:
    assert parse_play(["5S", "3h", "4D"]) == codes("3H 4D 5S")
    with pytest.raises(RuleError) as err:
        parse_play(["5S", "5s"])
    assert err.value.rule == "duplicate_card" and "5S" in str(err.value)
    for bad in ("5S", {"5S": 1}, 5, None):
        with pytest.raises(RuleError) as err:
            parse_play(bad)
        assert err.value.rule == "bad_cards"
    with pytest.raises(RuleError) as err:
        parse_play([])
    assert err.value.rule == "no_cards"


# -- classification -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7H", Combo(SINGLE, 1, 4)),
        ("BJ", Combo(SINGLE, 1, 13)),
        ("RJ", Combo(SINGLE, 1, 14)),
        ("2C", Combo(SINGLE, 1, 12)),
        ("5C 5S", Combo(PAIR, 2, 2)),
        ("2C 2D", Combo(PAIR, 2, 12)),
        ("QC QD QS", Combo(TRIPLE, 3, 9)),
        ("4C 4D 4H 4S", Combo(QUAD, 4, 1)),
        ("2C 2D 2H 2S", Combo(QUAD, 4, 12)),
        # straights: value is the top card's place in A 2 3 ... K A
        ("3C 4D 5H 6S 7C", Combo(STRAIGHT, 5, 6)),
        ("AC 2D 3H 4S 5C", Combo(STRAIGHT, 5, 4)),
        ("2D 3H 4S 5C 6D", Combo(STRAIGHT, 5, 5)),
        ("TC JD QH KS AC", Combo(STRAIGHT, 5, 13)),
        ("9C TD JH QS KC", Combo(STRAIGHT, 5, 12)),
        ("3C 4D 5H 6S 7C 8D", Combo(STRAIGHT, 6, 7)),
        # all thirteen ranks are one straight, read at its higher reading 2-...-K-A
        ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", Combo(STRAIGHT, 13, 13)),
        ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", Combo(STRAIGHT, 12, 11)),
        ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", Combo(STRAIGHT, 13, 13)),
    ],
)
def test_valid_combinations(text: str, expected: Combo) -> None:
    assert kind_of(text) == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("BJ RJ", "the two jokers are not a pair"),
        ("5C 6C", "mixed ranks"),
        ("5C 5D 6C", "mixed ranks"),
        ("5C 5D 5H 6C", "mixed ranks"),
        ("3C 4D 5H 6S", "four in a row is not a straight"),
        ("3C 4D 5H 6S 8C", "a gap"),
        ("JC QD KH AS 2C", "wrap-around: 2 is only low"),
        ("QC KD AH 2S 3C", "wrap-around through A and 2"),
        ("KC AD 2H 3S 4C", "wrap-around through A and 2"),
        ("3C 4D 5H 6S BJ", "no jokers in straights"),
        ("BJ 3C 4D 5H 6S 7C", "no jokers in straights"),
        ("3C 3D 4H 5S 6C", "a repeated rank"),
        ("3C 4D 5H 6S 7C 7D", "a repeated rank"),
        ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD", "the ace at both ends"),
        ("2C 2D 2H 2S BJ", "five cards of no kind"),
    ],
)
def test_invalid_combinations(text: str, why: str) -> None:
    assert kind_of(text) is None, why


def test_describe_names_the_combination() -> None:
    assert Combo(STRAIGHT, 5, 4).describe() == "straight A-2-3-4-5"
    assert Combo(STRAIGHT, 5, 13).describe() == "straight 10-J-Q-K-A"
    assert Combo(PAIR, 2, 12).describe() == "pair of 2"


# -- beating ---------------------------------------------------------------------------------
def beat(new: str, old: str, any_higher: bool = False) -> bool:
    a, b = kind_of(new), kind_of(old)
    assert a is not None and b is not None
    return beats(a, b, any_higher)


def test_the_seeds_straight_example() -> None:
    # "3-4-5-6-7-8 can only be beaten by 4-5-6-7-8-9"
    assert beat("4C 5D 6H 7S 8C 9D", "3C 4D 5H 6S 7C 8D")
    assert not beat("5C 6D 7H 8S 9C TD", "3C 4D 5H 6S 7C 8D")
    assert beat("5C 6D 7H 8S 9C TD", "3C 4D 5H 6S 7C 8D", any_higher=True)
    assert not beat("3H 4S 5C 6D 7H 8S", "3C 4D 5H 6S 7C 8D", any_higher=True)


def test_straights_climb_from_a_low_to_a_high() -> None:
    assert beat("2D 3H 4S 5C 6D", "AC 2C 3C 4C 5C")
    assert beat("TC JD QH KS AC", "9C TD JH QS KC")
    assert not beat("AC 2C 3C 4C 5C", "2D 3H 4S 5C 6D", any_higher=True)
    failure = beat_failure(kind_of("5C 6D 7H 8S 9C"), kind_of("3C 4D 5H 6S 7C"), False)  # type: ignore[arg-type]
    assert failure is not None and failure[0] == "straight_not_next"


def test_straights_need_the_same_length() -> None:
    assert not beat("4C 5D 6H 7S 8C 9D", "3C 4D 5H 6S 7C")
    assert not beat("4C 5D 6H 7S 8C", "3C 4D 5H 6S 7C 8D", any_higher=True)


def test_same_kind_and_size_by_at_least_one_rank() -> None:
    assert beat("4C", "3S") and not beat("3C", "3S") and not beat("3C", "4S")
    assert beat("2C", "AS") and beat("BJ", "2S") and beat("RJ", "BJ") and not beat("BJ", "RJ")
    assert beat("6C 6D", "5H 5S") and not beat("5C 5D", "5H 5S")
    assert beat("2C 2D", "AH AS") and not beat("6C 6D", "5H")
    assert not beat("6C", "5H 5S") and not beat("6C 6D 6H", "5H 5S")


def test_a_quad_beats_anything_and_only_a_higher_quad_beats_it() -> None:
    quad = "4C 4D 4H 4S"
    for table in ("RJ", "2C 2D", "AC AD AH", "TC JD QH KS AC", "3C 3D 3H 3S"):
        assert beat(quad, table)
    assert beat("5C 5D 5H 5S", quad)
    assert not beat("3C 3D 3H 3S", quad)
    for other in ("RJ", "2C 2D", "2C 2D 2H", "TC JD QH KS AC"):
        assert not beat(other, quad, any_higher=True)
    failure = beat_failure(kind_of("RJ"), kind_of(quad), False)  # type: ignore[arg-type]
    assert failure is not None and failure[0] == "only_quad_beats_quad"


def test_failures_name_the_rule() -> None:
    def rule(new: str, old: str) -> str:
        failure = beat_failure(kind_of(new), kind_of(old), False)  # type: ignore[arg-type]
        assert failure is not None
        return failure[0]

    assert rule("6C 6D", "5H") == "does_not_match"
    assert rule("3C 4D 5H 6S 7C", "3H") == "does_not_match"
    assert rule("5C", "5H") == "not_higher"
    assert rule("3C 3D 3H 3S", "4C 4D 4H 4S") == "not_higher"


# -- listing plays, against brute force ------------------------------------------------------
def brute_force(
    hand: tuple[int, ...], table: Combo | None, any_higher: bool
) -> set[tuple[int, ...]]:
    found = set()
    for size in range(1, len(hand) + 1):
        for subset in combinations(hand, size):
            combo = classify(subset)
            if combo is not None and (table is None or beats(combo, table, any_higher)):
                found.add(subset)
    return found


def assert_listing_is_exact(hand: tuple[int, ...], table: Combo | None, any_higher: bool) -> None:
    listed = plays(hand, table, any_higher)
    assert len(set(listed)) == len(listed), "a play is listed twice"
    assert all(list(p) == sorted(p) for p in listed)
    assert set(listed) == brute_force(hand, table, any_higher)
    blocks = play_blocks(hand, table, any_higher)
    assert expand(blocks) == listed
    assert sum(b[0] for b in blocks) == len(listed)
    for k, p in enumerate(listed):
        assert nth_play(blocks, k) == p
    with pytest.raises(IndexError):
        nth_play(blocks, len(listed))


TABLES = [
    None,
    *(classify((c,)) for c in (0, 20, 47, 51, 52, 53)),
    classify(codes("5C 5D")),
    classify(codes("2C 2D")),
    classify(codes("7C 7D 7H")),
    classify(codes("4C 4D 4H 4S")),
    classify(codes("AC 2D 3H 4S 5C")),
    classify(codes("3C 4D 5H 6S 7C")),
    classify(codes("5C 6D 7H 8S 9C TD")),
    classify(codes("9C TD JH QS KC")),
]


@settings(max_examples=120, deadline=None)
@given(
    hand=st.lists(st.sampled_from(ALL_CODES), min_size=1, max_size=13, unique=True),
    table=st.sampled_from(TABLES),
    any_higher=st.booleans(),
)
def test_every_legal_play_is_listed_once(
    hand: list[int], table: Combo | None, any_higher: bool
) -> None:
    assert_listing_is_exact(tuple(sorted(hand)), table, any_higher)


@pytest.mark.parametrize(
    "text",
    [
        "AC AD 2C 2D 3C 3D 4C 4D 5C 5D 6C 6D KC",  # many straights with suit choices
        "3C 3D 3H 3S 4C 4D 4H 4S 5C 6C 7C BJ RJ",  # quads and a straight through them
        "TC JC QC KC AC 2C 3C 4C 5C 6C 7C 8C 9C",  # all thirteen ranks: every length
    ],
)
def test_listing_dense_hands(text: str) -> None:
    hand = codes(text)
    for table in TABLES:
        for any_higher in (False, True):
            assert_listing_is_exact(hand, table, any_higher)


def test_the_leaders_order_is_singles_pairs_triples_quads_straights() -> None:
    listed = plays(codes("3C 3D 3H 3S 4C 5C 6C 7C"), None, False)
    sizes = [len(p) for p in listed]
    assert sizes[:8] == [1] * 8
    kinds = [classify(p).kind for p in listed]  # type: ignore[union-attr]
    first = {k: kinds.index(k) for k in (PAIR, TRIPLE, QUAD, STRAIGHT)}
    assert first[PAIR] < first[TRIPLE] < first[QUAD] < first[STRAIGHT]
