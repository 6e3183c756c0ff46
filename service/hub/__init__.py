"""The stream hub: one process's live streams, fed by a few Redis readers.

A serving process follows the games its open streams watch with a bounded
number of Redis connections, whatever the number of streams: each
:class:`~.reader.Reader` issues one blocking ``XREAD`` over up to
``keys_per_reader`` watched keys (its own wake-up key among them, so a newly
watched key is read at once), and the :class:`~.hub.Hub` fans every batch of
events out in memory to each :class:`~.feed.Subscriber` of that game. A
game's state is folded once per process (:class:`~.feed.GameFeed`) and a
batch's lines are rendered once per seat (and once for spectators), not
once per connection (:class:`~.feed.Batch`).

It runs the same under gevent (the stream server: the readers are
greenlets, and the streams are parked, written by one greenlet,
:mod:`service.parking`) and under threads (the embedded server, the API's
threaded gunicorn, Flask's test client: the readers are daemon threads, and
each stream a generator its thread waits in). A subscriber wakes its stream
through a :class:`~.feed.Signal`: an event its greenlet or thread waits on,
or the parked stream itself.

- :mod:`.feed`: a game's shared state, batches and subscribers;
- :mod:`.reader`: the blocking reads;
- :mod:`.hub`: watching, unwatching, fan-out, and losing Redis;
- :mod:`.collector`: the open streams kept out of the garbage collector's full passes.
"""

from __future__ import annotations

from .collector import Collector
from .feed import Batch, GameFeed, Renderer, Signal, Subscriber
from .hub import Hub
from .reader import Watch

__all__ = ["Batch", "Collector", "GameFeed", "Hub", "Renderer", "Signal", "Subscriber", "Watch"]
