"""Bodies of the HTTP API: what clients send, what they get back.

Request models are strict about shape (unknown fields, wrong types and
missing values are refused with the field named) and leave every game rule
to the engines: a body that parses here may still be an illegal move. The
move bodies themselves live in :mod:`schemas.moves`.

Response models describe what the endpoints return; they are the source of
the OpenAPI document, so their fields carry descriptions for people.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Final, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SkipValidation,
    StringConstraints,
)
from pydantic_core import PydanticCustomError

from .moves import AnyMove

# re-exported: the view, the event answers and the stream (schemas.views, schemas.stream)
from .stream import EVENTS_PAGE as EVENTS_PAGE
from .stream import MOVE_ACCEPTED as MOVE_ACCEPTED
from .stream import PLAYER_STREAM_LINE as PLAYER_STREAM_LINE
from .stream import STREAM_LINE as STREAM_LINE
from .stream import EventLine as EventLine
from .stream import EventsPage as EventsPage
from .stream import MessageCode as MessageCode
from .stream import MoveAccepted as MoveAccepted
from .stream import PlayerStreamLine as PlayerStreamLine
from .stream import StreamLine as StreamLine
from .stream import TableMessage as TableMessage
from .views import GAME_VIEW as GAME_VIEW
from .views import AziOptions, HazariOptions, MurlanOptions
from .views import GameView as GameView
from .views import PlayerProgress as PlayerProgress
from .views import Progress as Progress
from .views import SeatInfo as SeatInfo
from .views import TableView as TableView

GameName = Literal["hazari", "azi", "murlan"]
Status = Literal["seating", "playing", "ended"]
IndexStatus = Literal["seating", "playing", "ended", "archived"]
"""A game's status in the index: ``archived`` once its events moved to the archive."""
CLIENT_SEED_PATTERN: Final = r"^[A-Za-z0-9_-]{1,64}$"
IDEMPOTENCY_KEY_MAX: Final = 128
SEAT_KEY_MIN: Final = 16
"""A seat's idempotency key gets its token back, so it must not be guessable."""


# -- requests --------------------------------------------------------------------
class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BotSeat(_Request):
    seat: Annotated[int, Field(strict=True, ge=0)] = Field(description="The seat, from 0.")
    name: Annotated[str, StringConstraints(min_length=1, max_length=40)] = Field(
        description="The bot's name at the table."
    )


class CreateGameRequest(_Request):
    game: GameName = Field(description="Which game the table plays.")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description=(
            "Table options, checked by the game: hazari `target`; murlan `straight_beats`, "
            "`exchange_min_rank`; azi `deck`, `cards`, `buy_in`, `ante`, `min_bet`, "
            "`six_on_stage`, `azi_buy_in`; every game `turn_timeout_s` (seconds a seat has to "
            'act; absent or null: 60; 0 or "none": no limit) and `bot_delay_s` (this '
            "table's bots' thinking delay, 0-10 seconds; absent or null: the server's "
            "setting). An unknown option or a value out of range is a 422 naming it; "
            "`GET /games/kinds` lists every game's options."
        ),
    )
    seats: Annotated[int, Field(strict=True)] | None = Field(
        default=None, description="Number of seats: required for azi (2-6); hazari and murlan 4."
    )
    idempotency_key: (
        Annotated[str, StringConstraints(min_length=1, max_length=IDEMPOTENCY_KEY_MAX)] | None
    ) = Field(
        default=None,
        description=(
            "Retry-safe key, scoped to the client: the SHA-256 of its `Client-Secret` header "
            "(or of the deprecated `Client-Id`), else its address. The same key with the same "
            "body opens one table and a repeat answers with it; with another body it is a 422."
        ),
    )
    bots: Annotated[list[BotSeat], Field(min_length=1, max_length=6)] | None = Field(
        default=None,
        description=(
            "House bots seated at creation, in the same request, before any player can sit "
            "(their client seeds derived from the committed server seed, as for a bot "
            "taking a seat). A seat out of range or named twice, or every seat a bot, is a "
            "422 naming `bots`; players then get the lowest free seats."
        ),
    )


