"""Clients generated from the live ``/openapi.json`` read real answers, typed.

A Python client (openapi-python-client) and TypeScript types
(openapi-typescript), each generated with its default settings
(:mod:`.generated`), meet the answers of real tables of all three games: the
Python client plays them against the app (creating tables with bots, taking
seats, reading views, making moves, reading pages of events) and reads the
live stream's lines by the document's ``StreamLine`` union; the TypeScript
compiler checks every answer against its type in strict mode, where a field the
type does not declare is an error. Nothing may be left untyped: no field read
into a generic ``additional_properties`` map, no plain dict where a model
belongs, no ``unknown`` in the types the answers reach (but for the two
documented free-form objects).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import attrs
import httpx
import pytest
from flask import Flask

from service.config import load_settings
from workers.embedded import EmbeddedWorker

from . import generated
from .conftest import make_app
from .test_probes import runtime_of

pytestmark = pytest.mark.xdist_group("generated-clients")
"""One worker runs the module: its generated clients are built once, in one cache."""

FREE_FORM: Final = frozenset({"TableGameCreatedOptions", "TableGameAbandonedStandingsType0"})
"""Objects that are free-form by design: the options a table was created with,
as its creation event records them, and the standings of an abandoned table."""
FREE_FORM_TS: Final = frozenset(
    {("TableGameCreated", "options"), ("TableGameAbandoned", "standings")}
)
ROOTS: Final = ("GameView", "MoveAccepted", "EventsPage", "StreamLine", "GameCreated")
TABLES: Final = (
    ("hazari", None, {}),
    ("murlan", None, {}),
    ("azi", 2, {"buy_in": 20, "ante": 10, "min_bet": 10}),  # over in a hand or two
    ("azi", 3, {"cards": 4, "deck": 36}),  # the four-card deal: discards
)
MOVES_PER_TABLE: Final = 16
TS_SAMPLES: Final = 4
"""Answers of one schema and one game (or line kind) the TypeScript check takes."""


@dataclass
class Samples:
    """Real answers, as JSON, by the schema they are typed with."""

    json: dict[str, list[Any]] = field(default_factory=dict)
    parsed: list[Any] = field(default_factory=list)
    games: set[str] = field(default_factory=set)
    kinds: set[str] = field(default_factory=set)

    def add(self, schema: str, raw: Any, parsed: Any) -> None:
        self.json.setdefault(schema, []).append(raw)
        self.parsed.append(parsed)


@pytest.fixture(scope="module")
def app() -> Flask:
    return make_app(load_settings(stream_keepalive_s=0.2), RATELIMIT_ENABLED=False)


@pytest.fixture(scope="module")
def doc(app: Flask) -> dict[str, Any]:
    body: dict[str, Any] = app.test_client().get("/openapi.json").get_json()
    return body


@pytest.fixture(scope="module")
def cache(request: pytest.FixtureRequest) -> Path:
    return Path(request.config.cache.mkdir("generated-clients"))


@pytest.fixture(scope="module")
def client_pkg(cache: Path, doc: dict[str, Any]) -> ModuleType:
    return generated.python_client(cache, doc)


def _sub(pkg: ModuleType, name: str) -> Any:
    import importlib

    return importlib.import_module(f"{pkg.__name__}.{name}")


def _model(pkg: ModuleType, schema: str) -> Any:
    module = re.sub(r"(?<!^)(?=[A-Z])", "_", schema).lower()
    module = re.sub(r"_(\d)", r"\1", module)
    return getattr(_sub(pkg, f"models.{module}"), schema)


@pytest.fixture(scope="module")
def samples(app: Flask, client_pkg: ModuleType, doc: dict[str, Any]) -> Samples:
    """Tables of every game played through the generated client: one human seat
    taking its first legal move, house bots (seated at creation, delay 0) the rest."""
    out = Samples()
    worker = EmbeddedWorker(runtime_of(app))
    base = {
        "base_url": "http://cardroom.test",
        "httpx_args": {"transport": httpx.WSGITransport(app=app)},
    }
    public = _sub(client_pkg, "client").Client(**base)
    for game, seats, options in TABLES:
        game_id, token = _open(client_pkg, public, out, game, seats, options)
        seat = _sub(client_pkg, "client").AuthenticatedClient(token=token, **base)
        for _ in range(MOVES_PER_TABLE):
            worker.drain()
            view = _view(client_pkg, public, out, game_id)
            mine = _view(client_pkg, seat, out, game_id)
            if view["status"] == "ended" or not mine["legal_moves"]:
                break
            _move(client_pkg, seat, out, game_id, mine)
        worker.drain()
        _events(client_pkg, public, out, game_id)
        _stream(app, doc, client_pkg, out, game_id, token)
    return out


def _open(
    pkg: ModuleType, public: Any, out: Samples, game: str, seats: int | None, options: Any
) -> tuple[str, str]:
    count = seats or 4
    body: dict[str, Any] = {
        "game": game,
        "options": {**options, "bot_delay_s": 0, "turn_timeout_s": "none"},
        "bots": [{"seat": s, "name": f"bot {s}"} for s in range(1, count)],
    }
    if seats:
        body["seats"] = seats
    request = _model(pkg, "CreateGameRequest").from_dict(body)
    created = _sub(pkg, "api.games.post_games").sync_detailed(client=public, body=request)
    assert created.status_code == 201, created.content
    out.add("GameCreated", json.loads(created.content), created.parsed)
    game_id = created.parsed.game_id
    taken = _sub(pkg, "api.seats.post_games_game_id_seats").sync_detailed(
        game_id, client=public, body=_model(pkg, "TakeSeatRequest").from_dict({"name": "me"})
    )
    assert taken.status_code == 201 and taken.parsed.seat == 0, taken.content
    out.games.add(game)
    return game_id, str(taken.parsed.token)


def _view(pkg: ModuleType, client: Any, out: Samples, game_id: str) -> Any:
    got = _sub(pkg, "api.games.get_games_game_id").sync_detailed(game_id, client=client)
    assert got.status_code == 200, got.content
    raw = json.loads(got.content)
    assert type(got.parsed).__name__ == raw["game"].capitalize() + "View"
    out.add("GameView", raw, got.parsed)
    return raw


def _move(pkg: ModuleType, seat: Any, out: Samples, game_id: str, view: Any) -> None:
    legal = view["legal_moves"][0]
    body = _model(pkg, "MoveRequest").from_dict(
        {"move": legal, "expected_version": view["version"]}
    )
    assert body.to_dict()["move"] == legal  # the move union reads and writes it back
    made = _sub(pkg, "api.moves.post_games_game_id_moves").sync_detailed(
        game_id, client=seat, body=body
    )
    assert made.status_code == 201, made.content
    out.add("MoveAccepted", json.loads(made.content), made.parsed)


def _events(pkg: ModuleType, public: Any, out: Samples, game_id: str) -> None:
    page = _sub(pkg, "api.events.get_games_game_id_events").sync_detailed(
        game_id, client=public, limit=1000
    )
    assert page.status_code == 200, page.content
    out.add("EventsPage", json.loads(page.content), page.parsed)


def _stream(
    app: Flask, doc: dict[str, Any], pkg: ModuleType, out: Samples, game_id: str, token: str
) -> None:
    """The seat's live stream from the start: its view, every event, then the
    end (an ended game) or a keep-alive (a running one)."""
    r = app.test_client().get(
        f"/games/{game_id}/events?after=0&views=true",
        headers={"Accept": "application/x-ndjson", "Authorization": f"Bearer {token}"},
        buffered=False,
    )
    assert r.status_code == 200
    try:
        for chunk in r.response:
            for line in chunk.decode().splitlines():
                raw = json.loads(line)
                out.add("StreamLine", raw, _stream_line(doc, pkg, raw))
                out.kinds.add(raw["kind"])
                if raw["kind"] in ("keepalive", "end"):
                    return
    finally:
        r.close()


def _stream_line(doc: dict[str, Any], pkg: ModuleType, raw: Any) -> Any:
    """A line read as a generated client reads a union: the first member of the
    document's ``StreamLine`` (members that are unions in turn) that takes it."""

    def read(schema: str) -> Any:
        members = doc["components"]["schemas"][schema].get("oneOf")
        if members is None:
            return _model(pkg, schema).from_dict(raw)
        for member in members:
            try:
                return read(member["$ref"].rsplit("/", 1)[1])
            except (TypeError, ValueError, KeyError, AttributeError):
                continue
        raise ValueError(f"no member of {schema} reads {raw}")

    return read("StreamLine")


