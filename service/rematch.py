"""Rematches: the same game with the same options and seats, once each seat played by a
person has asked for it at the ended game (a bot's seat always agrees).

The request that completes the confirmations opens the next game and seats everyone in
the old order: bots as bots, each person under the same name with a seat idempotency key
of the old game and seat (:func:`rematch_key`). That seat's token is therefore derived,
never stored (:mod:`service.seattokens`): whenever the old seat's token asks, it is
derived again for the seat noted for it, so each player (on any device holding the old
seat link) lands in the next game at their own seat.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.engines import table

from .errors import GameNotOver
from .games import GameService
from .seattokens import derive_token
from .store.rematches import Asked


def rematch_key(game_id: str, seat: int) -> str:
    """The seat idempotency key a rematch of ``game_id`` seats ``seat`` with."""
    return f"rematch:{game_id}:{seat}"


@dataclass(frozen=True)
class NextSeat:
    game_id: str
    seat: int
    token: str


@dataclass(frozen=True)
class RematchStatus:
    game_id: str
    seat: int
    confirmed: list[int]
    waiting_for: list[int]
    next: NextSeat | None


def _people(state: table.Table) -> list[int]:
    return [s for s, info in enumerate(state.seats) if info is not None and not info.bot]


class Rematches:
    """Asking for and reading rematches, over the game service."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        self.store = games.store.rematches

    def confirm(self, game_id: str, token: str | None) -> RematchStatus:
        """The seat of ``token`` asks for the rematch of its ended game
        (:class:`GameNotOver` before the end); the last one to ask opens it."""
        seat, state = self.games.seat_and_state(game_id, token)
        if not state.over:
            raise GameNotOver(game_id)
        asked = self.store.confirm(game_id, seat)
        if asked.game is None and set(_people(state)) <= asked.seats and self.store.claim(game_id):
            try:
                next_id, seats = self._open(state)
            except BaseException:
                self.store.release(game_id)
                raise
            self.store.opened(game_id, next_id, seats)
            asked = Asked(asked.seats, next_id, seats)
        return self._status(state, seat, asked)

    def status(self, game_id: str, token: str | None) -> RematchStatus:
        """Where the rematch of the seat of ``token`` stands."""
        seat, state = self.games.seat_and_state(game_id, token)
        return self._status(state, seat, self.store.read(game_id))

    def _open(self, state: table.Table) -> tuple[str, dict[int, int]]:
        """The next game, every seat taken in the old order; its id and each old seat's
        seat there."""
        fresh = self.games.create_game(state.kind, state.options, state.seat_count)
        seats: dict[int, int] = {}
        for s, info in enumerate(state.seats):
            assert info is not None  # an ended game had every seat taken
            key = None if info.bot else rematch_key(state.game_id, s)
            seats[s] = self.games.take_seat(fresh.game_id, info.name, None, info.bot, key).seat
        return fresh.game_id, seats

    def _status(self, state: table.Table, seat: int, asked: Asked) -> RematchStatus:
        people = _people(state)
        willing = sorted(asked.seats | {s for s in range(state.seat_count) if s not in people})
        waiting = [s for s in people if s not in asked.seats]
        return RematchStatus(state.game_id, seat, willing, waiting, self._next(state, seat, asked))

    def _next(self, state: table.Table, seat: int, asked: Asked) -> NextSeat | None:
        """This seat's place in the next game: its seat there and its token, derived."""
        if asked.game is None or seat not in asked.next_seats:
            return None
        new = asked.next_seats[seat]
        key = self.games.store.seat_token_key()
        return NextSeat(
            asked.game, new, derive_token(key, asked.game, new, rematch_key(state.game_id, seat))
        )
