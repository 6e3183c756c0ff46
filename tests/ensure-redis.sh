#!/bin/sh
# Make sure a Redis answers on 127.0.0.1:6379: start one if not, install it if missing.
set -eu
PORT="${CARDROOM_TEST_REDIS_PORT:-6379}"

answers() {
    if command -v redis-cli >/dev/null 2>&1; then
        redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null | grep -q PONG
    else
        python3 - "$PORT" <<'PY'
import socket, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1)
    s.sendall(b"PING\r\n")
    sys.exit(0 if s.recv(16).startswith(b"+PONG") else 1)
except OSError:
    sys.exit(1)
PY
    fi
}

if answers; then
    echo "redis: answering on 127.0.0.1:$PORT"
    exit 0
fi
if ! command -v redis-server >/dev/null 2>&1; then
    echo "redis: installing redis-server"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server >/dev/null
fi
DIR="${TMPDIR:-/tmp}/cardroom-redis-$PORT"
mkdir -p "$DIR"
echo "redis: starting redis-server on 127.0.0.1:$PORT"
redis-server --daemonize yes --bind 127.0.0.1 --port "$PORT" --save "" --appendonly no \
    --dir "$DIR" --logfile "$DIR/redis.log"
i=0
until answers; do
    i=$((i + 1))
    if [ "$i" -gt 50 ]; then
        echo "redis: did not start; see $DIR/redis.log" >&2
        exit 1
    fi
    sleep 0.1
done
echo "redis: started"
