"""``mcpcost merge SHARD_DIR... --out DIR``: fold sweep shard outputs under the harness guard."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from mcpcost.cli.args import ArgParser
from mcpcost.escaping.terminal import terminal_line
from mcpcost.sweep.catalog import Catalog, read_catalog
from mcpcost.sweep.merge import merge


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost merge",
        description="Copy each shard's measurements and badges into the output tree, apply the "
        "harness guard over their union, then fold history and regenerate the pages.",
    )
    p.add_argument("shards", nargs="+", metavar="SHARD_DIR")
    p.add_argument("--out", default=".", metavar="DIR", help="published tree (default: .)")
    p.add_argument("--servers", metavar="FILE", help="catalog (default: servers.yaml if present)")
    return p


def load_optional_catalog(path: str | None) -> Catalog | None:
    if path is not None:
        return read_catalog(path)
    return read_catalog("servers.yaml") if Path("servers.yaml").is_file() else None


def run(argv: list[str], out: TextIO, err: TextIO) -> int:
    args = build_parser().parse_args(argv)
    catalog = load_optional_catalog(args.servers)

    def progress(line: str) -> None:
        err.write(terminal_line(line) + "\n")

    outcome = merge([Path(s) for s in args.shards], Path(args.out), catalog, progress=progress)
    return outcome.exit_code
