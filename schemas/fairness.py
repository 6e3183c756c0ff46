"""The fairness report's query and body (``GET /fairness/report``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints


class FairnessQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player: Annotated[str, StringConstraints(min_length=1, max_length=40)] | None = Field(
        default=None,
        description='Keep the rows of everyone and of this player ("my luck").',
    )
    game: Literal["hazari", "azi", "murlan"] | None = Field(
        default=None, description="Keep one game."
    )


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


Params = dict[str, Any]


class FairnessGroup(_Out):
    """One feature in one group of hands, against the fair-deal expectation."""

    group: str = Field(
        description="`all`, `seat:N`, `pos:N` (0 = dealer), `player:NAME`, `dealer:NAME`, "
        "`people` (the only person at a table of bots), `bots` (the bot seated after him), "
        "`creator` (the seat of the table's creator)."
    )
    label: str
    label_code: str = Field(
        description="`all`, `seat` (`seat`), `position` (`position`, 0 = dealer), "
        "`player` (`name`), `dealer` (`name`), `people`, `bots`, `creator`."
    )
    label_params: Params
    hands: int
    values: list[int] = Field(description="The feature's values (categories).")
    observed: list[int] = Field(description="Hands observed with each value.")
    expected: list[float] = Field(description="Hands a fair deal gives each value (exact).")
    pooled: list[list[int]] = Field(description="Values pooled into each tested category.")
    statistic: float | None = Field(description="Chi-square statistic (null: too few hands).")
    df: int
    p_value: float | None
    p_adjusted: float | None = Field(description="Benjamini-Hochberg over the whole report.")
    flagged: bool = Field(description="Adjusted p-value below the report's `alpha`.")
    mean_observed: float
    mean_expected: float
    difference: float = Field(description="Mean observed minus mean expected, per hand.")
    difference_ci95: list[float] = Field(description="95% interval of the difference.")
    sd_expected: float = Field(description="Spread of one hand's value under a fair deal.")
    verdict: str
    verdict_code: str = Field(
        description="`descriptive`, `descriptive-outcome` (who wins with people), "
        "`every-hand` (shown, not tested), `not-enough-hands`, "
        "`flagged`, `drifting` (outside the interval, not flagged), `consistent`."
    )
    verdict_params: Params = Field(
        description="The figures the verdict names: `observed` and `expected` (means per "
        "hand), `difference`, `low`, `high` (its 95% interval), `p_adjusted`, "
        "`direction` (`more` or `fewer`), as the code needs."
    )


class FairnessFeature(_Out):
    feature: str
    title: str
    title_code: str = Field(
        description="The feature (the same as `feature`), or `rank` for a count of one rank."
    )
    title_params: Params = Field(
        default_factory=dict, description="`rank` (`2` … `A`) for `rank`; else empty."
    )
    expectation: str = Field(description="How the expected distribution is known.")
    expectation_code: str = Field(
        description="`hypergeometric`, `hypergeometric-trump`, `rank-counts`, `rank-patterns`, "
        "`enumeration`, `trump-strength`, `uniform`, `simulated`, `by-play`."
    )
    expectation_error: float | None = Field(
        description="Standard error of a simulated expectation (null: exact)."
    )
    descriptive: bool = Field(description="Shown for information; not tested.")
    flagged: bool = Field(description="Some row of this feature is flagged (any player's too).")
    verdict: str
    verdict_code: str = Field(
        description="`descriptive`, `flagged`, `not-enough-hands`, `consistent`."
    )
    groups: list[FairnessGroup]


class FairnessTable(_Out):
    table: str = Field(description="`murlan`, `hazari` or `azi/<deck>/<cards>`.")
    title: str
    title_code: str = Field(description="`murlan`, `hazari` or `azi`.")
    title_params: Params = Field(
        description="`deck` and `players` (Murlan) or `cards` (cards per hand)."
    )
    hands: int
    features: list[FairnessFeature]


class FairnessReport(_Out):
    """`cardroom-fairness-v1`: every feature of every finished game's deals.

    Every text of the report (`title`, `label`, `expectation`, `test`, `verdict`)
    is English, for API clients and the command line; beside each, `<field>_code`
    (and, where the text names figures, `<field>_params`) says the same as a
    stable code and its parameters, which the web page words in the reader's
    language."""

    format: Literal["cardroom-fairness-v1"]
    games: int = Field(description="Finished games counted (hands are counted once public).")
    deals: int
    players: int = Field(description="Named players with counted hands (their rows: ?player=).")
    alpha: float
    correction: str = Field(description="The correction's code: `benjamini-hochberg`.")
    test: str
    test_code: str = Field(description="`chi-square-pooled`.")
    test_params: Params = Field(
        description=(
            "`min_expected`: values are pooled to at least this many expected hands; "
            "`exact_max`: a row left with two categories and at most this many hands is "
            "tested exactly."
        )
    )
    tests: int = Field(description="Number of tests the correction runs over.")
    flagged: list[str]
    verdict: str
    verdict_code: str = Field(
        description="`not-enough-hands` (no test could run yet), `nothing-unusual`, `flagged`."
    )
    verdict_params: Params = Field(
        description="`games` and `deals`, `tests`, `flagged` (rows), as the code needs."
    )
    player: str | None
    tables: list[FairnessTable]
