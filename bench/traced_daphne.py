"""daphne with tracemalloc on, for bench/bench_memory.py.

Run as ``python bench/traced_daphne.py <daphne arguments>``. SIGUSR1 collects
garbage and writes a tracemalloc snapshot (8 frames per allocation) to the next
``$KHELAGHOR_TRACE_DIR/snapshot-<n>.pickle``, then ``snapshot-<n>.done`` with the
process's RSS and tracemalloc's own overhead (bytes), so the bench knows when
the snapshot is complete. The signal is handled on daphne's main thread, between
two of the reactor's callbacks, so no request is half-way through Python code.
"""

import gc
import os
import signal
import sys
import tracemalloc
from pathlib import Path

tracemalloc.start(8)

TRACE_DIR = Path(os.environ["KHELAGHOR_TRACE_DIR"])
_taken = 0


def _rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def _dump(signum, frame) -> None:
    global _taken
    _taken += 1
    gc.collect()
    tracemalloc.take_snapshot().dump(TRACE_DIR / f"snapshot-{_taken}.pickle")
    (TRACE_DIR / f"snapshot-{_taken}.done").write_text(
        f"{_rss_bytes()} {tracemalloc.get_tracemalloc_memory()}")


signal.signal(signal.SIGUSR1, _dump)

if __name__ == "__main__":
    from daphne.cli import CommandLineInterface

    sys.argv = ["daphne", *sys.argv[1:]]
    CommandLineInterface.entrypoint()
