"""The one place where engine events and states meet their stored form.

An event is stored as its type name, its schema version and its fields as
compact JSON (the engine's dataclass dumped by pydantic; large ones deflated,
see :mod:`schemas.compact`). Reading goes the other way through a cached
``TypeAdapter`` per event class, straight from the stored JSON bytes into the
engine's frozen dataclass; only an event stored under an older schema takes
the slow road through its upcasters.

State snapshots are a :class:`~service.engines.table.Table` with the engine's
own state inside, dumped and validated by one adapter per game that knows
the engine's state type, so a decoded snapshot equals the state it came from.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, get_args, get_origin, get_type_hints

from pydantic import TypeAdapter, ValidationError

from service.engines.base import Engine, Event
from service.engines.registry import engine_for
from service.engines.table import Table

from .compact import compact, expand
from .events import event_classes, event_model, model_to_event, schema_version, scope_of
from .upcasters import current_version, upcast

JSON = dict[str, Any]


class EventDecodeError(ValueError):
    """Stored data that is not an event of the game it was read for."""

    def __init__(self, game: str, type_name: object, reason: str) -> None:
        self.game = game
        self.type_name = type_name
        super().__init__(f"cannot read {game} event {type_name!r}: {reason}")


_ADAPTERS: dict[type[Event], TypeAdapter[Event]] = {}


def _adapter(cls: type[Event]) -> TypeAdapter[Event]:
    """Building an adapter costs milliseconds; reading an event, about one microsecond."""
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    return adapter


# -- the JSON-ready form: {"type", "schema_version", ...fields} ---------------
def encode_event(event: Event) -> JSON:
    """``event`` as a JSON-ready dict, with its type and current schema version."""
    cls = type(event)
    out: JSON = {"type": cls.type, "schema_version": schema_version(cls)}
    out.update(_adapter(cls).dump_python(event, mode="json"))
    return out


def decode_event(game: str, data: Mapping[str, Any], *, strict: bool = False) -> Event:
    """The engine event ``data`` (as :func:`encode_event` wrote it, in any
    schema version, ``schema_version`` defaulting to 1) stands for.

    ``strict`` also refuses unknown fields and values of the wrong type, for
    data from outside (imports); the store's own entries skip that.
    """
    fields = dict(data)
    type_name = fields.pop("type", None)
    version = fields.pop("schema_version", 1)
    cls = _event_class(game, type_name)
    fields = _upcast(game, cls, version, fields)
    try:
        if strict:
            return model_to_event(
                game, event_model(game, cls.type).model_validate({"type": cls.type, **fields})
            )
        return _adapter(cls).validate_python(fields)
    except ValidationError as exc:
        raise EventDecodeError(game, type_name, _first_error(exc)) from None


# -- the stream's form: (type, schema_version, fields as JSON bytes) -----------
_PACKERS: dict[type[Event], tuple[str, int, TypeAdapter[Event]]] = {}


def pack_event(event: Event) -> tuple[str, int, bytes]:
    """``(type, schema_version, stored fields)`` for a stream entry: the
    fields as compact JSON, deflated when that pays (:func:`compact`)."""
    cls = type(event)
    packer = _PACKERS.get(cls)
    if packer is None:
        packer = _PACKERS[cls] = (cls.type, schema_version(cls), _adapter(cls))
    type_name, version, adapter = packer
    return type_name, version, compact(adapter.dump_json(event))


def unpack_event(game: str, type_name: str, version: int, data: bytes) -> Event:
    """The event of a stream entry. Current-version entries are validated
    straight from their JSON into the dataclass; older ones are upcast first."""
    return _reader(game, type_name, version)(data)


EntryReader = Callable[[bytes, bytes, bytes], Event]


@cache
def entry_reader(game: str) -> EntryReader:
    """:func:`unpack_event` for raw stream fields ``(type, schema_version,
    data)`` as bytes, its per-type work looked up once: replays run here."""
    readers: dict[tuple[bytes, bytes], Callable[[bytes], Event]] = {}

    def read(type_name: bytes, version: bytes, data: bytes) -> Event:
        reader = readers.get((type_name, version))
        if reader is None:
            reader = _reader(game, type_name.decode(), int(version))
            readers[(type_name, version)] = reader
        return reader(data)

    return read


@cache
def _reader(game: str, type_name: str, version: int) -> Callable[[bytes], Event]:
    cls = _event_class(game, type_name)
    _check_version(game, cls, version)
    adapter = _adapter(cls)
    current = version == schema_version(cls)

    def read(data: bytes) -> Event:
        if data[:1] != b"{":
            data = expand(data)
        try:
            if current:
                return adapter.validate_json(data)
            try:
                fields = json.loads(data)
            except ValueError as exc:
                raise EventDecodeError(game, type_name, f"bad JSON: {exc}") from None
            return adapter.validate_python(_upcast(game, cls, version, fields))
        except ValidationError as exc:
            raise EventDecodeError(game, type_name, _first_error(exc)) from None

    return read


def _event_class(game: str, type_name: object) -> type[Event]:
    cls = event_classes(game).get(type_name) if isinstance(type_name, str) else None
    if cls is None:
        raise EventDecodeError(game, type_name, "no such event type")
    return cls


def _check_version(game: str, cls: type[Event], version: object) -> int:
    current = current_version(scope_of(cls), cls.type)
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= current:
        raise EventDecodeError(game, cls.type, f"schema_version {version!r} is not in 1..{current}")
    return version


def _upcast(game: str, cls: type[Event], version: object, fields: JSON) -> JSON:
    return upcast(scope_of(cls), cls.type, _check_version(game, cls, version), fields)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "event"
    return f"{where}: {err['msg']}"


# -- state snapshots -------------------------------------------------------------
def engine_state_type(engine: Engine[Any]) -> Any:
    """The ``S`` of ``Engine[S]`` the engine's class was declared with."""
    for klass in type(engine).__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            if get_origin(base) is Engine:
                (state_type,) = get_args(base)
                if not isinstance(state_type, type) and get_origin(state_type) is None:
                    break
                return state_type
    raise TypeError(f"engine {engine.name!r} must subclass Engine[<its state type>]")


