"""The stream benchmark's clients: thousands of seat streams on one event loop.

Each stream is one HTTP/1.0 request (no chunks: the stream is the rest of
the connection) from an address of its own per 8 streams (``X-Forwarded-For``,
the server trusting one proxy). Each ``event`` line's delay is the client's
clock at arrival less the event's ``at_ms`` (Redis's clock at the append,
the same host), kept per phase; lines are counted, not parsed, but for that
one field.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Final

AT_MS: Final = re.compile(rb'"kind":"event".*?"at_ms":(\d+)')


@dataclass
class Tally:
    """What the crowd saw, by phase."""

    phase: str = "open"
    delays_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    lines: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    opened: int = 0
    refused: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    failed: int = 0
    ended: int = 0


class StreamCrowd:
    """Streams held open from one thread's event loop."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.tally = Tally()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.writers: list[asyncio.StreamWriter] = []
        self.drains: list[asyncio.Future[None]] = []

    def open(self, streams: list[tuple[str, str]], first: int, timeout_s: float) -> None:
        """Open ``(game_id, token)`` streams, 100 at a time, until all are open or
        ``timeout_s`` has passed."""

        async def all_of() -> None:
            for start in range(0, len(streams), 100):
                batch = streams[start : start + 100]
                await asyncio.gather(
                    *(self._open(g, t, first + start + i) for i, (g, t) in enumerate(batch))
                )

        future = asyncio.run_coroutine_threadsafe(all_of(), self.loop)
        try:
            future.result(timeout_s)
        except TimeoutError:
            future.cancel()

    async def _open(self, game_id: str, token: str, n: int) -> None:
        for attempt in range(4):  # a refusal (503 while the server is swamped) is tried again
            if await self._try_open(game_id, token, n):
                return
            await asyncio.sleep(1 + attempt)

    async def _try_open(self, game_id: str, token: str, n: int) -> bool:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError:
            self.tally.failed += 1
            return True
        self.writers.append(writer)
        address = f"10.{n // 8 // 62500}.{n // 8 // 250 % 250}.{n // 8 % 250 + 1}"
        writer.write(
            f"GET /games/{game_id}/events HTTP/1.0\r\nHost: bench\r\n"
            f"Accept: application/x-ndjson\r\nAuthorization: Bearer {token}\r\n"
            f"X-Forwarded-For: {address}\r\n\r\n".encode()
        )
        status = await reader.readline()
        code = int(status.split()[1]) if len(status.split()) > 1 else 0
        if code != 200:
            self.tally.refused[code] += 1
            writer.close()
            return False
        while await reader.readline() not in (b"\r\n", b""):
            pass
        await reader.readline()  # the view
        self.tally.opened += 1
        self.drains.append(asyncio.ensure_future(self._drain(reader)))
        return True

    async def _drain(self, reader: asyncio.StreamReader) -> None:
        tally = self.tally
        while line := await reader.readline():
            tally.lines[tally.phase] += 1
            found = AT_MS.search(line)
            if found is not None:
                delay = time.time() * 1000 - int(found.group(1))
                tally.delays_ms[tally.phase].append(delay)
        tally.ended += 1

    def close(self) -> None:
        async def close_all() -> None:
            for writer in self.writers:
                writer.close()

        asyncio.run_coroutine_threadsafe(close_all(), self.loop).result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