class TakeSeatRequest(_Request):
    name: Annotated[str, StringConstraints(min_length=1, max_length=40)] = Field(
        description="The player's name at the table."
    )
    client_seed: Annotated[str, StringConstraints(pattern=CLIENT_SEED_PATTERN)] | None = Field(
        default=None,
        description=(
            "Your part of every shuffle (1-64 of A-Z a-z 0-9 _ -). If absent, and always "
            "for a bot (which must send none), the server derives it from its committed "
            'seed: hex(HMAC-SHA256(server_seed, "client-seed:<seat>"))[:32].'
        ),
    )
    bot: Annotated[bool, Field(strict=True)] = Field(
        default=False, description="Seat a bot: it plays by itself and gets no token."
    )
    idempotency_key: (
        Annotated[
            str,
            StringConstraints(
                min_length=SEAT_KEY_MIN, max_length=IDEMPOTENCY_KEY_MAX, pattern=r"^[\x21-\x7e]+$"
            ),
        ]
        | None
    ) = Field(
        default=None,
        description=(
            f"Retry-safe key ({SEAT_KEY_MIN}-{IDEMPOTENCY_KEY_MAX} printable ASCII characters, "
            "random and kept secret): the same request with the same key gets the same seat "
            "and the same token; a different request with it is a 422. It is at least "
            f"{SEAT_KEY_MIN} characters, where a move's key may be 1, because it is a "
            "credential: sent without any token, it gets the seat's token back, so a short "
            "key could be guessed and the seat taken over. A move's key is only ever read "
            "with the seat's token, which already proves who sends it."
        ),
    )


class MoveRequest(_Request):
    move: SkipValidation[AnyMove]
    expected_version: Annotated[int, Field(strict=True, ge=0)] | None = Field(
        default=None,
        description="The version your move was decided on; a 409 if the game moved on.",
    )
    idempotency_key: (
        Annotated[str, StringConstraints(min_length=1, max_length=IDEMPOTENCY_KEY_MAX)] | None
    ) = Field(
        default=None,
        description=(
            "Retry-safe key (1-128 characters), scoped to the seat: the same request with the "
            "same key lands once and a retry gets the first answer (`Idempotent-Replayed: "
            "true`). Unlike a seat's key it needs no length: it is read only with the seat's "
            "token."
        ),
    )


# -- query parameters --------------------------------------------------------------
# Every query parameter is parsed by these models (through ``service.api.http.query``).
# A value that is not even of the parameter's form (a number written with anything
# but the ASCII digits 0-9, a cursor not of the form handed out) is a "malformed
# query" error (a 400); a well-formed value out of range is an ordinary 422.
QUERY_MALFORMED: Final = "query_malformed"
QUERY_INT_RE: Final = re.compile(r"[0-9]{1,19}", re.ASCII)
CURSOR_PATTERN: Final = r"^[0-9]{1,19}:[A-Za-z0-9_-]{1,64}$"
MESSAGE_ID_PATTERN: Final = r"^[0-9]{1,19}-[0-9]{1,19}$"


def _ascii_int(value: object) -> object:
    """A query number: ASCII digits only (``int()`` would take ``²``-like
    digits of other scripts, ``1_000``, spaces and signs)."""
    if isinstance(value, str):
        if not QUERY_INT_RE.fullmatch(value):
            raise PydanticCustomError(
                QUERY_MALFORMED, "not a number: use 1-19 of the ASCII digits 0-9"
            )
        return int(value)
    return value


def _cursor_form(value: object) -> object:
    if isinstance(value, str) and not re.fullmatch(CURSOR_PATTERN, value, re.ASCII):
        raise PydanticCustomError(
            QUERY_MALFORMED, "not a cursor: pass back a next_cursor exactly as it was given"
        )
    return value


def _message_id_form(value: object) -> object:
    if isinstance(value, str) and not re.fullmatch(MESSAGE_ID_PATTERN, value, re.ASCII):
        raise PydanticCustomError(
            QUERY_MALFORMED, "not a message id: pass a message's id exactly as it was given"
        )
    return value