@dataclasses.dataclass(frozen=True, slots=True)
class _StateCodec:
    """How one game's states are stored: ``shape`` is a twin of :class:`Table`
    whose ``engine_state`` has the engine's state type (``Table`` says
    ``Any``), so pydantic rebuilds the engine's state exactly; ``schema_id``
    fingerprints that shape. ``names`` are the fields of :class:`Table`,
    ``stored`` the same fields as the snapshot names them (:data:`STORED_NAMES`)."""

    shape: type[Any]
    adapter: TypeAdapter[Any]
    names: tuple[str, ...]
    stored: tuple[str, ...]
    schema_id: str


STORED_NAMES: dict[str, str] = {"kind": "game"}
"""Fields of :class:`Table` a snapshot stores under another name: the game's
name is ``Table.kind`` but ``game`` in a snapshot, as in the events and views
(and as snapshots were written when the field was ``game``)."""


@cache
def _state_codec(game: str) -> _StateCodec:
    hints = get_type_hints(Table)
    hints["engine_state"] = engine_state_type(engine_for(game))
    names = tuple(f.name for f in dataclasses.fields(Table))
    stored = tuple(STORED_NAMES.get(name, name) for name in names)
    shape = dataclasses.make_dataclass(
        f"{game.title()}Snapshot",
        [(field, hints[name]) for name, field in zip(names, stored, strict=True)],
        frozen=True,
    )
    adapter: TypeAdapter[Any] = TypeAdapter(shape)
    schema = json.dumps(adapter.json_schema(), sort_keys=True).encode()
    return _StateCodec(shape, adapter, names, stored, hashlib.sha256(schema).hexdigest()[:16])


def state_schema_id(game: str) -> str:
    """A fingerprint of the shape :func:`encode_state` writes for ``game``.

    Snapshots are a cache of the fold, not history: one written while the
    engine's state had another shape is simply not used (see the store).
    """
    return _state_codec(game).schema_id


def encode_state(state: Table) -> bytes:
    """``state`` (the table and the engine's state) as compact JSON."""
    codec = _state_codec(state.kind)
    twin = codec.shape(*(getattr(state, name) for name in codec.names))
    return codec.adapter.dump_json(twin)


def decode_state(game: str, data: bytes | str) -> Table:
    """The :class:`Table` :func:`encode_state` wrote for a ``game`` table."""
    codec = _state_codec(game)
    twin = codec.adapter.validate_json(data)
    return Table(*(getattr(twin, field) for field in codec.stored))
