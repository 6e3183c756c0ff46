"""Playing the kit's seats to the end: one stream for all of them (the player's
stream, with a player key), else one game stream per seat, each on a thread."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..client import Client, Move
from ..errors import ProblemError
from ..lines import Line, View
from .state import State, TableState

log = logging.getLogger("cardroom_bot")
Choose = Callable[[View], Move | None]
"""The author's function: the move to make on this view (None: the first legal move)."""


def first_legal(view: View) -> Move | None:
    moves = view.legal_moves or []
    return moves[0] if moves else None


@dataclass
class Runner:
    client: Client
    choose: Choose
    state: State
    moves: int = 0
    fallbacks: int = 0
    acted: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    # -- deciding ---------------------------------------------------------------------
    def decide(self, view: View) -> Move | None:
        """The author's move, or the first legal one if ``choose`` fails or says None."""
        try:
            move = self.choose(view)
        except Exception:
            log.exception(
                "choose() failed on %s v%s: playing the first legal move",
                view.game_id,
                view.version,
            )
            move = None
        if move is None:
            self.fallbacks += 1
            return first_legal(view)
        return move

    def act(self, table: TableState, view: View) -> None:
        """Move if ``view`` is this seat's turn and not yet answered."""
        gid = table.game_id
        if gid is None or table.token is None or not view.legal_moves:
            return
        if self.acted.get(gid, -1) >= view.version:
            return
        self.acted[gid] = view.version
        try:
            done = self.client.play(gid, table.token, self.decide, view)
        except ProblemError as exc:
            if exc.status != 422:
                raise
            log.warning("%s refused %s: %s; playing the first legal move", gid, exc.code, exc)
            self.fallbacks += 1
            done = self.client.play(gid, table.token, first_legal)
        if done is not None:
            self.moves += 1
            # views before this move's version (still queued on the stream) are stale; the
            # view at its version may be this seat's turn again (a trick it led and won)
            self.acted[gid] = max(self.acted[gid], done.version - 1)

    # -- following --------------------------------------------------------------------
    def on_line(self, tables: dict[str, TableState], line: Line) -> None:
        table = tables.get(line.game_id or "")
        if table is None:
            return
        if line.kind == "view" and line.view is not None:
            self.act(table, line.view)
        elif line.kind == "end":
            self.finish(table)

    def finish(self, table: TableState) -> None:
        if table.ended:
            return
        table.ended = True
        with self.lock:
            self.state.save()
        log.info("%s %s ended", table.game, table.game_id)

    def run(self) -> None:
        """Play every seat of the state until each of its games has ended."""
        open_tables = [t for t in self.state.tables if not t.ended and t.token is not None]
        if not open_tables:
            return
        if self.state.player_key is not None:
            self._follow_player(open_tables)
        elif len(open_tables) == 1:
            self._follow_game(open_tables[0])
        else:
            with ThreadPoolExecutor(len(open_tables)) as pool:
                list(pool.map(self._follow_game, open_tables))

    def _follow_game(self, table: TableState) -> None:
        assert table.game_id is not None
        stream = self.client.stream(table.game_id, table.token)
        self._consume({table.game_id: table}, stream)

    def _follow_player(self, tables: Iterable[TableState]) -> None:
        assert self.state.player_key is not None
        by_id = {t.game_id: t for t in tables if t.game_id is not None}
        stream = self.client.player_stream(self.state.player_key)

        def catch_up() -> None:
            """On a reconnection: act on each open game's view of now (the stream
            resumes from its cursors and sends no view where nothing happened)."""
            if stream.stats.connections > 1:
                for table in by_id.values():
                    if not table.ended and table.game_id and table.token:
                        self.act(table, self.client.view(table.game_id, table.token))

        stream.on_connect = catch_up
        self._consume(by_id, stream)

    def _consume(self, tables: dict[str, TableState], lines: Any) -> None:
        try:
            for line in lines:
                self.on_line(tables, line)
                if all(t.ended for t in tables.values()):
                    return
        finally:
            lines.close()