QueryInt = Annotated[int, BeforeValidator(_ascii_int)]
Cursor = Annotated[str, BeforeValidator(_cursor_form)]
MessageId = Annotated[str, BeforeValidator(_message_id_form)]


class ListGamesQuery(_Request):
    game: GameName | None = None
    status: IndexStatus | None = None
    limit: QueryInt = Field(default=20, ge=1, le=100)
    cursor: Cursor | None = Field(
        default=None,
        description="The `next_cursor` of the previous page, as it was given.",
        json_schema_extra={"pattern": CURSOR_PATTERN},
    )


class EventsQuery(_Request):
    after: QueryInt = Field(default=0, ge=0, le=10**12)
    limit: QueryInt = Field(default=200, ge=1, le=1000)
    views: bool = Field(
        default=False,
        description=(
            "Live stream only (ignored by pages): also send a `view` line, this viewer's "
            "whole view, after each batch of events."
        ),
    )


class StreamQuery(_Request):
    after: QueryInt | None = Field(default=None, ge=0, le=10**12)
    views: bool = Field(
        default=False,
        description=(
            "Also send a `view` line (this viewer's whole view) after each batch of events, "
            "so a client never needs to poll GET /games/{id}."
        ),
    )


# -- responses ---------------------------------------------------------------------
class _Response(BaseModel):
    model_config = ConfigDict(extra="allow")


class Problem(_Response):
    """An error (RFC 9457); extensions name what was wrong (`rule`, `option`, `field`)."""

    type: str
    title: str
    status: int
    detail: str
    code: str = Field(
        description="A stable code of what was wrong (the type's last path segment, or a "
        "narrower code: `invalid-field`, `option-out-of-range`…), for a client to say it "
        "in its own words; `detail` is English."
    )
    params: dict[str, Any] = Field(
        description="The code's parameters (the field, the constraint and its limit, the "
        "option and its bounds, the rule…)."
    )
    rule: str | None = None
    option: str | None = None
    field: str | None = None
    current_version: int | None = None
    request_id: str | None = Field(
        default=None, description="The request's id (`X-Request-Id`), as in the server's logs."
    )


class GameCreated(_Response):
    game_id: str
    game: GameName
    seats: int = Field(description="How many seats the table has.")
    seat_list: list[SeatInfo] = Field(
        description="The seats as they stand: the bots seated at creation, the others free "
        "(null `name`)."
    )
    options: HazariOptions | MurlanOptions | AziOptions = Field(
        description="The table's options, every default filled in (the game's own options)."
    )
    commitment: str = Field(description="sha256 of the server seed, revealed when the game ends.")
    algorithm: str
    status: Status
    version: int


class SeatGranted(_Response):
    game_id: str
    seat: int
    name: str
    bot: bool
    client_seed: str
    seed_origin: Literal["player", "derived", "unrecorded"] | None = Field(
        default=None,
        description="Who chose client_seed: 'player' (sent here) or 'derived' (see SeatInfo).",
    )
    token: str | None = Field(
        description="Bearer token of this seat, shown only here (null for a bot seat)."
    )
    version: int = Field(description="The game's version after the seat was taken.")


class SayRequest(_Request):
    code: MessageCode = Field(description="Which preset message to say.")


class MessagesQuery(_Request):
    after: MessageId | None = Field(
        default=None,
        description=(
            "Only the messages said after this one: the `id` of the last message read "
            "(`0-0`: every message kept). A client that reads now and then, as a table "
            "without its live stream does, passes the last id it has and gets each message "
            "once."
        ),
    )


class MessagesPage(_Response):
    items: list[TableMessage] = Field(
        description="The latest messages kept (those after `after`, when given), oldest first."
    )


class RematchSeat(_Response):
    """The seat a rematch gave this player in the next game."""

    game_id: str = Field(description="The next game's id.")
    seat: int = Field(description="This player's seat there (the same as before, as a rule).")
    token: str = Field(
        description="Bearer token of that seat, given only to this seat's own token."
    )


