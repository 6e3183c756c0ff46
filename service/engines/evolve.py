"""``evolve(state, field=value, …)``: :func:`dataclasses.replace` for the
engines' frozen, slotted states, made for the fold.

``dataclasses.replace`` walks the fields, builds keyword arguments and runs
``__init__`` again, which for a state of thirty fields costs more than the
rest of an event's fold. :func:`evolve` copies the fields straight into a
new instance through a function written once per class (as ``dataclasses``
writes ``__init__``). The result is the same value: the engines' states have
no ``__post_init__`` and no field outside ``__init__`` (a class that does
falls back to ``dataclasses.replace``). Nothing is cached but that function.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final, TypeVar

T = TypeVar("T")

_EVOLVERS: Final[dict[type[Any], Callable[[Any, dict[str, Any]], Any]]] = {}


def evolve(obj: T, /, **changes: Any) -> T:
    """A copy of the dataclass ``obj`` with ``changes`` made."""
    cls = type(obj)
    evolver = _EVOLVERS.get(cls)
    if evolver is None:
        evolver = _EVOLVERS[cls] = _evolver(cls)
    result: T = evolver(obj, changes)
    return result


def _evolver(cls: type[Any]) -> Callable[[Any, dict[str, Any]], Any]:
    fields = dataclasses.fields(cls)
    slotted = "__slots__" in cls.__dict__ and "__dict__" not in dir(cls)
    if not slotted or hasattr(cls, "__post_init__") or not all(f.init for f in fields):
        return lambda obj, changes: dataclasses.replace(obj, **changes)
    lines = ["def evolve(obj, changes):", "    new = make(cls)"]
    setters: dict[str, Any] = {}
    for i, f in enumerate(fields):
        setters[f"set{i}"] = getattr(cls, f.name).__set__  # the slot itself: frozen only above it
        lines.append(f"    set{i}(new, obj.{f.name})")
    lines += [
        "    for name, value in changes.items():",
        "        setter = by_name.get(name)",
        "        if setter is None:",
        "            raise TypeError(f'{cls.__name__} has no field {name!r}')",
        "        setter(new, value)",
        "    return new",
    ]
    by_name = {f.name: getattr(cls, f.name).__set__ for f in fields}
    namespace: dict[str, Any] = {"cls": cls, "by_name": by_name, "make": object.__new__, **setters}
    exec("\n".join(lines), namespace)  # written from the class's own fields, as dataclasses does
    evolver: Callable[[Any, dict[str, Any]], Any] = namespace["evolve"]
    return evolver
