#!/usr/bin/env python3
"""Run every bench/bench_*.py as its own process and print what each reports.

Each bench runs in a fresh interpreter so one bench's warm caches or leaked
threads cannot flatter the next. The exit status is non-zero if any bench failed.
"""

import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent


def main() -> int:
    benches = sorted(BENCH_DIR.glob("bench_*.py"))
    if not benches:
        print("no bench/bench_*.py yet")
        return 0
    failed = []
    for bench in benches:
        print(f"=== {bench.name}", flush=True)
        started = time.perf_counter()
        result = subprocess.run([sys.executable, str(bench)], cwd=REPO_ROOT)
        elapsed = time.perf_counter() - started
        status = "ok" if result.returncode == 0 else f"FAILED (exit {result.returncode})"
        print(f"=== {bench.name}: {status} in {elapsed:.1f}s", flush=True)
        if result.returncode != 0:
            failed.append(bench.name)
    if failed:
        print(f"failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