class Rematch(_Response):
    """A rematch of an ended game: the same game, options and seats, once every seat
    played by a person has asked for it (bots are always willing)."""

    game_id: str = Field(description="The ended game.")
    seat: int = Field(description="The seat whose token asked.")
    confirmed: list[int] = Field(description="Seats that want the rematch (bots included).")
    waiting_for: list[int] = Field(description="Seats still to confirm.")
    next: RematchSeat | None = Field(
        description="Once every seat confirmed: this seat's place in the next game."
    )


class EventOut(_Response):
    """One event as this viewer may see it: its place in the stream and its fields."""

    version: int
    type: str
    schema_version: int
    at_ms: int | None = None


class GameSummary(_Response):
    game_id: str
    game: GameName
    status: IndexStatus
    created_at: int = Field(description="Milliseconds since the epoch.")
    last_event_at: int | None = Field(
        default=None,
        description=(
            "When the game's latest event (a seat taken, a move, a deal, its end) was "
            "appended, in milliseconds since the epoch; null once the game is archived."
        ),
    )


class GamesPage(_Response):
    items: list[GameSummary]
    next_cursor: str | None


class Replay(_Response):
    format: Literal["cardroom-replay-v1"]
    game_id: str
    game: GameName
    options: dict[str, Any]
    seats: list[SeatInfo]
    commitment: str
    server_seed: str | None
    deals: list[dict[str, Any]]
    events: list[dict[str, Any]]
    result: dict[str, Any]


class Verification(_Response):
    game_id: str
    verified: bool | None = Field(description="null until the seed is revealed.")
    status: Status
    commitment: str
    code: str = Field(
        description="`verified`, `mismatch` (`params.code` says what did not match: "
        "events, seed, commitment, deal, step, seat, move, result) or `seed-not-revealed`."
    )
    params: dict[str, Any] = Field(description="The code's figures (deals, moves; deal, seat…).")
    seeds: list[dict[str, Any]] | None = Field(
        default=None,
        description="Per seat: its seed_origin (every derived seed was re-derived).",
    )
    seeds_committed: bool | None = Field(
        default=None,
        description=(
            "True when every seed the server supplied was fixed by its commitment; false "
            "for a game stored before seed origins were recorded."
        ),
    )


class Health(_Response):
    status: Literal["ok"]
    redis: Literal["ok"]


class Live(_Response):
    """``/livez``: the process answers (it asks Redis nothing)."""

    status: Literal["ok"]


class Ready(_Response):
    """``/readyz``: Redis answers, takes writes and holds the scripts; for the API,
    workers beat."""

    status: Literal["ready"]
    redis: Literal["ok"]
    writes: Literal["ok"]
    scripts: Literal["ok"]
    workers: int | None = Field(
        default=None,
        description="Workers whose heartbeat is recent enough (the API only; at least 1).",
    )


# -- webhooks -------------------------------------------------------------------
WebhookEvent = Literal["turn_started", "hand_ended", "game_ended", "seat_away"]


class CreateWebhookRequest(_Request):
    url: str = Field(
        min_length=1,
        max_length=2048,
        description=(
            "Where to POST the deliveries: https (a public address, checked after DNS "
            "resolution; http to loopback only where the operator allows it)."
        ),
    )
    events: list[WebhookEvent] = Field(min_length=1, max_length=4, description="The events wanted.")


class WebhookPause(_Response):
    reason: str = Field(description="Why: `failing` (every attempt failed for a while).")
    failures: int
    last: str = Field(description="The last attempt's result: `HTTP 500`, `timeout`, …")
    at: int = Field(description="When it was paused (ms since the epoch).")


class Webhook(_Response):
    id: str
    url: str
    events: list[WebhookEvent]
    seat: int
    status: Literal["active", "paused", "ended"]
    created_at: int
    failures: int = Field(description="Failed attempts in a row.")
    paused: WebhookPause | None = Field(
        default=None, description="Why the subscription is paused (null unless it is)."
    )
    secret: str | None = Field(
        default=None,
        description="The signing secret: only in the answers that made or rotated it.",
    )


