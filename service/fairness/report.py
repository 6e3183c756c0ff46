"""The public fairness report, built from the projection's counts.

One entry per table kind, feature and group (everyone, a seat, a position
from the dealer, a named player, the deals a player dealt): observed against
expected, a goodness-of-fit p-value, the Benjamini-Hochberg adjusted p-value
over the whole report, the mean difference with its 95% interval, and a
verdict in plain words.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from .expectations import simulated_error
from .stats import ALPHA, Fit, Histogram, adjust, fit, p_values, proportion_ci

if TYPE_CHECKING:
    from service.store import EventStore

FORMAT: Final = "cardroom-fairness-v1"

TABLES: Final[dict[str, str]] = {
    "murlan": "Murlan (54 cards, 4 players)",
    "hazari": "Hazari Lite (52 cards, 13 each)",
    "azi/27/3": "Azi, 27 cards, 3 each",
    "azi/27/4": "Azi, 27 cards, 4 each",
    "azi/36/3": "Azi, 36 cards, 3 each",
    "azi/36/4": "Azi, 36 cards, 4 each",
}

FEATURES: Final[dict[str, tuple[str, str]]] = {
    # feature: (title, how the expectation is known)
    "jokers": ("Jokers in hand", "exact: hypergeometric"),
    "twos": ("2s in hand", "exact: hypergeometric"),
    "aces": ("Aces in hand", "exact: hypergeometric"),
    "three_of_spades": ("Holding the 3 of spades", "exact: hypergeometric"),
    "quads": ("Bombs (four of a kind)", "exact: enumeration of rank counts"),
    "longest_straight": (
        "Longest run of consecutive ranks (9 = 9 or more)",
        "exact: enumeration of rank patterns",
    ),
    "troys": ("Troys (ranks held 3 or 4 times)", "exact: enumeration of rank counts"),
    "color_runs": ("Color runs (3 in sequence, one suit; 4 = 4 or more)", "exact: enumeration"),
    "runs": ("Runs (3 ranks in sequence, any suits; 4 = 4 or more)", "exact: enumeration"),
    "pairs": ("Pairs (ranks held exactly twice)", "exact: enumeration of rank counts"),
    "best_combination": (
        "The auto-arranger's best combination (1 indi … 6 troy)",
        "simulated with the published shuffle",
    ),
    "trumps": ("Trumps in hand", "exact: hypergeometric, given the trump card"),
    "six_of_trumps": (
        "Six of trumps in hand when an Ace shows trump",
        "exact: hypergeometric",
    ),
    "trump_card_rank": ("Rank of the trump card (0 = 6 … 8 = Ace)", "exact: uniform"),
    "pot_winner_position": (
        "Who wins the pot, by position (0 = dealer, 1 = first to get cards)",
        "descriptive: decided by play, not only by the cards",
    ),
}
DESCRIPTIVE: Final = frozenset({"pot_winner_position"})
PER_DEAL: Final = frozenset({"trump_card_rank", "pot_winner_position"})
"""Features observed once per deal; every other one is observed once per hand."""


def tested(key: tuple[str, str, str]) -> bool:
    """Whether a row enters the tests. The hands of one deal come from one
    deck, so they are not independent (two jokers in one hand are two fewer
    for the others): a per-hand feature is tested per seat, per position and
    per player, where each deal gives one hand, and its row over every hand
    is shown, not tested."""
    _, feature, group = key
    if feature in DESCRIPTIVE:
        return False
    return group != "all" or feature in PER_DEAL


FEATURE_WORDS: Final[dict[str, str]] = {
    "three_of_spades": "the 3 of spades",
    "six_of_trumps": "the six of trumps",
    "trump_card_rank": "a high trump card",
    "longest_straight": "long straights",
    "best_combination": "strong best combinations",
}


def group_label(group: str) -> str:
    kind, _, rest = group.partition(":")
    if kind == "all":
        return "every hand"
    if kind == "seat":
        return f"seat {rest}"
    if kind == "pos":
        return "the dealer" if rest == "0" else f"position {rest} after the dealer"
    if kind == "player":
        return f"player {rest}"
    if kind == "dealer":
        return f"deals by {rest}"
    return group


@dataclass(frozen=True, slots=True)
class Analysis:
    """Every group's fit and the correction over the whole report."""

    hists: dict[tuple[str, str, str], Histogram]
    fits: dict[tuple[str, str, str], Fit]
    adjusted: dict[tuple[str, str, str], float]
    order: list[tuple[str, str, str]]

    @property
    def flagged(self) -> list[tuple[str, str, str]]:
        return [k for k in self.order if self.adjusted.get(k, 1.0) < ALPHA]


