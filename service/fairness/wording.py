"""The fairness report's words: every text of the report as a code with its
parameters, and the English sentence made from them.

The web page formats the codes from its message catalogs in the reader's
language (``fairness.*`` keys of ``service/web/static/i18n/<lang>/fairness.json``);
API clients and ``cardroom fairness`` read the English sentences. Every code a
report can carry is listed here, so a test can require a message for each in
every catalog.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

Params = dict[str, Any]

TEST_CODE: Final = "chi-square-pooled"
CORRECTION: Final = "benjamini-hochberg"


def describe_test(min_expected: int, exact_max: int) -> str:
    return (
        f"chi-square goodness of fit, categories pooled to at least {min_expected} expected "
        f"hands; a row left with two categories and at most {exact_max} hands: exact test"
    )


# -- the tables: kind and parameters ---------------------------------------------------------

TABLE_CODES: Final = ("murlan", "hazari", "azi")


def table_title(table: str) -> tuple[str, Params, str]:
    """``(code, params, English)`` of a table kind: ``murlan``, ``hazari`` or
    ``azi/<deck>/<cards>``."""
    game, *rest = table.split("/")
    if game == "murlan":
        return "murlan", {"deck": 54, "players": 4}, "Murlan (54 cards, 4 players)"
    if game == "hazari":
        return "hazari", {"deck": 52, "cards": 13}, "Hazari Lite (52 cards, 13 each)"
    if game == "azi" and len(rest) == 2 and all(r.isdigit() for r in rest):
        deck, cards = int(rest[0]), int(rest[1])
        return "azi", {"deck": deck, "cards": cards}, f"Azi, {deck} cards, {cards} each"
    return "other", {"table": table}, table


# -- the features: title and how the expectation is known ------------------------------------

EXPECTATIONS: Final[dict[str, str]] = {
    "hypergeometric": "exact: hypergeometric",
    "hypergeometric-trump": "exact: hypergeometric, given the trump card",
    "rank-counts": "exact: enumeration of rank counts",
    "rank-patterns": "exact: enumeration of rank patterns",
    "enumeration": "exact: enumeration",
    "trump-strength": "exact: enumeration of the trumps held, given the trump card",
    "uniform": "exact: uniform",
    "simulated": "simulated with the published shuffle",
    "simulated-games": "simulated: games of bots played on fresh seeds of the published shuffle",
    "by-play": "descriptive: decided by play, not only by the cards",
}

FEATURES: Final[dict[str, tuple[str, str]]] = {
    # feature: (title, the code of how the expectation is known)
    "jokers": ("Jokers in hand", "hypergeometric"),
    "twos": ("2s in hand", "hypergeometric"),
    "aces": ("Aces in hand", "hypergeometric"),
    "three_of_spades": ("Holding the 3 of spades", "hypergeometric"),
    "quads": ("Bombs (four of a kind)", "rank-counts"),
    "longest_straight": ("Longest run of consecutive ranks (9 = 9 or more)", "rank-patterns"),
    "troys": ("Troys (ranks held 3 or 4 times)", "rank-counts"),
    "color_runs": ("Color runs (3 in sequence, one suit; 4 = 4 or more)", "enumeration"),
    "runs": ("Runs (3 ranks in sequence, any suits; 4 = 4 or more)", "enumeration"),
    "pairs": ("Pairs (ranks held exactly twice)", "rank-counts"),
    "best_combination": ("The auto-arranger's best combination (1 indi … 6 troy)", "simulated"),
    "strong_cards": ("Cards of rank A or above (aces, 2s, jokers)", "hypergeometric"),
    "arranger_total": (
        "The auto-arranger's total (expected card points, in tens: 9 = 90 to 99)",
        "simulated",
    ),
    "trumps": ("Trumps in hand", "hypergeometric-trump"),
    "trump_strength": (
        "Trump strength (the trumps held, 6 = 1 … Ace = 9, the six above the Ace 10)",
        "trump-strength",
    ),
    "six_of_trumps": ("Six of trumps in hand when an Ace shows trump", "hypergeometric"),
    "trump_card_rank": ("Rank of the trump card (0 = 6 … 8 = Ace)", "uniform"),
    "pot_winner_position": (
        "Who wins the pot, by position (0 = dealer, 1 = first to get cards)",
        "by-play",
    ),
    "bot_winner_seat": (
        "Who wins a game of bots, by seat (the seat count = a tie)",
        "simulated-games",
    ),
    "bot_winner_position": (
        "Who wins a game of bots, by position from the first dealer (the seat count = a tie)",
        "simulated-games",
    ),
    "winner_seat": ("Who wins, by seat (tables with people: descriptive)", "by-play"),
    "winner_position": (
        "Who wins, by position from the first dealer (tables with people: descriptive)",
        "by-play",
    ),
}

FEATURES.update(
    {f"rank_{r}": (f"Cards of rank {r} in hand", "hypergeometric") for r in "23456789TJQKA"}
)
RANK_TITLE: Final = "rank"
"""The title code of every rank feature (``rank_K``…), with the rank as its ``rank``."""


FEATURE_TITLE_CODES: Final = (*(f for f in FEATURES if not f.startswith("rank_")), RANK_TITLE)
"""Every feature title code the pages word."""


def feature_title(feature: str) -> tuple[str, Params]:
    """A feature's title code and its figures: the feature itself, or ``rank`` with
    the rank for a count of one rank."""
    if feature.startswith("rank_"):
        return RANK_TITLE, {"rank": feature.removeprefix("rank_")}
    return feature, {}


FEATURE_WORDS: Final[dict[str, str]] = {
    "three_of_spades": "the 3 of spades",
    "strong_cards": "cards of rank A or above",
    "six_of_trumps": "the six of trumps",
    "trump_card_rank": "a high trump card",
    "longest_straight": "long straights",
    "best_combination": "strong best combinations",
    "arranger_total": "a high arranger's total",
    "trump_strength": "strong trumps",
    "bot_winner_seat": "wins",
    "bot_winner_position": "wins",
}


def feature_words(feature: str) -> str:
    if feature.startswith("rank_"):
        return f"cards of rank {feature.removeprefix('rank_')}"
    return FEATURE_WORDS.get(feature, feature.replace("_", " "))


# -- the groups of hands ---------------------------------------------------------------------

GROUP_CODES: Final = (
    "all",
    "seat",
    "position",
    "player",
    "dealer",
    "people",
    "bots",
    "creator",
)


def group_label(group: str) -> tuple[str, Params, str]:
    """``(code, params, English)`` of a group: ``all``, ``seat:N``, ``pos:N``
    (0 = the dealer), ``player:NAME``, ``dealer:NAME``."""
    kind, _, rest = group.partition(":")
    if kind == "all":
        return "all", {}, "every hand"
    if kind == "seat" and rest.isdigit():
        return "seat", {"seat": int(rest)}, f"seat {rest}"
    if kind == "pos" and rest.isdigit():
        english = "the dealer" if rest == "0" else f"position {rest} after the dealer"
        return "position", {"position": int(rest)}, english
    if kind == "player":
        return "player", {"name": rest}, f"player {rest}"
    if kind == "dealer":
        return "dealer", {"name": rest}, f"deals by {rest}"
    if kind == "people":
        return "people", {}, "the only person at a table of bots, whoever and wherever"
    if kind == "bots":
        return "bots", {}, "the bot after the only person at a table of bots"
    if kind == "creator":
        return "creator", {}, "the seat of the table's creator, whoever and wherever"
    return "other", {"group": group}, group


# -- verdicts --------------------------------------------------------------------------------

REPORT_VERDICTS: Final = ("not-enough-hands", "nothing-unusual", "flagged")
FEATURE_VERDICTS: Final = ("descriptive", "flagged", "not-enough-hands", "consistent")
ROW_VERDICTS: Final = (
    "descriptive",
    "descriptive-outcome",
    "every-hand",
    "not-enough-hands",
    "flagged",
    "drifting",
    "consistent",
)


def report_verdict(code: str, params: Mapping[str, Any]) -> str:
    if code == "not-enough-hands":
        if not params["deals"]:
            return "Not enough hands yet to test: no finished game has been counted yet."
        return (
            f"Not enough hands yet to test: {params['deals']} deal(s) counted, "
            "too few for any test."
        )
    if code == "flagged":
        flagged = params["flagged"]
        return f"{flagged} result(s) are unlikely under a fair deal: see the flagged rows."
    return "Nothing unusual: every tested feature is consistent with a fair deal."


def feature_verdict(code: str) -> str:
    return {
        "descriptive": "Descriptive only (decided by play as much as by the cards).",
        "flagged": "Unusual: at least one group is unlikely under a fair deal.",
        "not-enough-hands": "Not enough hands yet to test.",
    }.get(code, "Consistent with a fair deal.")


def row_verdict(code: str, p: Mapping[str, Any], who: str, what: str) -> str:
    """The English sentence of a row's verdict (``who``: the group's label,
    ``what``: the feature in words)."""
    if code == "descriptive":
        return (
            "Descriptive only: who wins a pot depends on the bidding and the play, "
            "so no fair-deal expectation applies."
        )
    if code == "descriptive-outcome":
        return (
            "Descriptive only: who wins a game with people (or with options never simulated) "
            "depends on their play, so no fair-deal expectation applies."
        )
    if code == "not-enough-hands":
        return f"Not enough hands yet to test {who}."
    band = f"{p['observed']:.3f} per hand against {p['expected']:.3f} expected"
    if code == "every-hand":
        return f"Every hand: {band}."
    if code == "flagged":
        more = "more" if p["direction"] == "more" else "fewer"
        return (
            f"Unusual: {who} got {more} {what} than a fair deal gives ({band}; "
            f"adjusted p = {p['p_adjusted']:.2g}). This is worth looking into."
        )
    interval = f"95% interval {p['low']:+.3f} to {p['high']:+.3f}"
    if code == "drifting":
        side = "above" if p["direction"] == "more" else "below"
        return (
            f"So far {side} a fair deal's average ({band}; difference {p['difference']:+.3f}, "
            f"{interval}), but not beyond what chance gives across all the report's tests "
            f"(adjusted p = {p['p_adjusted']:.2g}): no sign of unfairness yet."
        )
    return f"Consistent with a fair deal: {band} (difference {p['difference']:+.3f}, {interval})."
