"""The fairness report's query and body (``GET /fairness/report``)."""

from __future__ import annotations

from typing import Annotated, Literal

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


class FairnessGroup(_Out):
    """One feature in one group of hands, against the fair-deal expectation."""

    group: str = Field(
        description="`all`, `seat:N`, `pos:N` (0 = dealer), `player:NAME`, `dealer:NAME`."
    )
    label: str
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


class FairnessFeature(_Out):
    feature: str
    title: str
    expectation: str = Field(description="How the expected distribution is known.")
    expectation_error: float | None = Field(
        description="Standard error of a simulated expectation (null: exact)."
    )
    descriptive: bool = Field(description="Shown for information; not tested.")
    flagged: bool = Field(description="Some row of this feature is flagged (any player's too).")
    verdict: str
    groups: list[FairnessGroup]


class FairnessTable(_Out):
    table: str = Field(description="`murlan`, `hazari` or `azi/<deck>/<cards>`.")
    title: str
    hands: int
    features: list[FairnessFeature]


class FairnessReport(_Out):
    """`cardroom-fairness-v1`: every feature of every finished game's deals."""

    format: Literal["cardroom-fairness-v1"]
    games: int = Field(description="Finished games counted (hands are counted once public).")
    deals: int
    players: int = Field(description="Named players with counted hands (their rows: ?player=).")
    alpha: float
    correction: str
    test: str
    tests: int = Field(description="Number of tests the correction runs over.")
    flagged: list[str]
    verdict: str
    player: str | None
    tables: list[FairnessTable]
