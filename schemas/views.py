"""The view of a game (``GET /games/{id}``), typed per game.

A view is one of :class:`HazariView`, :class:`AziView` and :class:`MurlanView`,
told apart by ``game`` (:data:`GameView`): each types its ``table`` (the game's
own view of the table), its ``options``, its ``result`` and its
``legal_moves`` (the game's move union), so a generated client needs no
dictionary where the game has a shape.

Two names are kept for the clients that read them and marked deprecated in the
schema: ``table.to_act`` repeats the view's ``to_act``, and Murlan's
``table.table`` (the play to beat) is also ``table.to_beat``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from .moves import AziMove, Card, HazariMove, MurlanMove

Status = Literal["seating", "playing", "ended"]
Seats = list[int]


class _Part(BaseModel):
    """A part of a view: new fields may appear; clients ignore what they do not know."""

    model_config = ConfigDict(extra="allow")


TO_ACT_DEPRECATED: Any = Field(
    deprecated=True,
    description="Deprecated: the same as the view's `to_act`; read that one.",
)


# -- options ------------------------------------------------------------------
class _TableOptions(_Part):
    turn_timeout_s: int | float | None = Field(
        default=None, description="Seconds a seat has to act; null: no limit."
    )
    bot_delay_s: int | float | None = Field(
        default=None,
        description="This table's bots' thinking delay in seconds (0-10); absent: the "
        "server's `CARDROOM_BOT_DELAY_S`.",
    )


class HazariOptions(_TableOptions):
    target: int = Field(description="The score that ends the match.")


class MurlanOptions(_TableOptions):
    straight_beats: Literal["one_higher", "any_higher"]
    exchange_min_rank: Literal[3, 4]


class AziOptions(_TableOptions):
    deck: Literal[27, 36]
    cards: Literal[3, 4]
    six_on_stage: bool
    buy_in: int
    ante: int
    min_bet: int
    azi_buy_in: str


# -- results --------------------------------------------------------------------
class ScoresResult(_Part):
    """Hazari's and Murlan's result: the scores; `winners` once the match ended."""

    scores: list[int]
    target: int
    winners: Seats | None = Field(default=None, description="Once the game has ended.")


class AziResult(_Part):
    stacks: list[int]
    buy_ins: list[int]
    results: list[int] = Field(description="Per seat: its stack less its buy-in.")
    pot: int
    over: bool
    reason: str | None


# -- Hazari ------------------------------------------------------------------------
class HazariRound(_Part):
    round: int
    leader: int
    order: Seats = Field(description="The laying order.")
    laid: list[list[Card]] = Field(description="Per seat: the group it laid.")
    combos: list[str] = Field(description="Per seat: its group's combination.")
    winner: int
    points: int


class HazariLastDeal(_Part):
    deal: int
    rounds: list[HazariRound]
    points: list[int] | None


class HazariTable(_Part):
    game: Literal["hazari"]
    phase: str = Field(description="`arranging`, `dealing`, `over`…")
    deal: int | None
    dealer: int | None
    first_to_lay: int | None
    target: int
    scores: list[int]
    said_up: list[bool] = Field(description="Per seat: its arrangement is laid down.")
    to_act: Seats = TO_ACT_DEPRECATED
    hand_counts: list[int]
    last_deal: HazariLastDeal | None
    winners: Seats
    hand: list[Card] | None = Field(default=None, description="Seat views only: your cards.")
    arrangement: list[list[Card]] | None = Field(
        default=None, description="Seat views only: the groups you laid down, while arranging."
    )


# -- Murlan -----------------------------------------------------------------------
class MurlanOnTable(_Part):
    """The play to beat: its cards, its combination, who played it, passes since."""

    cards: list[Card]
    combination: str
    seat: int
    passes: int


class MurlanExchange(_Part):
    first_finisher: int
    last_finisher: int
    skipped: bool
    card_given: Card | None = Field(description="`??` unless you are in the exchange.")
    card_given_back: Card | None


class MurlanTableOptions(_Part):
    straight_beats: Literal["one_higher", "any_higher"]
    exchange_min_rank: Literal[3, 4]


class MurlanTable(_Part):
    game: Literal["murlan"]
    phase: str = Field(description="`exchange`, `playing`, `over`…")
    hand_number: int
    dealer: int | None
    turn: int | None
    to_act: Seats = TO_ACT_DEPRECATED
    to_beat: MurlanOnTable | None = Field(description="The play to beat; null when leading.")
    table: MurlanOnTable | None = Field(
        deprecated=True, description="Deprecated: the same as `to_beat`; read that one."
    )
    leading: bool
    must_include: Card | None
    hand_counts: list[int]
    out: Seats = Field(description="Seats out of this hand, in the order they went out.")
    scores: list[int]
    target: int
    exchange: MurlanExchange | None
    options: MurlanTableOptions
    winners: Seats
    hand: list[Card] | None = Field(default=None, description="Seat views only: your cards.")


# -- Azi ------------------------------------------------------------------------------
class AziSeatRow(_Part):
    seat: int
    stack: int
    contribution: int
    in_hand: bool
    cards: int
    discarded: bool
    bid: int
    actions: int
    folded: bool
    all_in: bool
    short: bool
    tricks: int
    left: bool
    leaving: bool


class AziBidding(_Part):
    highest: int
    leader: int | None
    bids: list[int]
    actions: list[int]
    folded: Seats
    all_in: Seats
    short: Seats


class AziTrickCard(_Part):
    seat: int
    card: Card


class AziPending(_Part):
    """A tied pot replayed (an azi): who deals it, its price, who is in, who decides."""

    dealer: int
    price: int
    in_replay: Seats
    to_decide: Seats


class AziTable(_Part):
    game: Literal["azi"]
    phase: str = Field(description="`dealing`, `discarding`, `bidding`, `playing`…")
    hand_no: int
    deal: int | None
    deals_dealt: int
    dealer: int | None
    azi_replays: int
    trump: str | None
    trump_card: Card | None
    six_on_stage: bool
    pot: int
    ante: int
    min_bet: int
    cards_per_hand: int
    stacks: list[int]
    contributions: list[int]
    hand_counts: list[int]
    seats: list[AziSeatRow]
    bidding: AziBidding
    trick: list[AziTrickCard]
    tricks: list[int]
    trick_winners: Seats
    played: list[Card]
    turn: int | None
    to_act: Seats = TO_ACT_DEPRECATED
    azi: AziPending | None
    pot_winner: int | None
    last_winner: int | None
    over: bool
    end_reason: str | None
    hand: list[Card] | None = Field(default=None, description="Seat views only: your cards.")
    discard: Card | None = Field(default=None, description="Seat views only: your discard.")


# -- the view -----------------------------------------------------------------------------
class SeatInfo(_Part):
    seat: int
    name: str | None
    client_seed: str | None
    bot: bool
    seed_origin: Literal["player", "derived", "unrecorded"] | None = Field(
        default=None,
        description=(
            "Who chose client_seed: 'player' (sent with the seat request), 'derived' "
            '(hex(HMAC-SHA256(server_seed, "client-seed:<seat>"))[:32], fixed by the '
            "commitment, checkable once the seed is revealed), 'unrecorded' (an older game)."
        ),
    )
    creator: bool | None = Field(
        default=None,
        description=(
            "The seat of the table's creator: the first person's seat taken by the client "
            "that opened the table (the same Client-Secret, or Client-Id and address). "
            "False in games stored before it was recorded, and for a seat not taken yet."
        ),
    )


class PlayerProgress(_Part):
    seat: int
    name: str | None
    bot: bool
    cards: int | None = Field(description="Cards in hand (public count).")
    score: int | None = None
    stack: int | None = None
    to_act: bool


class TrickCard(_Part):
    seat: int
    card: Card


class Progress(_Part):
    """The table in a shape any client can draw without knowing the game."""

    phase: str | None
    hand_number: int | None
    dealer: int | None
    players: list[PlayerProgress]
    pot: int | None = None
    trick: list[TrickCard] | None = None
    table_cards: list[Card] | None = None
    trump: str | None = None
    target: int | None = None


class _View(_Part):
    game_id: str
    status: Status
    version: int
    commitment: str
    server_seed: str | None
    seats: list[SeatInfo]
    to_act: Seats = Field(description="The seats whose turn it is.")
    progress: Progress
    seat: int | None = Field(default=None, description="Seat views only: whose view this is.")
    hand: list[Card] | None = Field(default=None, description="Seat views only: your cards.")
    legal_moves_complete: bool | None = Field(
        default=None, description="False when legal_moves holds a suggestion (hazari's arrange)."
    )
    away: Seats = Field(
        default_factory=list,
        description="Seats marked away after missing turns in a row: the bot plays them.",
    )
    abandoned: str | None = Field(
        default=None, description="Why the table ended before its game did (`idle`), or null."
    )
    turn_limit_s: int | float | None = Field(
        default=None,
        description="The table's turn limit in seconds (`options.turn_timeout_s`); null: none.",
    )
    turn_deadlines_ms: list[int | None] | None = Field(
        default=None,
        description=(
            "Per seat: when its running turn times out and the workers move for it "
            "(milliseconds since the epoch, the server's clock); null for a seat not "
            "to act, a seat the bot plays, or a table without a turn limit."
        ),
    )


LEGAL_MOVES = "Seat views only: every legal move body now ([] if not your turn)."


class HazariView(_View):
    game: Literal["hazari"]
    options: HazariOptions
    table: HazariTable = Field(description="Hazari's own view of the table.")
    result: ScoresResult
    legal_moves: list[HazariMove] | None = Field(
        default=None,
        description=LEGAL_MOVES + " Hazari's holds the engine's suggested arrangement.",
    )


class MurlanView(_View):
    game: Literal["murlan"]
    options: MurlanOptions
    table: MurlanTable = Field(description="Murlan's own view of the table.")
    result: ScoresResult
    legal_moves: list[MurlanMove] | None = Field(default=None, description=LEGAL_MOVES)


class AziView(_View):
    game: Literal["azi"]
    options: AziOptions
    table: AziTable = Field(description="Azi's own view of the table.")
    result: AziResult
    legal_moves: list[AziMove] | None = Field(default=None, description=LEGAL_MOVES)


GameView = Annotated[Union[HazariView, AziView, MurlanView], Field(discriminator="game")]  # noqa: UP007
"""A game's view: one of the three, told apart by ``game``."""
TableView = Annotated[Union[HazariTable, AziTable, MurlanTable], Field(discriminator="game")]  # noqa: UP007
"""A view's ``table``: the game's own view of it, told apart by ``game``."""
GAME_VIEW: TypeAdapter[HazariView | AziView | MurlanView] = TypeAdapter(GameView)
VIEW_MODELS: tuple[type[BaseModel], ...] = (HazariView, AziView, MurlanView)
TABLE_MODELS: tuple[type[BaseModel], ...] = (HazariTable, AziTable, MurlanTable)
