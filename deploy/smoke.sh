#!/bin/sh
# Build the image and smoke-test the whole compose deploy (docs/operations.md,
# "Deploying with compose"): every service reaches healthy, then, from inside
# the API's container, deploy/smoke_client.py plays a table of bots to its end
# through the front (nginx: the API, the stream server), which only ends if the
# workers play, and checks it verifies. Everything is removed afterwards
# (`down -v`), the volume too.
#
# Needs a Docker daemon and `docker compose` (v2.17 or later), and port 8000
# free (the front's). Runs on throwaway secrets (the placeholder password
# "change-me", whose hash deploy/users.acl ships, and a fresh seed key),
# never on deploy/secrets/.
set -eu
cd "$(dirname "$0")/.."

if ! docker info >/dev/null 2>&1; then
    echo "deploy/smoke.sh: no Docker daemon answers: nothing built" >&2
    exit 1
fi

project=cardroom-smoke
work=$(mktemp -d)
printf %s change-me >"$work/redis_password"
printf 'k1:%s\n' "$(head -c 32 /dev/urandom | base64 | tr -d '\n')" >"$work/seed_keys"
chmod 644 "$work/redis_password" "$work/seed_keys" # the services run as uid 10001
cat >"$work/secrets.yaml" <<EOF
secrets:
  redis_password:
    file: $work/redis_password
  seed_keys:
    file: $work/seed_keys
EOF

run_compose() {
    docker compose -p "$project" -f deploy/compose.yaml -f "$work/secrets.yaml" "$@"
}
clean_up() {
    status=$?
    if [ "$status" -ne 0 ]; then
        run_compose ps -a || true
        run_compose logs --tail 40 || true
    fi
    run_compose down -v --remove-orphans >/dev/null 2>&1 || true
    rm -rf "$work"
    exit "$status"
}
trap clean_up EXIT
trap 'exit 1' INT TERM

started=$(date +%s)
run_compose build
run_compose up -d --wait --wait-timeout 300
run_compose exec -T api python - http://front <deploy/smoke_client.py
echo "deploy/smoke.sh: the image runs the whole deploy ($(($(date +%s) - started)) s)"
