"""The expected distributions against brute-force enumeration and closed forms."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from service.engines.cards import canonical_deck
from service.engines.hazari.arrange import arrange
from service.engines.hazari.combos import combo_of, key
from service.engines.shuffle import Shuffler
from service.fairness import expectations
from service.fairness.expectations import pmf, simulated_error
from service.fairness.features import (
    azi_features,
    best_combo,
    longest_run,
    murlan_features,
    rank_counts,
    windows,
)

DECK54 = [str(c) for c in canonical_deck(54)]
DECK52 = DECK54[:52]


def brute(deck: list[str], n: int, feature: object) -> dict[int, float]:
    counts: Counter[int] = Counter()
    for hand in itertools.combinations(deck, n):
        counts[feature(hand)] += 1  # type: ignore[operator]
    total = math.comb(len(deck), n)
    return {k: v / total for k, v in sorted(counts.items())}


def close(a: dict[int, float], b: dict[int, float]) -> bool:
    keys = set(a) | set(b)
    return all(abs(a.get(k, 0.0) - b.get(k, 0.0)) < 1e-12 for k in keys)


def test_rank_counts_and_straights_match_enumeration_of_every_four_card_hand() -> None:
    def f(hand: tuple[str, ...]) -> tuple[int, int, int, int, int]:
        c = rank_counts(hand)
        return (
            sum(v == 4 for v in c.values()),
            sum(v >= 3 for v in c.values()),
            sum(v == 2 for v in c.values()),
            longest_run(set(c)),
            sum(x in ("BJ", "RJ") for x in hand),
        )

    counts: Counter[tuple[int, int, int, int, int]] = Counter()
    for hand in itertools.combinations(DECK54, 4):
        counts[f(hand)] += 1
    total = math.comb(54, 4)
    for i, context in enumerate(("quads:4:2", "troys:4:2", "pairs:4:2", "straight:4:2")):
        marginal: Counter[int] = Counter()
        for k, v in counts.items():
            marginal[k[i]] += v
        assert close(pmf(context), {k: v / total for k, v in marginal.items()}), context
    jokers: Counter[int] = Counter()
    for k, v in counts.items():
        jokers[k[4]] += v
    assert close(pmf("hg:54:2:4:0"), {k: v / total for k, v in jokers.items()})


def test_runs_and_color_runs_match_enumeration_of_every_three_card_hand() -> None:
    def colour(hand: tuple[str, ...]) -> int:
        return sum(windows({c[0] for c in hand if c[1] == s}) for s in "CDHS")

    assert close(pmf("colorruns:3"), brute(DECK52, 3, colour))
    assert close(pmf("runs:3:0"), brute(DECK52, 3, lambda h: windows(set(rank_counts(h)))))


@pytest.mark.parametrize("n,jokers", [(13, 0), (14, 2), (13, 2)])
def test_rank_counts_have_the_mean_linearity_gives(n: int, jokers: int) -> None:
    total = 52 + jokers
    p = {
        k: Fraction(math.comb(4, k) * math.comb(total - 4, n - k), math.comb(total, n))
        for k in range(5)
    }
    exact = expectations._rank_count_pmf
    for counted, ks in (("quads", {4}), ("troys", {3, 4}), ("pairs", {2})):
        dist = exact(n, jokers, frozenset(ks))
        assert sum(dist.values()) == 1
        assert sum(v * q for v, q in dist.items()) == 13 * sum(p[k] for k in ks), counted


def test_every_context_sums_to_one() -> None:
    for context in (
        "straight:13:2",
        "straight:14:2",
        "colorruns:13",
        "runs:13:0",
        "hg:26:8:3:0",
        "hg:26:8:3:1",
        "hg:35:3:4:1",
        "u:9",
        "sim:hazari_best:13",
        "sim:hazari_total:13",
        "trumps:26:3:K:0:0",
        "trumps:26:3:A:1:9",
        "trumps:35:4:Q:0:0",
    ):
        assert sum(pmf(context).values()) == pytest.approx(1.0, abs=1e-12), context


def test_the_simulated_table_states_its_error() -> None:
    for context in ("sim:hazari_best:13", "sim:hazari_total:13"):
        error = simulated_error(context)
        assert error is not None and 0 < error < 1e-3, context
    assert simulated_error("hg:54:2:14:0") is None


def test_best_combination_is_what_the_auto_arranger_leads_with() -> None:
    rng = random.Random(7)
    for _ in range(50):
        hand = rng.sample(DECK52, 13)
        first = arrange(hand)[0]
        assert best_combo(hand) == int(combo_of(key(first))), hand
    assert set(pmf("sim:hazari_best:13")) <= {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize(
    "deals", [250, pytest.param(5000, marks=pytest.mark.slow)], ids=["1000-hands", "20000-hands"]
)
def test_the_shortened_search_finds_the_arrangers_first_type(deals: int) -> None:
    """``best_combo`` stops the arranger's search early: value for value it is
    still the type of ``arrange(hand)[0]``, on hands dealt by the shuffle."""
    shuffler = Shuffler(b"best-combination", "first-type-check", ("check",))
    seen: Counter[int] = Counter()
    for deal in range(deals):
        deck = [str(c) for c in shuffler.deal(deal, 52)[0]]
        for seat in range(4):
            hand = deck[seat::4]
            value = best_combo(hand)
            assert value == int(combo_of(key(arrange(hand)[0]))), hand
            seen[value] += 1
    assert len(seen) >= 4  # the check meets several types, not one


def test_azi_features_condition_on_the_trump_card() -> None:
    # cards: 3 — the trump card is out of play: 3 cards from the other 26
    feats = azi_features(["AD", "6H", "7H"], 27, "AH", False, 3, True)
    assert feats["trumps"] == ("hg:26:8:3:0", 2)
    assert feats["aces"] == ("hg:26:2:3:0", 1)
    assert feats["six_of_trumps"] == ("hg:26:1:3:0", 1)
    # cards: 4 — the dealer holds the trump card plus 3 cards from the rest
    feats = azi_features(["9S", "TD", "6H", "KH"], 27, "KH", True, 4, True)
    assert feats["trumps"] == ("hg:26:8:3:1", 2)
    assert "six_of_trumps" not in feats
    other = azi_features(["9S", "TD", "6H", "AS"], 36, "KH", False, 4, True)
    assert other["trumps"] == ("hg:35:8:4:0", 1) and other["aces"] == ("hg:35:4:4:0", 1)


def test_murlan_features_of_a_known_hand() -> None:
    hand = ["BJ", "3S", "4C", "5D", "6H", "7S", "8C", "2S", "2D", "2H", "2C", "AS", "KD", "QD"]
    feats = murlan_features(hand)
    assert feats["jokers"][1] == 1 and feats["twos"][1] == 4 and feats["quads"][1] == 1
    assert feats["three_of_spades"][1] == 1 and feats["aces"][1] == 1
    assert feats["longest_straight"][1] == 8  # A-2-3-4-5-6-7-8


AZI27 = [str(c) for c in canonical_deck(27)]
AZI36 = [str(c) for c in canonical_deck(36)]


@pytest.mark.parametrize(
    ("deck", "shown", "six_on_stage", "cards", "dealer"),
    [
        (AZI27, "KH", True, 3, False),
        (AZI27, "AS", True, 3, False),
        (AZI27, "AS", False, 3, False),
        (AZI27, "6D", True, 4, True),
        (AZI36, "AC", True, 3, False),
        (AZI27, "AH", True, 4, True),
    ],
)
def test_trump_strength_and_azi_ranks_match_enumeration_of_every_hand(
    deck: list[str], shown: str, six_on_stage: bool, cards: int, dealer: bool
) -> None:
    """Every hand the rest of the deck can give (plus the trump card for a
    dealer of ``cards: 4``): each feature's exact distribution is the count."""
    rest = [c for c in deck if c != shown]
    drawn = cards - 1 if cards == 4 and dealer else cards
    extra = [shown] if cards == 4 and dealer else []
    seen: dict[str, Counter[int]] = {}
    contexts: dict[str, str] = {}
    for hand in itertools.combinations(rest, drawn):
        feats = azi_features([*hand, *extra], len(deck), shown, dealer, cards, six_on_stage)
        for feature, (context, value) in feats.items():
            if feature == "trump_strength" or feature.startswith("rank_") or feature == "aces":
                seen.setdefault(feature, Counter())[value] += 1
                assert contexts.setdefault(feature, context) == context
    total = math.comb(len(rest), drawn)
    assert set(seen) == {"trump_strength", "aces", *(f"rank_{r}" for r in "6789TJQK")}
    for feature, counts in seen.items():
        want = {k: v / total for k, v in sorted(counts.items())}
        assert close(pmf(contexts[feature]), want), (feature, contexts[feature])


