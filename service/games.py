"""The application service: the commands of cardroom's tables over the repository.

Every command follows one shape: load the game (snapshot + tail), let the
table fold and the engine decide, save the events at the version the
decision was based on, then hand the game to the workers (unless the fold
was all that was left to do: then the append projects itself, see
:meth:`service.repository.GameRepository.projection`). The append is the
only write that matters and it is atomic, so a rejected command changes
nothing and two racing commands cannot both land.

The parts around the commands each have a module: loading and saving
(:mod:`service.repository`), seat tokens (:mod:`service.seataccess`),
idempotency keys and their records (:mod:`service.idempotency`), the
answers (:mod:`service.bodies`), seats coming back and idle tables
(:mod:`service.presence`). Secrets live outside the stream: the server
seed in the store until the game reveals it, seat tokens only as their
SHA-256.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from schemas.moves import parse_move
from service import presence
from service.engines import table
from service.engines.base import JSON, Event, Move
from service.engines.shuffle import commitment, new_server_seed
from service.idempotency import (
    CreationKeys,
    move_fingerprint,
    move_record,
    replayed_move,
    seat_scoped_key,
)
from service.idempotency import creation_fingerprint as _creation_fingerprint
from service.store import LRU, EventStore, StoredEvent, VersionConflict
from service.store.creations import Reservation

from .bodies import Creation, MoveResult, SeatGrant, move_body
from .errors import Forbidden, MissingSecret, Unauthenticated
from .repository import Followup, GameRepository, StartDrain, Workers
from .seataccess import SeatAccess
from .seating import Seating, creator_mark

VIEWS_KEPT: Final = 2048
"""How many rendered views a service keeps (:attr:`GameService.views`)."""
MAX_STEPS: Final = 64
"""System steps one :meth:`GameService.advance` call takes at most (a guard, never reached)."""

Decide = Callable[[table.Table], list[Event]]


def new_game_id() -> str:
    """96 random bits, URL-safe, never starting with ``-``: a command line
    (``cardroom replay <id>``) would take such an id for an option."""
    while True:
        game_id = secrets.token_urlsafe(12)
        if not game_id.startswith("-"):
            return game_id


class GameService:
    """Commands and queries of cardroom's games; one per process, thread-safe.

    ``runtime`` is the process's wiring (:class:`service.runtime.Runtime`);
    ``followup`` and ``start_drain`` go to the repository
    (:class:`~service.repository.GameRepository`).
    """

    def __init__(
        self,
        runtime: Workers,
        store: EventStore,
        followup: Followup | None = None,
        start_drain: StartDrain | None = None,
    ) -> None:
        self.runtime = runtime
        self.store = store
        self.repository = GameRepository(runtime, store, followup, start_drain)
        self.seats = SeatAccess(self.repository)
        self.creations = CreationKeys(store.creations)
        self.seating = Seating(self.repository, self.seats, lambda game_id: self.advance(game_id))
        self.views: LRU[tuple[str, int | None], tuple[table.Table, str]] = LRU(VIEWS_KEPT)
        """``(game_id, seat or None) → (state, JSON)`` of views rendered lately
        (:func:`service.api.views.view_json`)."""

    # -- queries -------------------------------------------------------------
    def load(self, game_id: str) -> table.Table:
        """The current state; :class:`GameNotFound` for an unknown (or malformed) id."""
        return self.repository.load(game_id)

    def events(
        self,
        game_id: str,
        after: int = 0,
        limit: int | None = None,
        state: table.Table | None = None,
    ) -> tuple[table.Table, list[StoredEvent]]:
        """See :meth:`service.repository.GameRepository.events`."""
        return self.repository.events(game_id, after, limit, state)

    def list_games(
        self, game: str | None, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[JSON], str | None]:
        """See :meth:`service.repository.GameRepository.list_games`."""
        return self.repository.list_games(game, status, limit, cursor)

    def authenticate(self, game_id: str, token: str | None, *, required: bool) -> int | None:
        """See :meth:`service.seataccess.SeatAccess.authenticate`."""
        return self.seats.authenticate(game_id, token, required=required)

    def seat_and_state(self, game_id: str, token: str | None) -> tuple[int, table.Table]:
        """See :meth:`service.seataccess.SeatAccess.seat_and_state`."""
        return self.seats.seat_and_state(game_id, token)

    def seat_for_move(self, game_id: str, token: str | None) -> tuple[int, table.Table, str | None]:
        """See :meth:`service.seataccess.SeatAccess.seat_for_move`."""
        return self.seats.seat_for_move(game_id, token)

    # -- tables and seats --------------------------------------------------------
    def create_game(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        seats: int | None = None,
        bots: Sequence[tuple[int, str]] = (),
    ) -> table.Table:
        """A new table, seating; its seed is drawn and kept, its commitment published.
        ``bots`` (seat, name) are house bots seated at once, in the same append."""
        return self.repository.create(*self._draft(game, options, seats, bots), new_game_id)

    def open_table(
        self,
        game: str,
        options: Mapping[str, Any] | None,
        seats: int | None,
        idempotency_key: str | None,
        scope: str,
        bots: Sequence[tuple[int, str]] = (),
    ) -> Creation:
        """:meth:`create_game`, retry-safe with ``idempotency_key``.

        The key belongs to ``scope`` (:func:`service.idempotency.creation_scope`)
        and is reserved before anything is written, so the same request sent
        any number of times, at once or one after another, opens one table and
        every repeat answers with it (``replayed``); see
        :class:`service.idempotency.CreationKeys`. A body the game refuses is
        refused before the key is looked at, and reserves nothing.
        """
        seed, events = self._draft(game, options, seats, bots)
        if idempotency_key is None:
            return Creation(
                self._created_by(self.repository.create(seed, events, new_game_id), scope)
            )
        fingerprint = _creation_fingerprint(game, options, seats, bots)
        found = self.creations.claim(scope, idempotency_key, fingerprint, self.load)
        if not isinstance(found, Reservation):
            return Creation(found, replayed=True)
        try:
            state = self.repository.create(seed, events, new_game_id)
        except BaseException:
            self.creations.settle(found, None)  # nothing opened: the key is free again
            raise
        self.creations.settle(found, state.game_id)
        return Creation(self._created_by(state, scope))

    def _created_by(self, state: table.Table, scope: str) -> table.Table:
        """Note which client opened the table (a digest, see
        :func:`service.seating.creator_mark`), for its first seat's mark."""
        self.repository.store.note_creator(state.game_id, creator_mark(scope))
        return state

    @property
    def creation_wait_s(self) -> float:
        """How long a repeated ``POST /games`` waits for its first request."""
        return self.creations.wait_s

    @creation_wait_s.setter
    def creation_wait_s(self, value: float) -> None:
        self.creations.wait_s = value

    def _draft(
        self,
        game: str,
        options: Mapping[str, Any] | None,
        seats: int | None,
        bots: Sequence[tuple[int, str]] = (),
    ) -> tuple[bytes, list[Event]]:
        """A new table's server seed and first events (its bots seated), checked by
        the game (a bad option, seat count or bot raises here); nothing is written."""
        seed = new_server_seed()
        events = table.create(new_game_id(), game, options, seats, commitment(seed), bots, seed)
        return seed, events

    def take_seat(
        self,
        game_id: str,
        name: str,
        client_seed: str | None = None,
        bot: bool = False,
        idempotency_key: str | None = None,
        scope: str | None = None,
    ) -> SeatGrant:
        """The next free seat. When it is the last one, the first deal follows at once.

        With ``idempotency_key`` a retry of the same request gets the same seat
        and the same token (derived, see :mod:`service.seattokens`); the key
        sent with a different request is :class:`IdempotencyKeyReused`.
        ``scope`` is the requesting client's (:func:`service.idempotency.creation_scope`):
        the first person's seat the table's creator takes is marked so.
        """
        return self.seating.take(game_id, name, client_seed, bot, idempotency_key, scope)

    # -- presence --------------------------------------------------------------
    def seat_present(self, game_id: str, seat: int, state: table.Table | None = None) -> None:
        """See :func:`service.presence.seat_present`."""
        presence.seat_present(self.repository, game_id, seat, state)

    def abandon_if_idle(self, game_id: str, now_ms: int | None = None) -> bool:
        """See :func:`service.presence.abandon_if_idle` (``abandon_after_s``)."""
        limit_s = self.runtime.settings.abandon_after_s
        return presence.abandon_if_idle(self.repository, game_id, limit_s, now_ms)

    # -- moves and system steps ---------------------------------------------------
    def submit_move(
        self,
        game_id: str,
        seat: int,
        move: object,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        state: table.Table | None = None,
        last_entry: str | None = None,
    ) -> MoveResult:
        """A seat's move: shape-checked, decided by the engine, appended atomically.

        With ``expected_version`` a game that moved on is a :class:`VersionConflict`;
        without, a lost race is re-decided on the new state a few times. A
        repeated ``idempotency_key`` answers with the first attempt's body: the
        append script refuses a key it has seen, and a decision that fails looks
        the key up, so an accepted move costs no extra look-up. Keys are scoped
        to the seat: another seat's same key is another request.
        ``state``: the game as just loaded, to decide on first; with
        ``last_entry``, the cached state :meth:`seat_for_move` found instead.
        """
        fingerprint = None
        if idempotency_key is not None:
            fingerprint = move_fingerprint(seat, move, expected_version)
            idempotency_key = seat_scoped_key(seat, idempotency_key)
        parsed: list[dict[str, Any]] = []

        def decide(state: table.Table) -> list[Event]:
            if not parsed:
                parsed.append(parse_move(state.kind, move))
            return [*table.come_back(state, seat), *table.decide(state, seat, parsed[0])]

        try:
            return self._move(
                game_id,
                seat,
                decide,
                expected_version,
                idempotency_key,
                fingerprint,
                state,
                last_entry,
            )
        except Exception:
            # A retry is decided like a new request (the append itself refuses a key
            # already used), so the key is looked up only when the decision fails:
            # the game may have moved on because of this very request.
            earlier = (
                self.store.idempotent_result(game_id, idempotency_key) if idempotency_key else None
            )
            if earlier is None:
                raise
            return MoveResult(replayed_move(game_id, earlier, fingerprint), replayed=True)

    def play_as(
        self,
        game_id: str,
        seat: int,
        move: Move,
        expected_version: int | None,
        timed_out: bool = False,
        state: table.Table | None = None,
    ) -> MoveResult:
        """A move made for ``seat`` without its token (bots, turn timeouts).

        With ``timed_out`` the events start with :class:`TurnTimedOut` (and
        :class:`SeatAway` when the seat keeps missing its turns), so the record
        says the seat did not choose this move. ``state``: the game as just
        loaded, to decide on.
        """

        def decide(state: table.Table) -> list[Event]:
            if timed_out:
                return table.time_out(state, seat, move)
            return table.decide(state, seat, move)

        return self._move(game_id, seat, decide, expected_version, None, None, state)

    def advance(self, game_id: str) -> int:
        """Take every system step due now (deals, settlements, the reveal); returns
        how many were appended. Each step is appended at the version it was
        computed from, so a racing duplicate call appends nothing twice."""
        taken = 0
        for _ in range(MAX_STEPS):
            state = self.load(game_id)
            if table.pending(state) is None:
                break
            seed = self.store.get_secret(game_id)
            if seed is None:
                # The seed is deleted once revealed: a racing caller that revealed it
                # since this load has moved the game on. Only a game still at this
                # version with a step due and no seed has lost it.
                if self.store.version(game_id) != state.version:
                    continue
                raise MissingSecret(f"game {game_id} has no server seed; it cannot deal")
            events = table.advance(state, seed)
            if not events:
                break
            try:
                self.repository.save(state, events)
            except VersionConflict:
                continue  # someone else took this step; look again
            taken += 1
        return taken

    def _move(
        self,
        game_id: str,
        seat: int,
        decide: Decide,
        expected_version: int | None,
        idempotency_key: str | None,
        fingerprint: str | None,
        state: table.Table | None = None,
        last_entry: str | None = None,
    ) -> MoveResult:
        answers: list[tuple[JSON, str]] = []

        def respond(new_state: table.Table, events: Sequence[Event]) -> str:
            body, text = move_body(new_state, events, seat)
            answers.append((body, text))  # the last decision's is the one appended
            return text if fingerprint is None else move_record(fingerprint, text)

        _, _, result = self.repository.commit(
            game_id, decide, expected_version, idempotency_key, respond, state, last_entry
        )
        if result.duplicate:
            return MoveResult(replayed_move(game_id, result, fingerprint), replayed=True)
        assert result.response is not None and answers
        body, text = answers[-1]
        return MoveResult(body, text=text)


__all__ = [
    "Creation",
    "Forbidden",
    "GameService",
    "MissingSecret",
    "MoveResult",
    "SeatGrant",
    "Unauthenticated",
]