def untyped(value: Any, pkg: str, at: str = "") -> list[str]:
    """Where a generated model took a field it does not declare, or holds a
    plain dict, within ``value``."""
    found: list[str] = []
    if attrs.has(type(value)):
        name = type(value).__name__
        extra = getattr(value, "additional_properties", {})
        if extra and name not in FREE_FORM:
            found.append(f"{at} ({name}): {sorted(extra)}")
        for f in attrs.fields(type(value)):
            if f.name != "additional_properties":
                found.extend(untyped(getattr(value, f.name), pkg, f"{at}.{f.name}"))
    elif isinstance(value, dict):
        found.append(f"{at}: a dict")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(untyped(item, pkg, f"{at}[{i}]"))
    return found


def test_the_python_client_reads_every_answer_of_every_game_typed(
    samples: Samples, client_pkg: ModuleType
) -> None:
    assert samples.games == {"hazari", "murlan", "azi"}
    assert samples.kinds == {"view", "event", "keepalive", "end"}
    assert len(samples.parsed) > 100
    problems = [p for parsed in samples.parsed for p in untyped(parsed, client_pkg.__name__)]
    assert not problems, problems[:20]
    # the typed parts the contract promises, by their generated classes
    views = [p for p in samples.parsed if type(p).__name__.endswith("View")]
    moves = {
        type(m).__name__ for v in views if isinstance(v.legal_moves, list) for m in v.legal_moves
    }
    assert {"HazariArrange", "MurlanPlay", "AziBet", "AziDiscard"} <= moves, moves
    tables = {type(v.table).__name__ for v in views}
    assert tables == {"HazariTable", "MurlanTable", "AziTable"}
    events = {
        type(e).__name__
        for p in samples.parsed
        if type(p).__name__.endswith("EventsPage")
        for e in p.events
    }
    assert {"MurlanCardsPlayed", "HazariArranged", "AziBetPlaced", "TableSeatTaken"} <= events