def analyse(counts: Mapping[str, int]) -> Analysis:
    hists: dict[tuple[str, str, str], Histogram] = {}
    for name, n in counts.items():
        t, feature, group, context, value = name.split("|")
        hist = hists.get((t, feature, group))
        if hist is None:
            hist = hists[(t, feature, group)] = Histogram()
        hist.add(context, int(value), n)
    fits: dict[tuple[str, str, str], Fit] = {k: fit(h) for k, h in hists.items()}
    p_values([f for k, f in fits.items() if tested(k)])
    family = sorted(k for k, f in fits.items() if f.p_value is not None and tested(k))
    adjusted = dict(zip(family, adjust([fits[k].p_value or 1.0 for k in family]), strict=True))
    return Analysis(hists, fits, adjusted, sorted(fits, key=_order))


class FairnessReport:
    """The latest analysis of a store's projection, kept in memory (one per
    process in a deployment: the API keeps its own), and the report from it.

    When the projection has changed since (a game counted, a rebuild), the
    kept analysis answers at once while a new one is made in the background."""

    def __init__(self) -> None:
        self._kept: tuple[EventStore, tuple[int, ...], Analysis] | None = None
        self._lock = threading.Lock()
        self._refreshing = threading.Event()

    def _refresh(self, store: EventStore, stamp: tuple[int, ...]) -> Analysis:
        from . import projection

        counts, _ = projection.read(store)  # as new as the stamp or newer: analysed again next time
        analysis = analyse(counts)
        with self._lock:
            self._kept = (store, stamp, analysis)
        return analysis

    def _refresh_in_background(self, store: EventStore, stamp: tuple[int, ...]) -> None:
        if self._refreshing.is_set():
            return
        self._refreshing.set()

        def run() -> None:
            try:
                self._refresh(store, stamp)
            finally:
                self._refreshing.clear()

        threading.Thread(target=run, name="fairness-report", daemon=True).start()

    def cached_report(
        self,
        store: EventStore,
        player: str | None = None,
        game: str | None = None,
        wait: bool = False,
    ) -> dict[str, Any]:
        """The report from the projection in ``store``.

        The analysis is kept in memory. When the projection has changed since
        (a game counted, a rebuild), the kept analysis answers at once while a
        new one is made in the background (``wait`` makes it now instead); the
        report's ``games`` and ``deals`` always say which counts it covers."""
        from . import projection

        meta = projection.read_meta(store)
        stamp: tuple[int, ...] = (meta.get("games", 0), meta.get("deals", 0), meta.get("epoch", 0))
        with self._lock:
            kept = self._kept
        hit = kept[1:] if kept is not None and kept[0] is store else None
        if hit is None or (wait and hit[0] != stamp):
            covered, analysis = stamp, self._refresh(store, stamp)
        else:
            covered, analysis = hit
            if covered != stamp:
                self._refresh_in_background(store, stamp)
        totals = {"games": covered[0], "deals": covered[1]}
        return build_from(analysis, totals, player=player, game=game)


def build(
    counts: Mapping[str, int],
    meta: Mapping[str, int],
    player: str | None = None,
    game: str | None = None,
) -> dict[str, Any]:
    """The report over ``counts`` (see :func:`build_from`)."""
    return build_from(analyse(counts), meta, player=player, game=game)


