"""The stream server's gunicorn worker: gevent's, with live streams parked.

:class:`StreamWorker` is gunicorn's gevent worker whose application is
wrapped in :class:`Parking`: the environ of every request on a plain HTTP/1.x
connection carries the offer to park (:data:`~.stream.PARKING`, the
process's :class:`~.writer.Writer`; over TLS or HTTP/2 a stream waits in its
greenlet as on gevent's own worker), and
an answer that is a :class:`~.stream.ParkedStream` is not iterated by the
request's greenlet. Its connection's descriptor is duplicated (the stream's
own, non-blocking), its head and opening handed to the writer, and the
request ends (gunicorn's ``is_already_handled`` hook, which raises
``StopIteration``): the greenlet returns to the pool and gunicorn closes its
own socket object, and the writer writes the stream from then on.

On exit (SIGTERM, the parent gone) the worker stops accepting and lets its
requests finish as gevent's does, then ends every parked stream with its
terminating chunk (:meth:`~.writer.Writer.end_all`).
"""

from __future__ import annotations

import _socket
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final

from gunicorn.workers.ggevent import GeventWorker

from .stream import PARKING, ParkedStream, response_head
from .writer import Writer


class Parked:
    """What the wrapped application answers for a parked stream: nothing for the
    request's greenlet to write."""

    def __iter__(self) -> Iterator[bytes]:
        return iter(())


PARKED: Final = Parked()

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class Parking:
    """The application, with the offer to park its live streams."""

    def __init__(self, app: WSGIApp, writer: Writer) -> None:
        self.app = app
        self.writer = writer

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        sock = environ.get("gunicorn.socket")
        protocol = environ.get("SERVER_PROTOCOL", "")
        if not parkable(sock, protocol):
            return self.app(environ, start_response)  # its streams wait in its greenlet
        environ[PARKING] = self.writer
        answer: list[Any] = []

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            answer[:] = [status, headers]
            return start_response(status, headers, exc_info)

        body = self.app(environ, start)
        if not isinstance(body, ParkedStream) or not answer:
            return body
        try:
            own = own_socket(sock)
        except OSError:
            body.close()
            raise
        chunked = protocol == "HTTP/1.1"
        head = response_head(protocol, answer[0], answer[1], chunked)
        self.writer.park(body, own, head, chunked)
        return PARKED


def parkable(sock: Any, protocol: str) -> bool:
    """Whether a stream on ``sock`` can be parked: a plain connection (not TLS,
    whose records the writer would not make) speaking HTTP/1.x (not HTTP/2,
    whose connection other streams share)."""
    return (
        sock is not None
        and protocol in ("HTTP/1.0", "HTTP/1.1")
        and not hasattr(sock, "do_handshake")
    )


def own_socket(sock: Any) -> Any:
    """A non-blocking socket of its own on ``sock``'s connection (its descriptor
    duplicated; a bare one, not gevent's: no watchers)."""
    fd = os.dup(sock.fileno())
    try:
        own = _socket.socket(fileno=fd)
    except OSError:
        os.close(fd)
        raise
    own.setblocking(False)
    return own


class StreamWorker(GeventWorker):  # type: ignore[misc]
    """gunicorn's gevent worker with live streams parked (see the module's documentation)."""

    writer: Writer
    wsgi: WSGIApp

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.writer = Writer()
        app: WSGIApp = self.wsgi
        self.wsgi = Parking(app, self.writer)

    def is_already_handled(self, respiter: object) -> bool:
        if respiter is PARKED:
            raise StopIteration  # the connection is the writer's: gunicorn closes its socket
        return bool(super().is_already_handled(respiter))

    def run(self) -> None:
        try:
            super().run()
        finally:
            ended = self.writer.end_all(max(1.0, self.cfg.graceful_timeout / 2))
            if ended:
                self.log.info("ended %d parked streams", ended)
