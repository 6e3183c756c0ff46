"""The event store: one Redis stream per game, snapshots, seeds, seat tokens
and the games index.

- :mod:`.eventstore`: :class:`EventStore` (appends, reads, snapshots, seeds,
  tokens) and what it returns (:class:`AppendResult`, :class:`StoredEvent`,
  :class:`RawEvent`, :class:`LoadParts`);
- :mod:`.load`: the load path, :func:`load_game` (one round trip) and the
  in-process :class:`StateCache`;
- :mod:`.keys`: every Redis key; :mod:`.lua`: the scripts (append, load,
  snapshot, index); :mod:`.index`: the sharded games index;
- :mod:`.archive`: exports as JSON Lines and imports;
- :mod:`.clock`: the one clock, Redis's ``TIME``, and the turn deadline's formula;
- :mod:`.clients`: standalone and cluster clients, replicas to wait for;
- :mod:`.errors`: what the store raises.

Modules of this package import each other, schemas and the engines only,
never the service, the API or the workers.
"""

from __future__ import annotations

from .append import Append, Dispatch, Hooks, Projection, Record
from .archive import export_jsonl, import_jsonl
from .errors import (
    BadCursor,
    BadGameId,
    CorruptExport,
    GameExists,
    GameNotFound,
    NotReplicated,
    StoreError,
    VersionConflict,
)
from .eventstore import (
    AppendResult,
    EventStore,
    LoadParts,
    RawEvent,
    StoredEvent,
)
from .index import GameSummary
from .load import STORE_CACHE, load_game, load_game_and_tokens
from .lru import LRU
from .statecache import StateCache

__all__ = [
    "LRU",
    "STORE_CACHE",
    "Append",
    "AppendResult",
    "BadCursor",
    "BadGameId",
    "CorruptExport",
    "Dispatch",
    "EventStore",
    "GameExists",
    "GameNotFound",
    "GameSummary",
    "Hooks",
    "LoadParts",
    "NotReplicated",
    "Projection",
    "RawEvent",
    "Record",
    "StateCache",
    "StoreError",
    "StoredEvent",
    "VersionConflict",
    "export_jsonl",
    "import_jsonl",
    "load_game",
    "load_game_and_tokens",
]