def build_from(
    analysis: Analysis,
    meta: Mapping[str, int],
    player: str | None = None,
    game: str | None = None,
) -> dict[str, Any]:
    """The report. Without ``player`` it has the rows of every hand, seat and
    position; with it, the rows of every hand and of that player's hands and
    deals ("my luck"). ``game`` keeps one game. The correction always runs over
    the whole report (every player included), so every view shows the same
    adjusted p-values and ``flagged`` lists every flagged row."""
    tables, players = _collect_tables(analysis, player, game)
    out_tables = []
    for entry in tables.values():
        features = list(entry["features"].values())
        for f in features:
            f["verdict"] = _feature_verdict(f)
        out_tables.append({**entry, "features": features})
    flagged = [f"{t} {feature} {group}" for t, feature, group in analysis.flagged]
    return {
        "format": FORMAT,
        "games": int(meta.get("games", 0)),
        "deals": int(meta.get("deals", 0)),
        "players": len(players),
        "alpha": ALPHA,
        "correction": "benjamini-hochberg",
        "test": "chi-square goodness of fit, categories pooled to at least 5 expected hands",
        "tests": len(analysis.adjusted),
        "flagged": flagged,
        "verdict": (
            "Nothing unusual: every tested feature is consistent with a fair deal."
            if not flagged
            else f"{len(flagged)} result(s) are unlikely under a fair deal: see the flagged rows."
        ),
        "player": player,
        "tables": out_tables,
    }


def _collect_tables(
    analysis: Analysis, player: str | None, game: str | None
) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """The rows of the view, by table and then feature, and every player the
    analysis names (in any view)."""
    fits, adjusted = analysis.fits, analysis.adjusted
    flagged_keys = set(analysis.flagged)
    flagged_features = {(t, f) for t, f, _ in flagged_keys}
    players: set[str] = set()
    tables: dict[str, dict[str, Any]] = {}
    for key in analysis.order:
        t, feature, group = key
        kind, _, rest = group.partition(":")
        if kind == "player":
            players.add(rest)
        if not _in_view(t, group, player, game):
            continue
        entry = tables.setdefault(
            t, {"table": t, "title": TABLES.get(t, t), "hands": 0, "features": {}}
        )
        if feature not in entry["features"]:
            flagged = (t, feature) in flagged_features
            entry["features"][feature] = _feature_entry(feature, analysis.hists[key], flagged)
        row = _row(feature, group, fits[key], adjusted.get(key), key in flagged_keys)
        entry["features"][feature]["groups"].append(row)
        if group == "all" and feature not in DESCRIPTIVE:
            entry["hands"] = max(entry["hands"], row["hands"])
    return tables, players


def _in_view(t: str, group: str, player: str | None, game: str | None) -> bool:
    """Whether the view (one ``game``'s, one ``player``'s) shows the row of
    ``group`` in table ``t``."""
    if game is not None and t.split("/")[0] != game:
        return False
    if player is None:
        return group.partition(":")[0] not in ("player", "dealer")
    return group in ("all", f"player:{player}", f"dealer:{player}")


def _feature_entry(feature: str, hist: Histogram, flagged: bool) -> dict[str, Any]:
    """A feature's heading in a table, before its rows."""
    title, how = FEATURES.get(feature, (feature, ""))
    context_error = max((simulated_error(c) or 0.0 for c in hist.counts), default=0.0)
    return {
        "feature": feature,
        "title": title,
        "expectation": how,
        "expectation_error": context_error or None,
        "descriptive": feature in DESCRIPTIVE,
        "flagged": flagged,
        "groups": [],
    }


def _order(key: tuple[str, str, str]) -> tuple[str, int, str, int, str]:
    t, feature, group = key
    kind, _, rest = group.partition(":")
    rank = (
        ["all", "seat", "pos", "player", "dealer"].index(kind)
        if kind in ("all", "seat", "pos", "player", "dealer")
        else 9
    )
    features = list(FEATURES)
    return (t, features.index(feature) if feature in features else 99, feature, rank, rest.zfill(3))


