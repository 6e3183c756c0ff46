"""gunicorn settings for the cardroom API (used by deploy/Dockerfile and the tests).

Threads, not async workers: every request the API serves is short. Live
event streams belong to the stream server (deploy/gunicorn-streams.conf.py,
gevent workers); should one reach the API anyway it holds a thread, so here
streams may take at most half of a process's threads
(``CARDROOM_STREAMS_MAX``, unless set otherwise).

Slow clients are the front's to hold (deploy/nginx.conf, required in front of
this server): the gthread worker reads a request's headers on a thread with no
time limit once the first byte has arrived, and no setting here bounds that
(``timeout`` is the worker's heartbeat, ``keepalive`` applies between
requests). See docs/operations.md, "The front is required".
"""

import os

from service import multiproc
from service.gunicornlogs import logconfig_dict as json_logconfig

bind = os.environ.get("CARDROOM_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("CARDROOM_API_PROCESSES", "2"))
worker_class = "gthread"
threads = int(os.environ.get("CARDROOM_API_THREADS", "16"))
os.environ.setdefault("CARDROOM_STREAMS_MAX", str(max(1, threads // 2)))
timeout = 60
# what a request in flight has after SIGTERM; compose's stop_grace_period for the
# API is above it, so Docker does not kill the process mid-drain
graceful_timeout = 20
keepalive = 5
# The workers' heartbeat files in memory, not on the container's disk, where a
# slow or full overlay filesystem stalls them (gunicorn's deployment notes);
# where there is no /dev/shm (macOS) gunicorn's default, the temporary directory.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# Access logs come from the app itself, one JSON line per request.
accesslog = None
errorlog = "-"
loglevel = os.environ.get("CARDROOM_LOG_LEVEL", "info").lower()
# One JSON line per record, as the app's own (service/gunicornlogs.py); the app
# logs each request itself, gunicorn's access lines only with CARDROOM_GUNICORN_ACCESS_LOG=1.
logconfig_dict = json_logconfig(loglevel, os.environ.get("CARDROOM_GUNICORN_ACCESS_LOG") == "1")
limit_request_line = 8190
limit_request_fields = 100
# Prometheus multiprocess mode: /metrics adds up every process's samples
# (service/multiproc.py; docs/operations.md, "Metrics and logs").
on_starting = multiproc.on_starting
child_exit = multiproc.child_exit
on_exit = multiproc.on_exit
