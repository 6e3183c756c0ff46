"""Checks that a value read through the published models left nothing untyped."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def untyped(value: Any, at: str = "") -> list[str]:
    """The paths of every field a model of ``value`` took without declaring it
    (a field the schema does not type), and of every plain dict where a model
    should have read an object."""
    found: list[str] = []
    if isinstance(value, BaseModel):
        found.extend(f"{at}.{k}" for k in value.model_extra or {})
        for name in type(value).model_fields:
            found.extend(untyped(value.__dict__.get(name), f"{at}.{name}"))
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found.extend(untyped(item, f"{at}[{i}]"))
    return found