def _row(feature: str, group: str, f: Fit, p_adj: float | None, flagged: bool) -> dict[str, Any]:
    n = sum(f.observed)
    row: dict[str, Any] = {
        "group": group,
        "label": group_label(group),
        "hands": n,
        "values": f.values,
        "observed": f.observed,
        "expected": f.expected,
        "pooled": f.bins,
        "statistic": None if f.statistic is None else round(f.statistic, 4),
        "df": f.df,
        "p_value": f.p_value,
        "p_adjusted": p_adj,
        "flagged": flagged,
        "mean_observed": round(f.mean_observed, 5),
        "mean_expected": round(f.mean_expected, 5),
        "difference": round(f.effect, 5),
        "difference_ci95": [round(f.effect_ci[0], 5), round(f.effect_ci[1], 5)],
        "sd_expected": round(f.sd_expected, 5),
    }
    if feature in DESCRIPTIVE:
        row["share"] = [
            {"value": v, "share": c / n if n else 0.0, "ci95": list(proportion_ci(c, n))}
            for v, c in zip(f.values, f.observed, strict=True)
        ]
        row["verdict"] = (
            "Descriptive only: who wins a pot depends on the bidding and the play, "
            "so no fair-deal expectation applies."
        )
        return row
    if group == "all" and feature not in PER_DEAL:
        # the hands of one deal share one deck: shown here, tested per seat, position, player
        row["verdict"] = (
            f"Every hand: {f.mean_observed:.3f} per hand against {f.mean_expected:.3f} expected."
        )
        return row
    row["verdict"] = _verdict(feature, group, f, p_adj, flagged)
    return row


def _verdict(feature: str, group: str, f: Fit, p_adj: float | None, flagged: bool) -> str:
    who = group_label(group)
    what = FEATURE_WORDS.get(feature, feature.replace("_", " "))
    if f.statistic is None:
        return f"Not enough hands yet for {who} to say anything."
    lo, hi = f.effect_ci
    p_adj = 1.0 if p_adj is None else p_adj
    band = f"{f.mean_observed:.3f} per hand against {f.mean_expected:.3f} expected"
    if flagged:
        more = "more" if f.effect > 0 else "fewer"
        return (
            f"Unusual: {who} got {more} {what} than a fair deal gives ({band}; "
            f"adjusted p = {p_adj:.2g}). This is worth looking into."
        )
    if lo > 0 or hi < 0:
        side = "above" if f.effect > 0 else "below"
        return (
            f"So far {side} a fair deal's average ({band}; difference {f.effect:+.3f}, 95% "
            f"interval {lo:+.3f} to {hi:+.3f}), but not beyond what chance gives across all "
            f"the report's tests (adjusted p = {p_adj:.2g}): no sign of unfairness yet."
        )
    return (
        f"Consistent with a fair deal: {band} "
        f"(difference {f.effect:+.3f}, 95% interval {lo:+.3f} to {hi:+.3f})."
    )


def _feature_verdict(feature: dict[str, Any]) -> str:
    if feature["descriptive"]:
        return "Descriptive only (decided by play as much as by the cards)."
    groups = feature["groups"]
    if feature["flagged"]:
        return "Unusual: at least one group is unlikely under a fair deal."
    if all(g["p_value"] is None for g in groups):
        return "Not enough hands yet."
    return "Consistent with a fair deal."


def render_text(report: Mapping[str, Any]) -> str:
    """The report as plain text (``cardroom fairness``)."""
    lines = [
        f"cardroom fairness report: {report['games']} finished games, {report['deals']} deals, "
        f"{report['tests']} tests, Benjamini-Hochberg at {report['alpha']}",
        report["verdict"],
    ]
    for t in report["tables"]:
        lines += ["", f"== {t['title']} ({t['hands']} hands)"]
        for f in t["features"]:
            lines.append(f"-- {f['title']} [{f['expectation']}]: {f['verdict']}")
            for g in f["groups"]:
                p = g["p_adjusted"]
                mark = "FLAG" if g["flagged"] else "    "
                ptxt = "  n/a " if p is None else f"{p:6.3f}"
                lines.append(
                    f"  {mark} {g['label']:<34} n={g['hands']:<7} "
                    f"mean {g['mean_observed']:7.3f} vs {g['mean_expected']:7.3f}  "
                    f"p_adj {ptxt}"
                )
    return "\n".join(lines)
