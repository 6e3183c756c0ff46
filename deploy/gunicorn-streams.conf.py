"""gunicorn settings for the cardroom stream server (live event streams).

gevent workers, not threads, and the project's own gevent worker
(``service.parking.worker.StreamWorker``): once a stream is opened (in its
request's greenlet, as any request) it is parked, its connection handed to
the process's one writer, and the greenlet returns to the pool; an idle
stream then holds no greenlet, no request and no response, only a socket
and its subscriber on the process's stream hub, whose few readers wait in
blocking ``XREAD``s over hundreds of games each (redis-py's socket is
cooperative once gevent has patched the standard library, which the worker
does before loading the application). So one process holds ten thousand
streams. The caps on open streams are the application's
(``CARDROOM_STREAMS_*``; here 10,000 streams a process unless set, a few
KiB each, docs/operations.md); ``worker_connections`` bounds the requests
being answered at once (a parked stream is no longer one of them), and the
open-files limit is raised to its hard limit for the streams' sockets.
"""

import gc
import os
import resource

from service import multiproc
from service.gunicornlogs import logconfig_dict as json_logconfig

os.environ.setdefault("CARDROOM_STREAMS_MAX", "10000")
# What the open streams hold is frozen out of the collector's full passes every
# 250 streams opened (service/hub/collector.py; bench/README.md).
os.environ.setdefault("CARDROOM_STREAM_GC_FREEZE_EVERY", "250")
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if _soft < _hard:
    resource.setrlimit(resource.RLIMIT_NOFILE, (_hard, _hard))

bind = os.environ.get("CARDROOM_STREAM_BIND", "0.0.0.0:8001")
workers = int(os.environ.get("CARDROOM_STREAM_PROCESSES", "1"))
worker_class = "service.parking.worker.StreamWorker"
worker_connections = int(os.environ.get("CARDROOM_STREAM_CONNECTIONS", "12000"))
# A stream writes at least a keep-alive line every CARDROOM_STREAM_KEEPALIVE_S.
timeout = 60
# requests being answered get this long after SIGTERM; parked streams end at once with
# their terminating chunk (a client reconnects with ?after=, docs/api.md), those whose
# client does not take it within half of it are closed; compose's stop_grace_period for
# the stream server is above it
graceful_timeout = 10
keepalive = 5
# The workers' heartbeat files in memory, not on the container's disk, where a
# slow or full overlay filesystem stalls them (gunicorn's deployment notes);
# where there is no /dev/shm (macOS) gunicorn's default, the temporary directory.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
accesslog = None
errorlog = "-"
loglevel = os.environ.get("CARDROOM_LOG_LEVEL", "info").lower()
# JSON lines, as the API's (deploy/gunicorn.conf.py, service/gunicornlogs.py)
logconfig_dict = json_logconfig(loglevel, os.environ.get("CARDROOM_GUNICORN_ACCESS_LOG") == "1")
limit_request_line = 8190
limit_request_fields = 100
# Prometheus multiprocess mode: /metrics adds up every process's samples
# (service/multiproc.py; docs/operations.md, "Metrics and logs").
on_starting = multiproc.on_starting
child_exit = multiproc.child_exit
on_exit = multiproc.on_exit


def post_worker_init(worker: object) -> None:
    """The loaded application's objects (modules, schemas, the app) live as long as
    the worker: out of the collector's full passes, which otherwise walk them
    each time, every stream paused meanwhile (bench/README.md)."""
    gc.freeze()
