"""The kit's state file: every key, seat and token it holds, written before and
after each request that makes one, so that a run killed at any point is
continued by ``--resume`` on the same seats (each request repeated with its
saved idempotency key lands once)."""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class TableState:
    game: str
    create_key: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    seat_key: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    game_id: str | None = None
    seat: int | None = None
    token: str | None = None
    fill_bots: int = 0
    bots_seated: bool = False
    ended: bool = False


@dataclass
class State:
    url: str
    client_secret: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    player_id: str | None = None
    player_key: str | None = None
    player_keys_supported: bool | None = None
    tables: list[TableState] = field(default_factory=list)
    path: Path | None = field(default=None, compare=False)

    def save(self) -> None:
        """Write the file atomically (a crash leaves the old one or the new one)."""
        if self.path is None:
            return
        data = {k: v for k, v in asdict(self).items() if k != "path"}
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o600)  # it holds tokens
        os.replace(tmp, self.path)

    @classmethod
    def load(cls, path: Path) -> State:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        tables = [TableState(**t) for t in data.pop("tables", [])]
        return cls(**data, tables=tables, path=path)
