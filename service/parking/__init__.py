"""Parked live streams: idle streams with no greenlet each, written by one writer.

Under the stream server's worker (:mod:`.worker`, named in
``deploy/gunicorn-streams.conf.py``) a live stream is opened in its request
as anywhere else, then parked: its connection is handed to the process's
:class:`~.writer.Writer` and the request's greenlet ends. The writer writes
each parked stream's lines when its subscriptions signal them, and its
keep-alives, from the same :class:`~.stream.Lines` a generator would ask
(:func:`service.api.live.follow`, the path of every other server: the
embedded one, the API's threaded gunicorn, Flask's test client). Game
streams and player streams alike are parked.

- :mod:`.stream`: a parked stream, the lines it follows, its framing;
- :mod:`.writer`: the greenlet that writes them all (gevent);
- :mod:`.worker`: the gunicorn worker and the WSGI wrapper that parks them.

Only :mod:`.stream` is imported by the application; the other two import gevent.
"""

from __future__ import annotations

from .stream import PARKING, Lines, Offer, ParkedStream

__all__ = ["PARKING", "Lines", "Offer", "ParkedStream"]
