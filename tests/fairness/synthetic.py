"""Deals made with the published shuffle, outside any game, for the
statistical tests: honest, or rigged by a dealer that exists only here."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from service.engines.shuffle import Shuffler
from service.fairness.features import deal_fields

NAMES = ("ana", "ben", "cleo", "dan", "eva", "finn")
JOKERS = ("BJ", "RJ")


@dataclass(frozen=True)
class FakeDeal:
    deal: int
    dealer: int
    hands: tuple[tuple[str, ...], ...]
    trump_card: str = ""


def shuffler(seed: str) -> Shuffler:
    return Shuffler(hashlib.sha256(seed.encode()).digest(), "fair-test", ("t",))


def murlan_deal(sh: Shuffler, d: int, rig: random.Random | None = None, r: float = 0.0) -> FakeDeal:
    deck = [str(c) for c in sh.deal(d, 54)[0]]
    first = d % 4
    hands: list[list[str]] = [[] for _ in range(4)]
    for i, card in enumerate(deck):
        hands[(first + i) % 4].append(card)
    if rig is not None and not any(c in JOKERS for c in hands[0]) and rig.random() < r:
        # the rigged dealer slips seat 0 a joker from another seat, for a random card
        holder = next(s for s in range(1, 4) if any(c in JOKERS for c in hands[s]))
        joker = next(c for c in hands[holder] if c in JOKERS)
        k = rig.randrange(len(hands[0]))
        hands[holder][hands[holder].index(joker)] = hands[0][k]
        hands[0][k] = joker
    return FakeDeal(d, first, tuple(tuple(h) for h in hands))


def hazari_deal(sh: Shuffler, d: int) -> FakeDeal:
    deck = [str(c) for c in sh.deal(d, 52)[0]]
    dealer = d % 4
    hands: list[list[str]] = [[] for _ in range(4)]
    for i, card in enumerate(deck):
        hands[(dealer + 1 + i) % 4].append(card)
    return FakeDeal(d, dealer, tuple(tuple(h) for h in hands))


def azi_deal(sh: Shuffler, d: int, seats: int = 4, rigged: bool = False) -> FakeDeal:
    deck = [str(c) for c in sh.deal(d, 27)[0]]
    dealer = d % seats
    order = [(dealer + k) % seats for k in range(1, seats + 1)]
    hands: list[list[str]] = [[] for _ in range(seats)]
    top = 0
    for _ in range(3):
        for seat in order:
            hands[seat].append(deck[top])
            top += 1
    trump_card = deck[top]
    stock = deck[top + 1 :]
    if rigged:
        # the rigged dealer swaps one of his non-trumps for a trump from the stock
        trump = trump_card[1]
        spare = [c for c in stock if c[1] == trump]
        plain = [i for i, c in enumerate(hands[dealer]) if c[1] != trump]
        if spare and plain:
            hands[dealer][plain[0]] = spare[0]
    return FakeDeal(d, dealer, tuple(tuple(h) for h in hands), trump_card)


def tally(game: str, options: dict[str, Any], deals: list[FakeDeal]) -> Counter[str]:
    names = list(NAMES[: len(deals[0].hands)]) if deals else []
    counts: Counter[str] = Counter()
    for deal in deals:
        counts.update(deal_fields(game, options, deal, names))
    return counts
