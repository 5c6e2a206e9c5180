"""``mcpcost publish [--out DIR]``: regenerate history, leaderboard, pages and dashboard, and
the state badges (``not yet run``, ``OAuth-gated``) of the catalogued entries without a
measurement.

A tree without any readable ``results/<name>/measurement.json`` (often a mistyped ``--out``) is
refused with exit 2 before anything is written, unless ``--allow-empty`` asks for empty pages.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from mcpcost.cli.args import ArgParser
from mcpcost.cli.merge_cmd import load_optional_catalog
from mcpcost.core.plural import counted
from mcpcost.errors import EXIT_OK, InputError
from mcpcost.escaping.terminal import terminal_line
from mcpcost.sweep.files import load_measurements
from mcpcost.sweep.publish import Published, publish


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost publish",
        description="Regenerate results/history.csv, results/leaderboard.md/.csv, "
        "results/estimator.json, results/data.json, docs/servers/*.md and "
        "docs/dashboard.html from the measurements on disk, and a grey 'not yet run' badge "
        "for each catalogued entry without a measurement ('OAuth-gated' for a remote listed "
        "behind a sign-in). Deterministic: the same "
        "measurements give the same bytes.",
    )
    p.add_argument("--out", default=".", metavar="DIR", help="published tree (default: .)")
    p.add_argument("--servers", metavar="FILE", help="catalog (default: servers.yaml if present)")
    p.add_argument(
        "--allow-empty",
        action="store_true",
        help="publish even when DIR holds no results/<name>/measurement.json",
    )
    return p


def run(argv: list[str], out: TextIO, err: TextIO) -> int:
    args = build_parser().parse_args(argv)
    catalog = load_optional_catalog(args.servers)
    root = Path(args.out)
    if not args.allow_empty and not load_measurements(root):
        where = (
            "does not exist" if not root.exists() else "holds no results/<name>/measurement.json"
        )
        raise InputError(
            f"mcpcost publish: {args.out} {where}; nothing to publish (check --out, "
            "or pass --allow-empty to write empty pages)"
        )
    report(publish(root, catalog), out)
    return EXIT_OK


def report(result: Published, out: TextIO) -> None:
    """What a publish wrote and removed, one path a line."""
    out.write(
        f"published {result.measured}/{result.total} measured; "
        f"{counted(len(result.written), 'file')} changed, "
        f"{counted(len(result.removed), 'stale file')} removed\n"
    )
    for rel in result.written:
        out.write(f"  {terminal_line(rel)}\n")
    for rel in result.removed:
        out.write(f"  removed {terminal_line(rel)}\n")
