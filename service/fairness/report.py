"""The public fairness report, built from the projection's counts.

One entry per table kind, feature and group (everyone, a seat, a position
from the dealer, a named player, the deals a player dealt): observed against
expected, a goodness-of-fit p-value, the Benjamini-Hochberg adjusted p-value
over the whole report, the mean difference with its 95% interval, and a
verdict: a code with its figures, and the sentence in English.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from . import wording
from .expectations import simulated_error
from .stats import (
    ALPHA,
    EXACT_MAX,
    MIN_EXPECTED,
    Fit,
    Histogram,
    adjust,
    fit,
    p_values,
    proportion_ci,
)

if TYPE_CHECKING:
    from service.store import EventStore

FORMAT: Final = "cardroom-fairness-v1"

DESCRIPTIVE: Final = frozenset({"pot_winner_position", "winner_seat", "winner_position"})
OUTCOMES: Final = frozenset({"winner_seat", "winner_position"})
"""Who wins a game with people: descriptive (see :mod:`.outcomes`)."""
PER_DEAL: Final = frozenset(
    {"trump_card_rank", "pot_winner_position", "bot_winner_seat", "bot_winner_position"}
)
"""Features observed once per deal (or per game: who wins a game of bots);
every other one is observed once per hand."""


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
    adjusted p-values and ``flagged`` lists every flagged row.

    Every text comes with its code and parameters (``verdict_code`` and
    ``verdict_params``, ``title_code``, …: see :mod:`.wording`) for the pages
    to word in the reader's language; the text itself is English."""
    tables, players = _collect_tables(analysis, player, game)
    out_tables = []
    for entry in tables.values():
        features = list(entry["features"].values())
        for f in features:
            f["verdict_code"] = _feature_verdict(f)
            f["verdict"] = wording.feature_verdict(f["verdict_code"])
        out_tables.append({**entry, "features": features})
    flagged = [f"{t} {feature} {group}" for t, feature, group in analysis.flagged]
    games, deals = int(meta.get("games", 0)), int(meta.get("deals", 0))
    code, params = _report_verdict(len(analysis.adjusted), len(flagged), games, deals)
    return {
        "format": FORMAT,
        "games": games,
        "deals": deals,
        "players": len(players),
        "alpha": ALPHA,
        "correction": wording.CORRECTION,
        "test": wording.describe_test(int(MIN_EXPECTED), EXACT_MAX),
        "test_code": wording.TEST_CODE,
        "test_params": {"min_expected": int(MIN_EXPECTED), "exact_max": EXACT_MAX},
        "tests": len(analysis.adjusted),
        "flagged": flagged,
        "verdict": wording.report_verdict(code, params),
        "verdict_code": code,
        "verdict_params": params,
        "player": player,
        "tables": out_tables,
    }


def _report_verdict(tests: int, flagged: int, games: int, deals: int) -> tuple[str, dict[str, int]]:
    """The overall verdict: nothing can be said before any test ran."""
    if flagged:
        return "flagged", {"flagged": flagged, "tests": tests}
    if not tests:
        return "not-enough-hands", {"games": games, "deals": deals}
    return "nothing-unusual", {"tests": tests}


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
        entry = tables.get(t) or tables.setdefault(t, _table_entry(t))
        if feature not in entry["features"]:
            flagged = (t, feature) in flagged_features
            entry["features"][feature] = _feature_entry(feature, analysis.hists[key], flagged)
        row = _row(feature, group, fits[key], adjusted.get(key), key in flagged_keys)
        entry["features"][feature]["groups"].append(row)
        if group == "all" and feature not in DESCRIPTIVE:
            entry["hands"] = max(entry["hands"], row["hands"])
    return tables, players


def _table_entry(t: str) -> dict[str, Any]:
    code, params, title = wording.table_title(t)
    return {
        "table": t,
        "title": title,
        "title_code": code,
        "title_params": params,
        "hands": 0,
        "features": {},
    }


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
    title, how = wording.FEATURES.get(feature, (feature, ""))
    context_error = max((simulated_error(c) or 0.0 for c in hist.counts), default=0.0)
    code, params = wording.feature_title(feature)
    return {
        "feature": feature,
        "title": title,
        "title_code": code,
        "title_params": params,
        "expectation": wording.EXPECTATIONS.get(how, how),
        "expectation_code": how,
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
    features = list(wording.FEATURES)
    return (t, features.index(feature) if feature in features else 99, feature, rank, rest.zfill(3))


def _row(feature: str, group: str, f: Fit, p_adj: float | None, flagged: bool) -> dict[str, Any]:
    n = sum(f.observed)
    label_code, label_params, label = wording.group_label(group)
    row: dict[str, Any] = {
        "group": group,
        "label": label,
        "label_code": label_code,
        "label_params": label_params,
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
    code, params = _verdict(feature, group, f, p_adj, flagged)
    row["verdict"] = wording.row_verdict(code, params, label, wording.feature_words(feature))
    row["verdict_code"] = code
    row["verdict_params"] = params
    return row


def _verdict(
    feature: str, group: str, f: Fit, p_adj: float | None, flagged: bool
) -> tuple[str, dict[str, Any]]:
    """A row's verdict: its code and the figures its sentence names."""
    if feature in OUTCOMES:
        return "descriptive-outcome", {}
    if feature in DESCRIPTIVE:
        return "descriptive", {}
    means = {"observed": round(f.mean_observed, 5), "expected": round(f.mean_expected, 5)}
    if group == "all" and feature not in PER_DEAL:
        # the hands of one deal share one deck: shown here, tested per seat, position, player
        return "every-hand", means
    if f.statistic is None:
        return "not-enough-hands", {}
    lo, hi = f.effect_ci
    direction = "more" if f.effect > 0 else "fewer"
    p = 1.0 if p_adj is None else p_adj
    if flagged:
        return "flagged", {**means, "direction": direction, "p_adjusted": p}
    interval = {"difference": round(f.effect, 5), "low": round(lo, 5), "high": round(hi, 5)}
    if lo > 0 or hi < 0:
        return "drifting", {**means, **interval, "direction": direction, "p_adjusted": p}
    return "consistent", {**means, **interval}


def _feature_verdict(feature: dict[str, Any]) -> str:
    if feature["descriptive"]:
        return "descriptive"
    if feature["flagged"]:
        return "flagged"
    if all(g["p_value"] is None for g in feature["groups"]):
        return "not-enough-hands"
    return "consistent"


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
            lines += [_text_row(g) for g in f["groups"]]
    return "\n".join(lines)


def _text_row(g: Mapping[str, Any]) -> str:
    mark = "FLAG" if g["flagged"] else "    "
    p = g["p_adjusted"]
    if g.get("verdict_code") == "not-enough-hands":
        tail = "not enough hands yet to test"
    elif p is None:
        tail = "shown, not tested"
    else:
        tail = f"p_adj {p:6.3f}"
    return (
        f"  {mark} {g['label']:<34} n={g['hands']:<7} "
        f"mean {g['mean_observed']:7.3f} vs {g['mean_expected']:7.3f}  {tail}"
    )
