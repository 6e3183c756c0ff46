"""Local processes for the tests and the benchmarks: Redis, a Redis Cluster, the
API under gunicorn, ``cardroom worker`` and ``cardroom scheduler``, nginx in
front, and whole games played through the engines in memory.

It needs a source checkout: the processes run on the repository's own
``deploy/`` files (``redis.conf``, ``users.acl``, ``gunicorn.conf.py``,
``nginx.conf``), found from this package's place in the tree. The service
itself never imports it, and a production install never runs it; what it
needs of the test extras (``httpx``) it imports where it is used.

Everything runs on 127.0.0.1 and free ports, in a private directory, as the
deployment runs it, configured through ``CARDROOM_*`` variables only. Each
process runs in its own process group with its own log file in that
directory; every wait for a process to be ready is bounded in time and, when
it fails, says why with the tail of the log. Whatever is started is stopped
at interpreter exit too, so an interrupted run leaves nothing behind. The
machine's shared Redis on port 6379 is never touched: only a caller that
passes its URL (to :func:`stack_env` or a process's environment) uses it.

What it offers, module by module:

:mod:`~service.devstack.procs`
    :func:`free_ports`, :func:`free_port`: ports of 127.0.0.1 that were free.
    :class:`Proc`: one process (its own group, its log file) that can be
    started, stopped (SIGTERM, then SIGKILL), killed as a crash would
    (SIGKILL to the whole group) and started again; its children (gunicorn's
    workers) and the tail of its log. :func:`stop_all` stops many at once.
    :func:`wait_for`: the one bounded readiness poll everything uses.
    :func:`process_gone`, :func:`private_directory`, :func:`tail`.

:mod:`~service.devstack.redis_server`
    :class:`RedisServer`: one ``redis-server``, either with the deploy's
    ``deploy/redis.conf`` (AOF, ``appendfsync always``; see
    :func:`local_redis_conf`) or without persistence, optionally a cluster
    node; stopped cleanly, killed, and started again on the same port and
    directory (a restart must not look like a new server to the clients).
    :func:`acl_with_admin`: the deploy's ACL and a user who may look at
    everything; :func:`tools_missing` says why no server can start here.

:mod:`~service.devstack.cluster`
    :class:`LocalCluster`, :func:`start_cluster`, :func:`start_standalone`,
    :func:`shared_cluster`: a Redis Cluster of local servers (masters and
    replicas, ``cluster_state:ok`` waited for) or one standalone server
    without persistence.

:mod:`~service.devstack.stack`
    :func:`stack_env`: the variables every process of a stack shares.
    :class:`Stack`: API processes (gunicorn with ``deploy/gunicorn.conf.py``,
    each on a free port), workers, schedulers and any other command sharing
    one environment, optionally with a Redis of its own; waits for
    ``/healthz`` and for gunicorn's workers, checks that everything still
    runs, collects logs, stops it all (Redis last).
    :func:`running_stack`: a whole deployment (Redis with the deploy's AOF
    config, the API, workers, the scheduler) for the duration of a ``with``.
    :func:`create_bot_game`: a table of bots opened over HTTP.

:mod:`~service.devstack.serve`
    :class:`Serve`: ``cardroom serve`` on its embedded default.

:mod:`~service.devstack.front`
    The shipped nginx front on loopback (:func:`start_front`) and slow
    clients to send it.

:mod:`~service.devstack.playing`
    :func:`new_game`, :func:`play`: whole games through the pure engines.
"""

from service.devstack.cluster import LocalCluster, shared_cluster, start_cluster, start_standalone
from service.devstack.front import (
    Front,
    closed_within,
    half_bodies,
    half_headers,
    local_nginx_conf,
    nginx_missing,
    p99,
    start_front,
    timed_views,
)
from service.devstack.playing import (
    PlayedGame,
    Policy,
    new_game,
    play,
    push,
    random_legal,
    run_system_steps,
)
from service.devstack.procs import (
    BIN,
    CARDROOM,
    GUNICORN,
    POLL_S,
    ROOT,
    Proc,
    free_port,
    free_ports,
    private_directory,
    process_gone,
    stop_all,
    tail,
    wait_for,
)
from service.devstack.redis_server import (
    ADMIN_PASSWORD,
    ADMIN_USER,
    DEPLOY_PASSWORD,
    DEPLOY_USER,
    LOCAL_OVERRIDES,
    REDIS_CLI,
    REDIS_CONF,
    REDIS_SERVER,
    USERS_ACL,
    RedisServer,
    acl_with_admin,
    local_redis_conf,
    tools_missing,
)
from service.devstack.serve import Serve
from service.devstack.stack import (
    GUNICORN_CONF,
    Stack,
    create_bot_game,
    running_stack,
    stack_env,
)

__all__ = [
    "ADMIN_PASSWORD",
    "ADMIN_USER",
    "BIN",
    "CARDROOM",
    "DEPLOY_PASSWORD",
    "DEPLOY_USER",
    "GUNICORN",
    "GUNICORN_CONF",
    "LOCAL_OVERRIDES",
    "POLL_S",
    "REDIS_CLI",
    "REDIS_CONF",
    "REDIS_SERVER",
    "ROOT",
    "USERS_ACL",
    "Front",
    "LocalCluster",
    "PlayedGame",
    "Policy",
    "Proc",
    "RedisServer",
    "Serve",
    "Stack",
    "acl_with_admin",
    "closed_within",
    "create_bot_game",
    "free_port",
    "free_ports",
    "half_bodies",
    "half_headers",
    "local_nginx_conf",
    "local_redis_conf",
    "new_game",
    "nginx_missing",
    "p99",
    "play",
    "private_directory",
    "process_gone",
    "push",
    "random_legal",
    "run_system_steps",
    "running_stack",
    "shared_cluster",
    "stack_env",
    "start_cluster",
    "start_front",
    "start_standalone",
    "stop_all",
    "tail",
    "timed_views",
    "tools_missing",
    "wait_for",
]
