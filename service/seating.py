"""Taking a seat: the next free one, a token for a person, the first deal once full.

A seat request with an idempotency key is retry-safe: its record keeps the
seat taken (:func:`service.idempotency.seat_record`), and a retry gets the
same seat and the same token, derived from the key (:mod:`service.seattokens`);
the key sent with a different request is
:class:`~service.errors.IdempotencyKeyReused`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from service.engines import table
from service.engines.base import Event
from service.idempotency import SEAT_IDEMPOTENCY, replayed_seat, seat_fingerprint
from service.idempotency import seat_record as _kept_seat
from service.store import AppendResult, VersionConflict

from .bodies import SeatGrant, seat_record
from .errors import MissingSecret
from .repository import GameRepository, touch_quietly
from .seataccess import SeatAccess


def creator_mark(scope: str) -> str:
    """What the store keeps of the client that opened a table: a digest of its
    creation scope (:func:`service.idempotency.creation_scope`, itself made of
    digests or the address), so that its first seat can be marked the
    creator's (:class:`~service.engines.table.SeatTaken`)."""
    return hashlib.sha256(f"cardroom-creator\0{scope}".encode()).hexdigest()[:32]


class Seating:
    """The seat command over ``repository``; ``advance(game_id)`` takes the
    system steps due (the first deal, once every seat is taken)."""

    def __init__(
        self, repository: GameRepository, seats: SeatAccess, advance: Callable[[str], int]
    ) -> None:
        self.repository = repository
        self.seats = seats
        self.advance = advance

    def take(
        self,
        game_id: str,
        name: str,
        client_seed: str | None,
        bot: bool,
        idempotency_key: str | None,
        scope: str | None = None,
    ) -> SeatGrant:
        """The next free seat (see :meth:`service.games.GameService.take_seat`);
        ``scope``: the requesting client's (marks the creator's seat)."""
        fingerprint = seat_fingerprint(name, client_seed, bot)
        stored_key = None if idempotency_key is None else SEAT_IDEMPOTENCY + idempotency_key
        earlier = self._earlier(game_id, stored_key)
        if earlier is None:
            server_seed = None if client_seed is not None else self._server_seed(game_id)
            creator = self._is_creator(game_id, scope, bot)
            try:
                state, events, result = self.repository.commit(
                    game_id,
                    lambda state: _take(state, name, client_seed, bot, server_seed, creator),
                    None,
                    stored_key,
                    lambda _, events: _kept_seat(fingerprint, seat_record(_taken(events))),
                )
            except VersionConflict:
                earlier = self._earlier(game_id, stored_key)
                if earlier is None:
                    raise
            else:
                if not result.duplicate:
                    return self._seated(state, _taken(events), idempotency_key)
                earlier = result
        assert idempotency_key is not None
        return self._seat_again(game_id, idempotency_key, earlier, fingerprint)

    def _server_seed(self, game_id: str) -> bytes | None:
        """The game's secret seed, from which a seat given no seed gets its own
        (``None`` once revealed: the game is over and the seat is refused)."""
        return self.repository.store.get_secret(game_id)

    def _is_creator(self, game_id: str, scope: str | None, bot: bool) -> bool:
        """Whether a person's seat requested by ``scope`` is the table creator's client."""
        if scope is None or bot:
            return False
        return self.repository.store.creator_mark(game_id) == creator_mark(scope)

    def _earlier(self, game_id: str, stored_key: str | None) -> AppendResult | None:
        """The record of an earlier request with this key, if there is one."""
        return self.repository.store.idempotent_result(game_id, stored_key) if stored_key else None

    def _seated(
        self, state: table.Table, taken: table.SeatTaken, idempotency_key: str | None
    ) -> SeatGrant:
        """The answer to a seat just taken; the first deal when it was the last."""
        game_id = state.game_id
        token = self.seats.issue(game_id, taken.seat, taken.bot, idempotency_key)
        if not taken.bot:
            touch_quietly(self.repository.store, game_id)
        if state.seated:
            self.advance(game_id)
        return SeatGrant(taken.seat, taken.name, taken.bot, taken.client_seed, token, state)

    def _seat_again(
        self, game_id: str, idempotency_key: str, earlier: AppendResult, fingerprint: str
    ) -> SeatGrant:
        """The answer to a retried seat request: the same seat and token."""
        record = replayed_seat(game_id, earlier, fingerprint)
        seat = int(record["seat"])
        state = self.repository.load(game_id)
        info = state.seats[seat]
        bot = info.bot if info is not None else False
        # the first attempt may have died before storing the token's hash: store it again
        token = self.seats.issue(game_id, seat, bot, idempotency_key)
        if state.seated and table.pending(state) is not None:
            self.advance(game_id)
            state = self.repository.load(game_id)
        return SeatGrant(seat, record["name"], bot, record["client_seed"], token, state)


def _take(
    state: table.Table,
    name: str,
    client_seed: str | None,
    bot: bool,
    server_seed: bytes | None,
    creator: bool = False,
) -> list[Event]:
    """:func:`table.take_seat`; a seat to derive a seed for needs the server seed."""
    if client_seed is None and server_seed is None and not state.over and not state.seated:
        raise MissingSecret(f"game {state.game_id} has no server seed to derive a seat's seed")
    return table.take_seat(state, name, client_seed, bot, server_seed, creator)


def _taken(events: Sequence[Event]) -> table.SeatTaken:
    taken = events[0]
    assert isinstance(taken, table.SeatTaken)
    return taken
