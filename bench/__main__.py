"""Run every benchmark in turn: ``python -m bench [--quick]``. Each prints its figures."""

from __future__ import annotations

import subprocess
import sys

BENCHES = (
    "bench.bench_hazari",
    "bench.bench_murlan",
    "bench.bench_azi",
    "bench.bench_fairness",
    "bench.bench_store",
    "bench.bench_retention",
    "bench.bench_api",
    "bench.bench_pages",
    "bench.slowloris",
    "bench.bench_workers",
    "bench.bench_cluster",
    "bench.throughput",
    "bench.load",
)


def main() -> int:
    extra = sys.argv[1:]
    failed = 0
    for module in BENCHES:
        print(f"\n=== {module} {' '.join(extra)}", flush=True)
        failed += subprocess.call([sys.executable, "-m", module, *extra]) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
