"""cardroom-client: a typed client of the cardroom API (see docs/bots.md)."""

from . import models
from .client import Client, Decide, Move, new_key
from .errors import CardroomError, GaveUp, ProblemError
from .lines import Line, View
from .retry import RetryPolicy
from .stream import LiveStream, StreamStats

__all__ = [
    "CardroomError",
    "Client",
    "Decide",
    "GaveUp",
    "Line",
    "LiveStream",
    "Move",
    "ProblemError",
    "RetryPolicy",
    "StreamStats",
    "View",
    "models",
    "new_key",
]
