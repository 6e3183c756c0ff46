#!/bin/sh
# Make sure Debian's headless shell of Chromium is at /usr/bin/chromium-headless-shell (the
# browser tests drive it),
# with fonts for every language the pages speak: DejaVu covers Latin and Cyrillic,
# Lohit Devanagari covers Nepali (without it Nepali renders as empty boxes).
set -eu

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
packages=""
[ -x /usr/bin/chromium-headless-shell ] || packages="chromium-headless-shell fonts-dejavu-core"
if ! fc-list :lang=ne 2>/dev/null | grep -q .; then
    packages="$packages fonts-lohit-deva"
fi
if [ -n "$packages" ]; then
    echo "chromium: installing$(printf ' %s' $packages)"
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        $packages >/dev/null
fi
if [ ! -x /usr/bin/chromium-headless-shell ]; then
    echo "chromium: /usr/bin/chromium-headless-shell is still missing after the install" >&2
    exit 1
fi
echo "chromium: $(/usr/bin/chromium-headless-shell --version 2>/dev/null || echo present)"
