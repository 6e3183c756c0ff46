"""The player's live stream: every game of a player's bound seats on one stream.

One :class:`PlayerStream` per ``GET /players/me/events``. It follows each
bound game through the process's hub as a game's own stream does (one
subscriber per game, all sharing the stream's signal) and the player's
seats stream through the hub too (:class:`SeatsWatch`, one per player and
process), so a seat bound after the stream opened joins it at once.

Each game's lines are the per-game stream's with ``game_id`` added; a game
whose cursor the client sent starts with its events after that version, any
other with its view. At most ``max_games`` games are followed at once: the
newest bound; a game bound beyond that is announced and followed as soon as
a followed game ends (an ended game is let go once its ``end`` is sent).
"""

from __future__ import annotations

import json
from collections import deque

from service.games import GameService
from service.hub import Hub, Signal
from service.hub.reader import Rows
from service.store import StoreError
from service.store.players import Binding, Players, parse, seats_key

from .live import Following, catch_up, finished, line, opening

KEEPALIVE = '{"kind":"keepalive","version":0}\n'


class Listener:
    """A player stream's place on its player's :class:`SeatsWatch`."""

    __slots__ = ("bound", "closed", "signal")

    def __init__(self, signal: Signal) -> None:
        self.signal = signal
        self.bound: deque[Binding] = deque()
        self.closed: str | None = None


class SeatsWatch:
    """The hub's watch of one player's seats stream, for this process's streams of it."""

    def __init__(self, key: str, cursor: str) -> None:
        self._key = key
        self._cursor = cursor
        self.listeners: set[Listener] = set()

    @property
    def key(self) -> str:
        return self._key

    @property
    def cursor(self) -> str:
        return self._cursor

    @property
    def idle(self) -> bool:
        return not self.listeners

    def join(self, listener: Listener) -> str:
        self.listeners.add(listener)
        return self._cursor

    def on_rows(self, rows: Rows) -> None:
        self._cursor = rows[-1][0].decode()
        bindings = parse(rows)
        for listener in self.listeners:
            listener.bound.extend(bindings)
            listener.signal.set()

    def close(self, reason: str) -> None:
        for listener in self.listeners:
            listener.closed = reason
            listener.signal.set()
        self.listeners.clear()


def with_game(text: str, game_id: str) -> str:
    """Every line of ``text`` (NDJSON, each an object) with ``game_id`` added first."""
    if not text:
        return text
    prefix = '{"game_id":' + json.dumps(game_id) + ","
    return (prefix + text[1:]).replace("\n{", "\n" + prefix)


def _entry_order(binding: Binding) -> tuple[int, int]:
    ms, _, seq = binding.entry.partition("-")
    return int(ms), int(seq)


class PlayerStream:
    """The lines of one player's stream (see the module's documentation): its
    opening (:meth:`open`), then a :class:`~service.parking.Lines`."""

    __slots__ = (
        "_watch",
        "cursors",
        "games",
        "hub",
        "keepalive_ms",
        "listener",
        "max_games",
        "player_id",
        "players",
        "seen",
        "signal",
        "svc",
        "views",
        "waiting",
    )

    def __init__(
        self,
        svc: GameService,
        hub: Hub,
        players: Players,
        player_id: str,
        cursors: dict[str, int],
        signal: Signal,
        *,
        keepalive_ms: int,
        views: bool,
        max_games: int,
    ) -> None:
        self.svc = svc
        self.hub = hub
        self.players = players
        self.player_id = player_id
        self.cursors = cursors
        self.keepalive_ms = keepalive_ms
        self.views = views
        self.max_games = max_games
        self.signal = signal
        self.listener = Listener(signal)
        self.games: dict[str, Following] = {}
        self.seen: set[str] = set()
        self.waiting: deque[tuple[Binding, bool]] = deque()
        self._watch: SeatsWatch | None = None

    def open(self) -> str:
        """The stream's opening (each game's view, or its events after the
        client's cursor); on failure everything it followed is let go."""
        try:
            return self._open()
        except BaseException:
            self.close()
            raise

    def take(self) -> tuple[str, bool]:
        text = self._collect()
        if text is None:
            return "", True  # dropped as too slow, or Redis lost: the client resumes
        return text, False

    def keepalive(self) -> str | None:
        self._let_go_of_gone()
        return KEEPALIVE

    def _open(self) -> str:
        key = seats_key(self.player_id)
        first = self.players.last_entry(self.player_id)

        def make() -> SeatsWatch:
            self._watch = SeatsWatch(key, first)
            return self._watch

        def join(watch: SeatsWatch) -> str:
            self._watch = watch
            return watch.join(self.listener)

        upto = self.hub.attach(key, make, SeatsWatch, join)
        bound = self.players.bindings(self.player_id, upto)
        newest: dict[str, Binding] = {}
        for binding in reversed(bound):  # a game's first-bound seat is the one followed
            newest.pop(binding.game_id, None)
            newest[binding.game_id] = binding
        chosen = sorted(newest.values(), key=_entry_order, reverse=True)
        return "".join(self._follow(b, announce=False) for b in chosen)

    def _follow(self, binding: Binding, *, announce: bool) -> str:
        if binding.game_id in self.seen:
            return ""
        if len(self.games) >= self.max_games:
            self.waiting.append((binding, announce))
            return ""
        try:
            state = self.svc.load(binding.game_id)
        except StoreError:
            return ""  # the game is no longer kept
        self.seen.add(binding.game_id)
        seat, game_id = binding.seat, binding.game_id
        parts = []
        if announce:
            parts.append(line("seat", state.version, game=binding.game, seat=seat))
        after = self.cursors.get(game_id)
        if finished(state):
            first = catch_up(self.svc, state, seat, after) if after is not None else None
            parts.append(opening(self.svc, state, seat, None) if first is None else first)
            parts.append(line("end", state.version))
            return with_game("".join(parts), game_id)
        sub, start = self.hub.subscribe(state, seat, self.signal)
        if after is None:
            parts.append(opening(self.svc, start, seat, None))
        else:
            parts.append(catch_up(self.svc, start, seat, after))
        self.games[game_id] = Following(sub, seat, start.version)
        return with_game("".join(parts), game_id)

    def _collect(self) -> str | None:
        """Everything new: seats bound, each game's batches; ``None`` when the hub let go."""
        if self.listener.closed is not None:
            return None
        parts = []
        while self.listener.bound:
            parts.append(self._follow(self.listener.bound.popleft(), announce=True))
        for game_id, game in list(self.games.items()):
            batches = game.sub.take()
            if not batches and game.sub.closed is not None:
                return None
            if batches:
                parts.append(with_game(game.text(batches, self.views), game_id))
            if game.ended:
                self._let_go(game_id)
        while self.waiting and len(self.games) < self.max_games:
            binding, announce = self.waiting.popleft()
            parts.append(self._follow(binding, announce=announce))
        return "".join(parts)

    def _let_go(self, game_id: str) -> None:
        game = self.games.pop(game_id)
        self.hub.unsubscribe(game.sub)

    def _let_go_of_gone(self) -> None:
        for game_id, game in list(self.games.items()):
            if self.hub.gone(game.sub, self.keepalive_ms):
                self._let_go(game_id)

    def close(self) -> None:
        for game in self.games.values():
            self.hub.unsubscribe(game.sub)
        self.games.clear()
        watch, self._watch = self._watch, None
        if watch is not None:
            with self.hub.lock:
                watch.listeners.discard(self.listener)
            self.hub.detach(watch)
