"""gunicorn settings for the cardroom API (used by deploy/Dockerfile and the tests).

Threads, not async workers: a live event stream holds one thread in a
blocking ``XREAD``, and every other request is short.
"""

import os

bind = os.environ.get("CARDROOM_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("CARDROOM_API_PROCESSES", "2"))
worker_class = "gthread"
threads = int(os.environ.get("CARDROOM_API_THREADS", "16"))
timeout = 60
graceful_timeout = 20
keepalive = 5
# Access logs come from the app itself, one JSON line per request.
accesslog = None
errorlog = "-"
loglevel = os.environ.get("CARDROOM_LOG_LEVEL", "info").lower()
limit_request_line = 8190
limit_request_fields = 100
