#!/bin/sh
# Make sure Debian's Chromium is at /usr/bin/chromium (the browser tests drive it headless).
set -eu

if [ -x /usr/bin/chromium ]; then
    echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)"
    exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "chromium: installing Debian's chromium"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    chromium fonts-dejavu-core >/dev/null
if [ ! -x /usr/bin/chromium ]; then
    echo "chromium: /usr/bin/chromium is still missing after the install" >&2
    exit 1
fi
echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo installed)"
