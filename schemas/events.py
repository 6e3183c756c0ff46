"""Pydantic models of every event of every game, generated from the engines.

The engines define their events as frozen stdlib dataclasses and stay free of
pydantic; this module derives one model per event type from the dataclass's
own fields (so a field added to an engine event appears here by itself),
adds the ``type`` discriminator and the ``schema_version``, and joins each
game's events (the table's plus the engine's) into a discriminated union.
The models describe the stored form of an event at its current schema
version; they validate imported archives and give the JSON Schema of the
replay format.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import Annotated, Any, Literal, Union, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from service.engines import table
from service.engines.base import Event
from service.engines.registry import GAMES, engine_for

from .upcasters import TABLE, current_version

__all__ = [
    "GAMES",
    "TABLE",
    "event_classes",
    "event_json_schema",
    "event_model",
    "event_union",
    "model_to_event",
    "schema_version",
    "scope_of",
]


@cache
def event_classes(game: str) -> Mapping[str, type[Event]]:
    """Type name → engine event class, for every event a ``game`` stream may hold."""
    classes: dict[str, type[Event]] = {}
    for cls in table.event_types(game):
        if not cls.type:
            raise TypeError(f"{cls.__qualname__} has no event type name")
        if cls.type in classes:
            raise TypeError(f"{game}: two event classes are named {cls.type!r}")
        classes[cls.type] = cls
    return MappingProxyType(classes)


_SCOPES: dict[type[Event], str] = {}


def scope_of(cls: type[Event]) -> str:
    """``"table"`` for the shared table events, else the game whose engine owns ``cls``."""
    scope = _SCOPES.get(cls)
    if scope is None:
        scope = _SCOPES[cls] = _find_scope(cls)
    return scope


def _find_scope(cls: type[Event]) -> str:
    if cls in table.TABLE_EVENTS:
        return TABLE
    for game in GAMES:
        try:
            owned = engine_for(game).event_types
        except ImportError:  # an engine that cannot load owns nothing we are asked about
            continue
        if cls in owned:
            return game
    raise TypeError(f"{cls.__qualname__} belongs to no registered game")


def schema_version(cls: type[Event]) -> int:
    """The schema version ``cls`` is written with today."""
    return current_version(scope_of(cls), cls.type)


def _field_definitions(cls: type[Event]) -> dict[str, Any]:
    hints = get_type_hints(cls)
    definitions: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            default: Any = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = Field(default_factory=f.default_factory)
        else:
            default = ...
        definitions[f.name] = (hints[f.name], default)
    return definitions


@cache
def event_model(game: str, type_name: str) -> type[BaseModel]:
    """The stored form of one event type of ``game`` at its current schema version."""
    cls = event_classes(game)[type_name]
    version = schema_version(cls)
    type_literal: Any = Literal[type_name]
    version_literal: Any = Literal[version]
    model: type[BaseModel] = create_model(
        type_name,
        __config__=ConfigDict(frozen=True, extra="forbid", title=type_name),
        __doc__=cls.__doc__
        if cls.__doc__ and not cls.__doc__.startswith(cls.__name__ + "(")
        else None,
        __module__=__name__,
        type=(type_literal, ...),
        schema_version=(version_literal, version),
        **_field_definitions(cls),
    )
    return model


@cache
def event_union(game: str) -> TypeAdapter[Any]:
    """A discriminated union (on ``type``) of every event model of ``game``."""
    models = tuple(event_model(game, name) for name in event_classes(game))
    union: Any = Annotated[Union[models], Field(discriminator="type")]  # noqa: UP007
    return TypeAdapter(union)


def event_json_schema(game: str) -> dict[str, Any]:
    """JSON Schema of one stored event of ``game`` (for the replay-format docs)."""
    schema = event_union(game).json_schema()
    schema["title"] = f"{game} event"
    return schema


def model_to_event(game: str, model: BaseModel) -> Event:
    """The engine event a validated model stands for."""
    cls = event_classes(game)[model.type]  # type: ignore[attr-defined]
    return cls(**{f.name: getattr(model, f.name) for f in dataclasses.fields(cls)})
