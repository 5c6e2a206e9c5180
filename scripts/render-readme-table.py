#!/usr/bin/env python3
"""Write the README's short leaderboard table from the committed published tree.

usage: scripts/render-readme-table.py [--root DIR] [--readme FILE] [--check]

Reads ``DIR/results/<name>/measurement.json``, the catalog ``DIR/servers.yaml`` and
``DIR/results/not-yet-run.json`` (the same rows ``mcpcost publish`` draws its pages from:
``mcpcost.sweep.views.build_board``) and replaces what lies between the two marker lines
(``START`` and ``END`` below) in the README: a sample of the measured range (the heaviest, the
lightest and servers evenly spaced between them, ``SAMPLE`` in all), then one line with how many
were measured, the measuring dates and a link to the full leaderboard. Names and categories go
through the Markdown boundary (``mcpcost.escaping.markdown``).

Exit 0 written (or, with ``--check``, already current), 1 with ``--check`` when the README's
table differs from what the tree gives (the difference is printed), 2 when the README has no
markers or the tree no measurement.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcpcost.core.badge import format_thousands
from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.status import Status
from mcpcost.errors import InputError
from mcpcost.escaping.markdown import md_text
from mcpcost.runtime.output_tree import atomic_write, read_in_tree
from mcpcost.sweep.catalog import read_catalog
from mcpcost.sweep.files import load_measurements
from mcpcost.sweep.interim import NOT_YET_RUN_REL
from mcpcost.sweep.views import Board, Row, build_board

START = "<!-- readme-leaderboard:start (scripts/render-readme-table.py writes this part) -->"
END = "<!-- readme-leaderboard:end -->"
SAMPLE = 7
LEADERBOARD = "results/leaderboard.md"


def sample(rows: tuple[Row, ...], n: int = SAMPLE) -> list[Row]:
    """``n`` rows spread evenly over ``rows`` (already heaviest first), both ends included."""
    if len(rows) <= n:
        return list(rows)
    picks = sorted({round(i * (len(rows) - 1) / (n - 1)) for i in range(n)})
    return [rows[i] for i in picks]


def _label(row: Row) -> str:
    category = row.category.replace("-", " ")
    name = md_text(row.name)
    return f"{name} ({md_text(category)})" if category else name


def _dates(rows: tuple[Row, ...]) -> str:
    days = sorted({r.measurement.measured_at[:10] for r in rows if r.measurement is not None})
    if not days:
        return "no sweep yet"
    return days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}"


def table(board: Board) -> str:
    lines = ["| server | context cost | tools |", "|---|---:|---:|"]
    for row in sample(board.measured):
        lines.append(
            f"| {_label(row)} | {format_thousands(row.tokens or 0)} tokens | {row.tool_count} |"
        )
    pending = sum(1 for r in board.not_measured if r.status is Status.NOT_YET_RUN)
    lines += [
        "",
        f"({len(board.measured)} of {board.total} catalogued servers measured, "
        f"{_dates(board.measured)}; {pending} not yet run, each with its reason. Full table, "
        f"every status and every reason: [{LEADERBOARD}]({LEADERBOARD}).)",
    ]
    return "\n".join(lines)


def board_of(root: Path) -> Board:
    measurements = load_measurements(root)
    if not measurements:
        raise InputError(f"{root}: no results/<name>/measurement.json")
    catalog_path = root / "servers.yaml"
    catalog = read_catalog(str(catalog_path)) if catalog_path.is_file() else None
    raw = read_in_tree(root, NOT_YET_RUN_REL)
    pending = parse_json(raw) if raw is not None else None
    return build_board(catalog, measurements, [], not_yet_run=pending)


def replaced(readme: str, body: str) -> str:
    start, end = readme.find(START), readme.find(END)
    if start < 0 or end < start:
        raise InputError(f"the README has no {START!r} ... {END!r} markers")
    return readme[: start + len(START)] + "\n" + body + "\n" + readme[end:]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="scripts/render-readme-table.py")
    p.add_argument("--root", type=Path, default=Path("."))
    p.add_argument("--readme", type=Path)
    p.add_argument("--check", action="store_true")
    args = p.parse_args(argv)
    readme_path = args.readme or args.root / "README.md"
    try:
        current = readme_path.read_text("utf-8")
        wanted = replaced(current, table(board_of(args.root)))
    except (InputError, OSError) as exc:
        print(f"render-readme-table: {exc}", file=sys.stderr)
        return 2
    if args.check:
        if wanted == current:
            return 0
        print(
            "render-readme-table: the README's leaderboard table is stale; "
            "run scripts/render-readme-table.py. It should read:",
            file=sys.stderr,
        )
        print(table(board_of(args.root)), file=sys.stderr)
        return 1
    if wanted != current:
        atomic_write(readme_path, wanted)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
