"""The root of every error the engines raise.

Each engine error says what was wrong with its input (a move, an option, a
card, a seed, a pot) and is a ``ValueError``; :class:`EngineError` lets a
caller name them all at once. Only the API layer turns them into HTTP.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base of every error the engines raise."""
