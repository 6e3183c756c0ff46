#!/bin/sh
# The alert rules of deploy/monitoring are checked and unit-tested with promtool
# (tests/product/test_monitoring.py): make sure it is installed (Debian's
# prometheus package ships it; no Prometheus server is started).
set -eu
command -v promtool >/dev/null 2>&1 && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "promtool: installing Debian's prometheus package"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    prometheus >/dev/null 2>&1
command -v promtool >/dev/null 2>&1 || { echo "promtool: still missing after the install" >&2; exit 1; }
echo "promtool: $(promtool --version 2>&1 | head -1)"
