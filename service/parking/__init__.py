"""Parked live streams: idle streams with no greenlet each, written by one writer.

Under a server that offers it (:data:`~.stream.PARKING`) a live stream is opened in its request
as anywhere else, then parked: its connection is handed to the process's
writer and the request's greenlet ends. The writer writes
each parked stream's lines when its subscriptions signal them, and its
keep-alives, from the same :class:`~.stream.Lines` a generator would ask
(:func:`service.api.live.follow`, the path of every other server: the
embedded one, the API's threaded gunicorn, Flask's test client).

- :mod:`.stream`: a parked stream, the lines it follows, its framing.
"""

from __future__ import annotations

from .stream import PARKING, Lines, Offer, ParkedStream

__all__ = ["PARKING", "Lines", "Offer", "ParkedStream"]
