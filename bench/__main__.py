"""Run every benchmark in turn: ``python -m bench [--quick]``. Each prints its figures;
the lines a benchmark starts with ``target `` (a target and the figure against it)
are printed again at the end, on one screen."""

from __future__ import annotations

import subprocess
import sys

BENCHES = (
    "bench.bench_hazari",
    "bench.bench_murlan",
    "bench.bench_azi",
    "bench.bench_fairness",
    "bench.bench_grinding",
    "bench.bench_audit",
    "bench.bench_store",
    "bench.bench_retention",
    "bench.bench_api",
    "bench.bench_pages",
    "bench.slowloris",
    "bench.bench_workers",
    "bench.bench_webhooks",
    "bench.bench_kit",
    "bench.bench_streams",
    "bench.greenlet_floor",
    "bench.bench_cluster",
    "bench.throughput",
    "bench.load",
)


def main() -> int:
    extra = sys.argv[1:]
    failed: list[str] = []
    targets: list[str] = []
    for module in BENCHES:
        print(f"\n=== {module} {' '.join(extra)}", flush=True)
        proc = subprocess.Popen(
            [sys.executable, "-m", module, *extra], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            print(line, end="", flush=True)
            if line.startswith("target "):
                targets.append(line.rstrip())
        if proc.wait() != 0:
            failed.append(module)
    print("\n=== summary: each target and the figure against it")
    for line in targets:
        print(line.removeprefix("target "))
    for module in failed:
        print(f"{module}: failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
