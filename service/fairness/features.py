"""What each deal says about fairness: one :class:`Obs` per hand and feature.

An observation names the table kind (the game and the options that change
the deck or the hand), the feature, the group it counts for (a seat, a
position relative to the dealer, a named player, or the whole table kind),
the *context* that fixes its exact expected distribution (see
:mod:`service.fairness.expectations`) and the observed value.

Everything here is pure: a deal event (and the seat names) in, observations
out. The projection (:mod:`service.fairness.projection`) counts them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

RANK_ORDER: Final = "A23456789TJQKA"
"""The sequence runs and straights are read in: the Ace low and high, no wrap."""
RANKS: Final = "23456789TJQKA"
AZI_RANKS: Final = "6789TJQKA"
LONGEST_CAP: Final = 9
"""Straights of 9 cards and longer share one category."""
WINDOWS_CAP: Final = 4
"""Four or more runs (or color runs) in one hand share one category."""


@dataclass(frozen=True, slots=True)
class Obs:
    table: str
    feature: str
    group: str
    context: str
    value: int

    def field(self) -> str:
        return "|".join((self.table, self.feature, self.group, self.context, str(self.value)))

    @classmethod
    def parse(cls, field: str) -> Obs:
        table, feature, group, context, value = field.split("|")
        return cls(table, feature, group, context, int(value))


def table_kind(game: str, options: dict[str, Any]) -> str:
    """The game and the options that change what a hand holds."""
    if game == "azi":
        return f"azi/{int(options.get('deck', 27))}/{int(options.get('cards', 3))}"
    return game


def groups(
    seat: int,
    pos: int,
    name: str | None,
    alone: bool = False,
    their_bot: bool = False,
    creator: bool = False,
) -> list[str]:
    """The groups a hand counts in; ``alone``: it is the hand of the only person
    at a table of bots (the group ``people``: one hand per deal, whoever and
    wherever that person is, so it pools every such person's hands);
    ``their_bot``: it is the hand of the bot seated after that person (the group
    ``bots``, the bots' side of the same tables, also one hand per deal);
    ``creator``: it is the hand of the seat of the table's creator (the group
    ``creator``, one hand per deal of every table whose creator sat down)."""
    out = ["all", f"seat:{seat}", f"pos:{pos}"]
    if name:
        out.append(f"player:{name}")
    if alone:
        out.append(PEOPLE)
    if their_bot:
        out.append(BOTS)
    if creator:
        out.append(CREATOR)
    return out


PEOPLE: Final = "people"
"""The group of the hands of a table's only person, at tables of bots."""
BOTS: Final = "bots"
"""The group of the hands of the bot seated after that person, at the same tables."""
CREATOR: Final = "creator"
"""The group of the hands of the seat of the table's creator."""


def lone_person(bots: Sequence[bool] | None) -> int | None:
    """The seat of the only person at a table where every other seat is a bot."""
    if not bots or len(bots) < 2:
        return None
    people = [seat for seat, bot in enumerate(bots) if not bot]
    return people[0] if len(people) == 1 else None


def their_bot(bots: Sequence[bool] | None) -> int | None:
    """At a table of one person and bots, the bot seated after the person (the
    next seat round the table): the bots' side of the ``people`` row, one hand
    per deal (the hands of one deal share a deck, so pooling every bot's hand
    would make the test too lenient)."""
    person = lone_person(bots)
    if person is None or bots is None:
        return None
    return (person + 1) % len(bots)


def _hg(total: int, marked: int, drawn: int, offset: int = 0) -> str:
    """Context of a hypergeometric count (plus a fixed ``offset``)."""
    return f"hg:{total}:{marked}:{drawn}:{offset}"


# -- per-game features ----------------------------------------------------------------
def rank_counts(hand: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for card in hand:
        if card in ("BJ", "RJ"):
            continue
        counts[card[0]] = counts.get(card[0], 0) + 1
    return counts


def windows(present: set[str], width: int = 3) -> int:
    """How many runs of ``width`` consecutive ranks (A-2-3 … Q-K-A) are all present."""
    return sum(
        all(RANK_ORDER[i + k] in present for k in range(width))
        for i in range(len(RANK_ORDER) - width + 1)
    )


def longest_run(present: set[str]) -> int:
    """The longest run of consecutive ranks in A-2-…-K-A (an Ace never at both ends)."""
    best = run = 0
    for rank in RANK_ORDER:
        run = run + 1 if rank in present else 0
        best = max(best, run)
    return min(best, 13)


# Hands as four 13-bit masks of ranks, one per suit (bit ``i`` is ``RANK_ORDER[i]``,
# the Ace bit 0): counting ranks, runs and straights is then a few integer operations.
_SUITS: Final = "CDHS"
_CARD_BITS: Final[dict[str, tuple[int, int]]] = {
    rank + suit: (s, 1 << RANK_ORDER.index(rank)) for rank in RANKS for s, suit in enumerate(_SUITS)
}
"""Each card's suit (0-3) and rank bit."""
_ACE_BIT: Final = 1
_TWO_BIT: Final = 1 << RANK_ORDER.index("2")


def _suit_masks(hand: Iterable[str]) -> tuple[list[int], int]:
    """The ranks held in each suit, and the number of jokers."""
    masks = [0, 0, 0, 0]
    jokers = 0
    bits = _CARD_BITS
    for card in hand:
        if card == "BJ" or card == "RJ":
            jokers += 1
            continue
        suit, bit = bits[card]
        masks[suit] |= bit
    return masks, jokers


def _rank_counts(masks: Sequence[int]) -> tuple[int, int, int]:
    """The ranks held exactly twice, at least three times and four times, as
    masks: the four suits added bit by bit (``count = one + 2 * two + 4 * four``)."""
    a, b, c, d = masks
    ab, cd = a ^ b, c ^ d
    ab2, cd2 = a & b, c & d
    one, carry = ab ^ cd, ab & cd
    two = ab2 ^ cd2 ^ carry
    four = (ab2 & cd2) | (carry & (ab2 ^ cd2))
    return two & ~one, four | (one & two), four


def _runs_of(ranks: int) -> int:
    """:func:`windows` of a rank mask (width 3)."""
    ranks |= (ranks & _ACE_BIT) << 13  # the Ace above the King too
    return (ranks & ranks >> 1 & ranks >> 2).bit_count()


def _longest_of(ranks: int) -> int:
    """:func:`longest_run` of a rank mask."""
    ranks |= (ranks & _ACE_BIT) << 13
    run = 0
    while ranks:
        ranks &= ranks >> 1
        run += 1
    return min(run, 13)


def murlan_features(hand: Sequence[str]) -> dict[str, tuple[str, int]]:
    n = len(hand)
    masks, jokers = _suit_masks(hand)
    present = masks[0] | masks[1] | masks[2] | masks[3]
    return {
        "jokers": (_hg(54, 2, n), jokers),
        "twos": (_hg(54, 4, n), sum(m & _TWO_BIT != 0 for m in masks)),
        "aces": (_hg(54, 4, n), sum(m & _ACE_BIT for m in masks)),
        "three_of_spades": (_hg(54, 1, n), int("3S" in hand)),
        "quads": (f"quads:{n}:2", _rank_counts(masks)[2].bit_count()),
        "longest_straight": (f"straight:{n}:2", min(_longest_of(present), LONGEST_CAP)),
        "strong_cards": (_hg(54, 10, n), sum(c[0] in "A2" or c in ("BJ", "RJ") for c in hand)),
        **rank_features(hand, 54, MURLAN_RANKS),
    }


def best_combo(hand: Sequence[str]) -> int:
    """The type of the first group the auto-arranger makes of 13 Hazari cards
    (1 indi, 2 pair, 3 color, 4 run, 5 color run, 6 troy): the best
    combination a player leads with when the engine arranges for him.

    The arranger's own search, stopped once that type is settled
    (:func:`~service.engines.hazari.arrange.first_type`)."""
    from service.engines.hazari.arrange import first_type

    return first_type(hand)


def hazari_counts(hand: Sequence[str]) -> dict[str, tuple[str, int]]:
    """Hazari's features that count ranks and runs (any number of cards)."""
    n = len(hand)
    masks, _ = _suit_masks(hand)
    pairs, troys, _ = _rank_counts(masks)
    present = masks[0] | masks[1] | masks[2] | masks[3]
    color_runs = _runs_of(masks[0]) + _runs_of(masks[1]) + _runs_of(masks[2]) + _runs_of(masks[3])
    return {
        "troys": (f"troys:{n}:0", troys.bit_count()),
        "color_runs": (f"colorruns:{n}", min(color_runs, WINDOWS_CAP)),
        "runs": (f"runs:{n}:0", min(_runs_of(present), WINDOWS_CAP)),
        "pairs": (f"pairs:{n}:0", pairs.bit_count()),
    }


RANK_FEATURES: Final = tuple(f"rank_{r}" for r in "23456789TJQKA")
"""One feature per rank: how many cards of that rank a hand holds (of 4)."""
MURLAN_RANKS: Final = "3456789TJQK"
"""Murlan's ranks counted by :func:`rank_features` (2s and aces are features already)."""


def rank_features(hand: Sequence[str], deck: int, ranks: str) -> dict[str, tuple[str, int]]:
    """How many cards of each of ``ranks`` the hand holds: hypergeometric, 4 of ``deck``."""
    held = Counter(card[0] for card in hand)
    n = len(hand)
    return {f"rank_{r}": (_hg(deck, 4, n), held.get(r, 0)) for r in ranks}


TOTAL_STEP: Final = 10
"""The arranger's total is counted in steps of this many expected card points."""


def arranger_strength(hand: Sequence[str]) -> tuple[int, int]:
    """The auto-arranger on 13 Hazari cards: the type of its first group (as
    :func:`best_combo`) and its **total**, the expected card points of its
    arrangement under its own model of the other players (the value it
    maximises: each group's chance of winning its round times the points of
    that round), in steps of :data:`TOTAL_STEP` (``3`` is 30 to 39.99…).

    One search gives both."""
    from service.engines.hazari.arrange import DEFAULT
    from service.engines.hazari.combos import POINTS, TYPE_SHIFT, card_index, key_of_indices

    cards = [card_index(c) for c in hand]
    groups = DEFAULT.arrange_indices(cards)
    opponent_card = (360 - sum(POINTS[c] for c in cards)) / 39
    total = 0.0
    first = 0
    for r, group in enumerate(groups):
        key = key_of_indices(sorted(group, reverse=True))
        if r == 0:
            first = key >> TYPE_SHIFT
        pot = 3 * len(group) * opponent_card
        total += DEFAULT.win[key][r] * (pot + sum(POINTS[c] for c in group))
    return first, int(total // TOTAL_STEP)


def hazari_features(hand: Sequence[str]) -> dict[str, tuple[str, int]]:
    feats = hazari_counts(hand)
    feats.update(rank_features(hand, 52, "23456789TJQKA"))
    n = len(hand)
    first, total = arranger_strength(hand)
    feats["best_combination"] = (f"sim:hazari_best:{n}", first)
    feats["arranger_total"] = (f"sim:hazari_total:{n}", total)
    return feats


AZI_COUNTED_RANKS: Final = "6789TJQK"
"""Azi's ranks counted by the ``rank_*`` features (aces are a feature already)."""


def trump_weights(shown: str, six_high: bool) -> list[int]:
    """The strength of each trump left in play once the trump card ``shown`` (a
    rank) is known: 6 … A weigh 1 … 9, and the six of trumps 10 when it stands
    above the Ace (an Ace shows trump and the six is on stage)."""
    return [
        10 if six_high and rank == "6" else 1 + AZI_RANKS.index(rank)
        for rank in AZI_RANKS
        if rank != shown
    ]


def azi_features(
    hand: Sequence[str], deck: int, trump_card: str, dealer: bool, cards: int, six_on_stage: bool
) -> dict[str, tuple[str, int]]:
    """A hand against the deck left once the trump card is known.

    With ``cards: 3`` the trump card is out of play, so every hand is ``cards``
    cards from the other ``deck - 1``; with ``cards: 4`` it is the dealer's
    last card, so the dealer holds it plus 3 cards from the rest.
    """
    trump = trump_card[1]
    rest = deck - 1
    holds_trump_card = cards == 4 and dealer
    drawn = cards - 1 if holds_trump_card else cards
    free = [c for c in hand if not (holds_trump_card and c == trump_card)]
    if holds_trump_card and len(free) == len(hand):  # not expected: be safe
        free = list(hand[:-1])
    ace_shown = trump_card[0] == "A"
    six_high = ace_shown and six_on_stage
    per_rank = deck // 9
    held = Counter(c[0] for c in free)

    def rank_count(rank: str) -> tuple[str, int]:
        shown = int(trump_card[0] == rank)
        offset = int(holds_trump_card and shown)
        return _hg(rest, per_rank - shown, drawn, offset), offset + held.get(rank, 0)

    weights = trump_weights(trump_card[0], six_high)
    weight = dict(zip((r for r in AZI_RANKS if r != trump_card[0]), weights, strict=True))
    strength_offset = 1 + AZI_RANKS.index(trump_card[0]) if holds_trump_card else 0
    out = {
        "trumps": (
            _hg(rest, 8, drawn, int(holds_trump_card)),
            int(holds_trump_card) + sum(c[1] == trump for c in free),
        ),
        "aces": rank_count("A"),
        "trump_strength": (
            f"trumps:{rest}:{drawn}:{trump_card[0]}:{int(six_high)}:{strength_offset}",
            strength_offset + sum(weight[c[0]] for c in free if c[1] == trump),
        ),
    }
    if six_high:
        out["six_of_trumps"] = (_hg(rest, 1, drawn), int(f"6{trump}" in free))
    out.update({f"rank_{r}": rank_count(r) for r in AZI_COUNTED_RANKS})
    return out


# -- events to observations ------------------------------------------------------------
def deal_observations(
    game: str, options: dict[str, Any], event: Any, names: Sequence[str | None]
) -> list[Obs]:
    """The observations of one deal event (``Dealt`` or ``HandDealt``)."""
    return [Obs.parse(f) for f in deal_fields(game, options, event, names)]


def deal_fields(
    game: str,
    options: dict[str, Any],
    event: Any,
    names: Sequence[str | None],
    bots: Sequence[bool] | None = None,
    creator: int | None = None,
) -> list[str]:
    """:func:`deal_observations` as their counters' fields (:meth:`Obs.field`);
    ``bots`` says which seats are bots (for the groups ``people`` and ``bots``),
    ``creator`` which seat is the table creator's (for the group ``creator``)."""
    table = table_kind(game, options)
    alone = lone_person(bots)
    beside = their_bot(bots)
    hands: Sequence[Sequence[str]] = event.hands
    seats = len(hands)
    dealer: int = event.dealer
    out: list[str] = []
    if game == "azi":
        order = [(dealer + k) % seats for k in range(1, seats + 1)]
        order = [s for s in order if hands[s]]
        positions = {s: (i + 1) % len(order) for i, s in enumerate(order)}  # dealer: 0
        deck = int(options.get("deck", 27))
        cards = int(options.get("cards", 3))
        six = bool(options.get("six_on_stage", True))
        for seat in order:
            feats = azi_features(hands[seat], deck, event.trump_card, seat == dealer, cards, six)
            name = _name(names, seat)
            in_groups = groups(
                seat, positions[seat], name, seat == alone, seat == beside, seat == creator
            )
            out += _fields(table, feats, in_groups)
        rank = AZI_RANKS.index(event.trump_card[0])
        dealer_groups = (
            ["all", f"dealer:{_name(names, dealer)}"] if _name(names, dealer) else ["all"]
        )
        out += _fields(table, {"trump_card_rank": ("u:9", rank)}, dealer_groups)
        return out
    if game == "murlan":
        first = dealer  # Murlan's ``dealer`` is the seat that gets the first card
        for seat, hand in enumerate(hands):
            pos = (seat - first) % seats
            in_groups = groups(
                seat, pos, _name(names, seat), seat == alone, seat == beside, seat == creator
            )
            out += _fields(table, murlan_features(hand), in_groups)
        return out
    if game == "hazari":
        for seat, hand in enumerate(hands):
            pos = (seat - dealer) % seats  # the dealer is 0, the first to get cards 1
            in_groups = groups(
                seat, pos, _name(names, seat), seat == alone, seat == beside, seat == creator
            )
            out += _fields(table, hazari_features(hand), in_groups)
        return out
    return out


def _name(names: Sequence[str | None], seat: int) -> str | None:
    name = names[seat] if seat < len(names) else None
    if not name:
        return None
    return name.replace("|", "/")


def _fields(table: str, feats: dict[str, tuple[str, int]], in_groups: list[str]) -> list[str]:
    out: list[str] = []
    for feature, (context, value) in feats.items():
        head, tail = f"{table}|{feature}|", f"|{context}|{value}"
        out += [head + group + tail for group in in_groups]
    return out


def pot_observation(game: str, options: dict[str, Any], winner: int, deal: dict[str, Any]) -> Obs:
    """Who won an Azi pot, by position from the dealer (descriptive, see the report)."""
    order: list[int] = deal["order"]
    pos = (order.index(winner) + 1) % len(order) if winner in order else -1
    return Obs(table_kind(game, options), "pot_winner_position", "all", f"u:{len(order)}", pos)


def deal_summary(event: Any) -> dict[str, Any]:
    """What a later ``PotSettled`` needs to know of the deal it settles."""
    hands = event.hands
    seats = len(hands)
    order = [(event.dealer + k) % seats for k in range(1, seats + 1)]
    return {"dealer": event.dealer, "order": [s for s in order if hands[s]]}