def test_trump_strength_weighs_the_six_above_the_ace_when_it_is_on_stage() -> None:
    assert azi_features(["6H", "7H", "9S"], 27, "AH", False, 3, True)["trump_strength"][1] == 12
    assert azi_features(["6H", "7H", "9S"], 27, "AH", False, 3, False)["trump_strength"][1] == 3
    # the dealer's trump card (cards: 4) counts: the King weighs 8
    feats = azi_features(["9S", "TD", "6H", "KH"], 27, "KH", True, 4, True)
    assert feats["trump_strength"] == ("trumps:26:3:K:0:8", 9)
    assert feats["rank_K"] == ("hg:26:2:3:1", 1)


def test_the_arrangers_total_is_the_value_it_maximises() -> None:
    """The arranger picks the arrangement of greatest expected points under its
    model: its total is never below that of the greedy arrangement (best three
    first) valued the same way, and above it on some hands."""
    from service.engines.hazari.arrange import DEFAULT, greedy_indices
    from service.engines.hazari.combos import POINTS, card_index, key_of_indices
    from service.fairness.features import TOTAL_STEP, arranger_strength

    def value(cards: list[int], groups: list[list[int]]) -> float:
        opponent_card = (360 - sum(POINTS[c] for c in cards)) / 39
        return sum(
            DEFAULT.win[key_of_indices(sorted(g, reverse=True))][r]
            * (3 * len(g) * opponent_card + sum(POINTS[c] for c in g))
            for r, g in enumerate(groups)
        )

    rng = random.Random(11)
    better = 0
    for _ in range(60):
        hand = rng.sample(DECK52, 13)
        cards = [card_index(c) for c in hand]
        best = value(cards, DEFAULT.arrange_indices(cards))
        greedy = value(cards, greedy_indices(cards))
        assert best >= greedy - 1e-9
        better += best > greedy + 1e-9
        first, total = arranger_strength(hand)
        assert total == int(best // TOTAL_STEP) and first == best_combo(hand)
    assert better > 0
    dist = pmf("sim:hazari_total:13")
    assert 0.999 < sum(dist.values()) < 1.001 and len(dist) >= 5
