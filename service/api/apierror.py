"""The root of the errors the HTTP layer itself raises.

Its own module, so that any part of the API (the stream caps, the request
parsing) may raise under it without importing the error handler, which
imports them all.
"""

from __future__ import annotations


class ApiLayerError(Exception):
    """Base of every error the API layer raises (:class:`~service.api.errors.ApiError`,
    :class:`~service.api.streamcaps.TooManyStreams`)."""
