"""The live stream as an iterator that never loses its place.

It keeps a cursor per game (the last event version it yielded). After any drop
(a reset connection, a restarted server, a stream the server ended without an
``end`` line, or a connection silent for twice the keep-alive interval) it
reconnects with those cursors, so the server sends exactly the events after
them: it yields no event twice and skips none, and counts what it saw in
:class:`StreamStats`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from .errors import GaveUp, ProblemError
from .lines import Line, parse_line
from .retry import TRANSPORT_ERRORS, Attempts
from .transport import Transport

NDJSON = "application/x-ndjson"


@dataclass
class StreamStats:
    connections: int = 0
    lines: int = 0
    duplicates: int = 0
    """Event lines at or below their game's cursor, dropped (a resume overlap)."""
    gaps: int = 0
    """Event lines past their cursor + 1: the stream resumed from the cursor instead."""
    silences: int = 0
    """Connections dropped for saying nothing for twice the keep-alive interval."""


@dataclass
class LiveStream(Iterator[Line]):
    """A game's stream (``game_id`` set) or the player's stream (``game_id`` None)."""

    transport: Transport
    path: str
    headers: dict[str, str]
    keepalive_s: float
    views: bool = True
    game_id: str | None = None
    cursors: dict[str, int] = field(default_factory=dict)
    ended: set[str] = field(default_factory=set)
    games: dict[str, str] = field(default_factory=dict)
    stats: StreamStats = field(default_factory=StreamStats)
    on_connect: Callable[[], None] | None = None
    """Called on each (re)connection: a player stream resumed from its cursors sends
    no view of a game where nothing happened since, so its reader reads them here."""
    _lines: Iterator[Line] | None = field(default=None, repr=False)

    def __iter__(self) -> LiveStream:
        return self

    def __next__(self) -> Line:
        if self._lines is None:
            self._lines = self._run()
        return next(self._lines)

    def close(self) -> None:
        if self._lines is not None:
            self._lines.close()  # type: ignore[attr-defined]

    # -- the loop -------------------------------------------------------------------
    def _run(self) -> Iterator[Line]:
        attempts = Attempts(self.transport.policy)
        while not (self.game_id is not None and self.game_id in self.ended):
            try:
                with self._open() as response:
                    self.stats.connections += 1
                    if response.status_code >= 400:
                        response.read()
                        self._refused(response, attempts)
                        continue
                    if self.on_connect is not None:
                        self.on_connect()
                    for line in self._read(response):
                        attempts = Attempts(self.transport.policy)
                        yield line
                        if self.game_id is not None and self.game_id in self.ended:
                            return
            except httpx.ReadTimeout:
                self.stats.silences += 1
            except TRANSPORT_ERRORS as exc:
                if not attempts.backoff():
                    raise GaveUp(f"stream {self.path}: no answer ({exc!r})") from exc
            except _Resync:
                pass

    def _open(self) -> Any:
        timeout = httpx.Timeout(self.transport.http.timeout.connect, read=2 * self.keepalive_s)
        return self.transport.http.stream(
            "GET",
            self.path,
            params=self._params(),
            headers={**self.headers, "Accept": NDJSON},
            timeout=timeout,
        )

    def _params(self) -> dict[str, str]:
        params = {"views": "true"} if self.views else {}
        if self.game_id is not None:
            if self.game_id in self.cursors:
                params["after"] = str(self.cursors[self.game_id])
        elif self.cursors:
            params["after"] = ",".join(f"{g}:{v}" for g, v in sorted(self.cursors.items()))
        return params

    def _refused(self, response: httpx.Response, attempts: Attempts) -> None:
        error = ProblemError.from_response(response)
        if error.status not in (429, 503):
            raise error
        pause = error.retry_after or self.transport.policy.default_retry_after_s
        if not attempts.wait(pause):
            raise GaveUp(f"stream {self.path}: still refused ({error})") from error

    def _read(self, response: httpx.Response) -> Iterator[Line]:
        for text in response.iter_lines():
            line = parse_line(text, self.game_id, self.games.get(self.game_id or ""))
            if line is None:
                continue
            if line.game_id is not None and line.game is not None:
                self.games[line.game_id] = line.game
            self.stats.lines += 1
            if self._keep(line):
                yield line

    def _keep(self, line: Line) -> bool:
        """Whether to yield ``line``, moving its game's cursor; raises _Resync on a gap."""
        gid = line.game_id
        if gid is None:
            return True
        last = self.cursors.get(gid)
        if line.kind == "event":
            if last is not None and line.version <= last:
                self.stats.duplicates += 1
                return False
            if last is not None and line.version > last + 1:
                self.stats.gaps += 1
                raise _Resync
            self.cursors[gid] = line.version
        elif line.kind == "view" and last is None:
            self.cursors[gid] = line.version  # the view holds everything up to it
        elif line.kind == "end":
            self.ended.add(gid)
        return True


class _Resync(Exception):
    """Reconnect from the cursors at once."""
