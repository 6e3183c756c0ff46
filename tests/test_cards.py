from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.engines.cards import (
    Card,
    CardError,
    canonical_deck,
    deck_52,
    deck_54,
    deck_short,
    parse_card,
    parse_cards,
)


def test_canonical_52_order() -> None:
    deck = [str(c) for c in deck_52()]
    assert deck[:3] == ["2C", "3C", "4C"]
    assert deck[12] == "AC" and deck[13] == "2D" and deck[-1] == "AS"
    assert len(set(deck)) == 52


def test_canonical_54_adds_black_then_red_joker() -> None:
    deck = [str(c) for c in deck_54()]
    assert deck[:52] == [str(c) for c in deck_52()]
    assert deck[52:] == ["BJ", "RJ"]


def test_short_decks() -> None:
    assert [str(c) for c in deck_short(27)][:10] == [
        "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD", "6H",
    ]  # fmt: skip
    assert [str(c) for c in deck_short(27)][-1] == "AS"
    d36 = [str(c) for c in deck_short(36)]
    assert d36[0] == "6C" and d36[9] == "6D" and len(set(d36)) == 36
    assert [len(canonical_deck(n)) for n in (52, 54, 27, 36)] == [52, 54, 27, 36]
    with pytest.raises(ValueError):
        canonical_deck(40)


@pytest.mark.parametrize(
    ("token", "canonical"),
    [("TD", "TD"), ("10D", "TD"), ("10d", "TD"), ("td", "TD"), ("as", "AS"), (" 2c ", "2C"),
     ("bj", "BJ"), ("Rj", "RJ"), ("qH", "QH")],
)  # fmt: skip
def test_parse_is_case_insensitive_and_accepts_10(token: str, canonical: str) -> None:
    assert str(parse_card(token)) == canonical


@pytest.mark.parametrize(
    "token", ["", "1D", "11D", "TX", "ZZ", "AAS", "J", "10", "JB", "XJ", 10, None]
)
def test_bad_tokens_name_the_token(token: object) -> None:
    with pytest.raises(CardError) as info:
        parse_card(token)
    assert repr(token) in str(info.value)


def test_parse_cards_list_and_string() -> None:
    assert [str(c) for c in parse_cards(["10S", "js"])] == ["TS", "JS"]
    assert [str(c) for c in parse_cards("10S, js  RJ")] == ["TS", "JS", "RJ"]
    with pytest.raises(CardError):
        parse_cards(42)


@given(st.sampled_from(deck_54()))
def test_round_trip(card: Card) -> None:
    assert parse_card(str(card)) == card
    assert parse_card(str(card).lower()) == card
    assert eval(repr(card), {"Card": Card}) == card


def test_pretty_uses_suit_symbols() -> None:
    assert parse_card("TH").pretty() == "T\u2665"
    assert parse_card("AS").pretty() == "A\u2660"
