"""What one waiting greenlet costs, the floor under a stream of the stream server.

``python -m bench.greenlet_floor [--greenlets 10000] [--depth 1]``

In a process of its own, gevent patched as the stream server's worker has
it: ``--greenlets`` greenlets each call ``--depth`` nested Python functions
and wait on one event, as an idle stream waits on its signal. Printed: the
process's resident memory per waiting greenlet (the slope from 500 of them
to all), which holds the greenlet, its saved C stack and its own block of
Python's frame stack, and nothing of a request, a socket or a stream.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

CHILD = """
from gevent import monkey
monkey.patch_all()
import sys
import gevent
import gevent.event

def rss_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0

count, depth = int(sys.argv[1]), int(sys.argv[2])
event = gevent.event.Event()

def nest(n):
    if n:
        nest(n - 1)
    else:
        event.wait()

first = [gevent.spawn(nest, depth) for _ in range(500)]
gevent.sleep(0.5)
before = rss_kib()
rest = [gevent.spawn(nest, depth) for _ in range(count)]
gevent.sleep(0.5)
after = rss_kib()
print((after - before) * 1024 / count)
event.set()
gevent.joinall(first + rest)
"""


def per_greenlet(count: int, depth: int) -> float:
    """Bytes of resident memory per waiting greenlet, in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(count), str(depth)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--greenlets", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="2,000 greenlets")
    args = parser.parse_args()
    count = 2_000 if args.quick else args.greenlets
    for depth in sorted({args.depth, 20}):
        size = per_greenlet(count, depth)
        print(
            f"{count} greenlets waiting, {depth} Python calls deep: "
            f"{size / 1024:.1f} KiB of resident memory each"
        )


if __name__ == "__main__":
    main()