class WebhookList(_Response):
    items: list[Webhook]


class DeliveryAttempt(_Response):
    at: int = Field(description="When it was made (ms since the epoch).")
    status: int | None = Field(description="The receiver's HTTP status (null: no answer).")
    ms: float = Field(description="How long it took.")
    reply: str = Field(description="The first bytes of the reply.")
    error: str | None = Field(description="Why it failed without an answer, or more.")
    retry_in_ms: int | None = Field(
        default=None, description="After a failure: the wait chosen before the next attempt."
    )


class Delivery(_Response):
    id: str = Field(
        description="The delivery's id: the Cardroom-Delivery header, kept on redelivery."
    )
    webhook_id: str
    event: WebhookEvent
    seat: int
    version: int
    at: int = Field(description="When its event was appended (ms since the epoch).")
    deadline: int | None = Field(description="The turn's deadline (turn_started).")
    status: Literal["queued", "retrying", "delivered", "failed", "expired", "paused", "dropped"]
    next_at: int | None = Field(default=None, description="When it is tried next.")
    attempts: list[DeliveryAttempt]


class DeliveryList(_Response):
    items: list[Delivery]


# -- the games ------------------------------------------------------------------
class CardNotation(_Response):
    """How a game writes its cards, and how it ranks them."""

    ranks: list[str] = Field(description="The ranks of the deck, lowest first.")
    suits: list[str] = Field(
        description="The suits of the deck: C clubs, D diamonds, H hearts, S spades."
    )
    jokers: list[str] = Field(description="`BJ` (black) and `RJ` (red), where the deck has them.")
    rank_order: list[str] = Field(
        description="Every rank and joker from the lowest to the highest, as the game ranks "
        "single cards (Azi: before trumps and the led suit count)."
    )
    deck_sizes: list[int] = Field(description="How many cards the deck may have.")
    notation: str = Field(
        description="A card is its rank then its suit (`TD`: ten of diamonds, `AS`), or a "
        "joker; input may say `10` for ten and any case."
    )


class GameKind(_Response):
    game: GameName
    min_seats: int
    max_seats: int
    actions: list[str] = Field(description="The `action`s of its moves.")
    options: dict[str, Any] = Field(
        description="Its table options with their defaults (`bot_delay_s` null: the "
        "server's setting)."
    )
    cards: CardNotation
    rules: str = Field(description="Where its rules are described, for people.")


class GameKinds(_Response):
    games: list[GameKind]


# -- players: keys, bound seats and the player's stream ----------------------------------
PLAYER_CURSORS = r"[A-Za-z0-9_-]{1,64}:[0-9]{1,12}(,[A-Za-z0-9_-]{1,64}:[0-9]{1,12})*"


class CreatePlayerRequest(_Request):
    """`POST /players` takes no fields (an empty body or `{}`)."""


class PlayerCreated(_Response):
    player_id: str
    player_key: str = Field(
        description=(
            "The player's secret, shown only here (the server keeps its hash): send it as "
            "`Authorization: Bearer <player_key>` to bind seats and to read them back."
        )
    )


class PlayerSeat(_Response):
    game_id: str
    game: GameName
    seat: int
    token: str = Field(description="The seat's bearer token, as its seat answer gave it.")
    status: Status
    version: int = Field(description="The game's version now.")


class PlayerSeats(_Response):
    player_id: str
    seats: list[PlayerSeat] = Field(description="The seats bound to the key, newest first.")


class PlayerStreamQuery(_Request):
    after: str | None = Field(
        default=None,
        max_length=8000,
        pattern=f"^{PLAYER_CURSORS}$",
        description=(
            "Comma-separated `game_id:version` cursors, one per game already seen: such a "
            "game's events after that version follow (no view line first)."
        ),
    )
    views: bool = Field(
        default=False,
        description="Also send a `view` line after each game's batch of events.",
    )
