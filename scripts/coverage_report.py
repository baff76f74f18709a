#!/usr/bin/env python3
"""Print test coverage per package and fail below the floor (`make test`).

Reads the combined data of `coverage run` (the pytest process, its xdist workers
and every daphne and manage.py process they started: `[tool.coverage.run]` in
pyproject.toml). Coverage is coverage.py's own figure, statements and branches
together: (lines run + branches taken) / (lines + branches). The floor is
`[tool.coverage.report] fail_under`.

Usage:
    python scripts/coverage_report.py        # table; exit 2 if the total is below the floor
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import coverage

REPO_ROOT = Path(__file__).resolve().parent.parent


def package_of(path: str) -> str:
    """``rooms/services.py`` -> ``rooms``; ``games/bots/smart.py`` -> ``games/bots``."""
    relative = Path(path).resolve().relative_to(REPO_ROOT)
    return relative.parent.as_posix() or "."


def main() -> int:
    cov = coverage.Coverage()
    cov.load()
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "coverage.json"
        cov.json_report(outfile=str(out))
        files = json.loads(out.read_text())["files"]

    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for path, data in files.items():
        summary = data["summary"]
        row = totals[package_of(path)]
        row[0] += summary["num_statements"]
        row[1] += summary["covered_lines"]
        row[2] += summary.get("num_branches", 0)
        row[3] += summary.get("covered_branches", 0)

    def percent(row: list[int]) -> float:
        whole = row[0] + row[2]
        return 100.0 * (row[1] + row[3]) / whole if whole else 100.0

    width = max([len("package"), *map(len, totals)])
    print(f"{'package':<{width}}  {'lines':>6} {'missed':>6}  {'branches':>8} {'missed':>6}  cover")
    for name in sorted(totals):
        row = totals[name]
        print(f"{name:<{width}}  {row[0]:>6} {row[0] - row[1]:>6}  {row[2]:>8} "
              f"{row[2] - row[3]:>6}  {percent(row):5.1f}%")
    whole = [sum(row[i] for row in totals.values()) for i in range(4)]
    total = percent(whole)
    floor = float(cov.config.fail_under or 0)
    print(f"{'TOTAL':<{width}}  {whole[0]:>6} {whole[0] - whole[1]:>6}  {whole[2]:>8} "
          f"{whole[2] - whole[3]:>6}  {total:5.1f}%   (floor {floor:g}%)")
    if total < floor:
        print(f"coverage {total:.1f}% is below the floor of {floor:g}% "
              "([tool.coverage.report] fail_under in pyproject.toml)", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