def _schemas_reached(doc: dict[str, Any]) -> set[str]:
    schemas = doc["components"]["schemas"]
    seen: set[str] = set()
    todo = list(ROOTS)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(
            re.findall(r'"#/components/schemas/([A-Za-z0-9_]+)"', json.dumps(schemas[name]))
        )
    return seen


def _ts_blocks(text: str) -> dict[str, str]:
    """Each component's declaration in openapi-typescript's output, by name."""
    start = text.index("export interface components {")
    schemas = text[text.index("schemas: {", start) :]
    blocks: dict[str, str] = {}
    for match in re.finditer(r"^ {8}(\w+): (\{\n(?:.*\n)*? {8}\};|.*;)$", schemas, re.M):
        blocks[match.group(1)] = match.group(2)
    return blocks


def test_the_typescript_types_type_every_answer(
    samples: Samples, cache: Path, doc: dict[str, Any]
) -> None:
    types = generated.typescript_types(cache, doc)
    blocks = _ts_blocks(types.read_text())
    loose = []
    for name in sorted(_schemas_reached(doc)):
        assert name in blocks, name
        rows = blocks[name].splitlines()
        for i, row in enumerate(rows):
            if "unknown" in row and not _free_form(name, rows[i - 1] if i else ""):
                loose.append(f"{name}: {row.strip()}")
    assert not loose, loose
    lines = ['import type { components } from "./api";', 'type S = components["schemas"];']
    for schema, values in samples.json.items():
        for i, value in enumerate(_some(values)):
            lines.append(
                f"export const {schema.lower()}{i}: S[{json.dumps(schema)}] = {json.dumps(value)};"
            )
    checked = generated.type_check(cache, types, "\n".join(lines) + "\n")
    assert checked.returncode == 0, (checked.stdout + checked.stderr)[:4000]


def _free_form(name: str, previous: str) -> bool:
    """Whether the ``unknown`` after ``previous`` (``options?: {``) is the index
    signature of one of the free-form objects."""
    prop = re.fullmatch(r"\s*(\w+)\??: \{", previous)
    return prop is not None and (name, prop.group(1)) in FREE_FORM_TS


def _some(values: list[Any]) -> list[Any]:
    """The first and last :data:`TS_SAMPLES` halves of each game's (or line
    kind's) answers: the start and the end of every table."""
    by: dict[str, list[Any]] = {}
    for value in values:
        key = f"{value.get('game')}:{value.get('kind')}:{(value.get('view') or {}).get('game')}"
        by.setdefault(key, []).append(value)
    half = TS_SAMPLES // 2
    return [
        v
        for group in by.values()
        for v in (group if len(group) <= TS_SAMPLES else group[:half] + group[-half:])
    ]
