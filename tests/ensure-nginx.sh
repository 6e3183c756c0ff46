#!/bin/sh
# The slow-client test runs the shipped deploy/nginx.conf in front of the API:
# make sure Debian's nginx is installed (the tests start it with a config of their own).
set -eu
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
if [ ! -x "$NGINX" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "nginx: installing nginx"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        nginx >/dev/null 2>&1
    NGINX=/usr/sbin/nginx
fi
if [ ! -x "$NGINX" ]; then
    echo "nginx: $NGINX is still missing after the install" >&2
    exit 1
fi
echo "nginx: $("$NGINX" -v 2>&1)"
