#!/usr/bin/env python3
"""Make the interim published tree from a sweep's tree: keep what measured, list the rest as
``not-yet-run`` with the reason (``mcpcost.sweep.interim``), then ``mcpcost publish``.

usage: scripts/interim-tree.py SWEPT --out DIR --date YYYY-MM-DD --environment TEXT
                               [--servers servers.yaml]

SWEPT is the ``--out`` of a ``mcpcost sweep`` run. Into DIR it copies, for every kept
measurement (``measured``, ``dynamic``, ``auth-required``, ``remote-auth-wall``), its
``results/<name>/`` files and ``badges/<name>.json``; it writes ``results/not-yet-run.json``
with a reason for every other one (the environment text, then the status and note the attempt
ended in) and runs ``mcpcost publish --out DIR``, which folds history and renders the pages from
what was kept. Every write goes through the one writer. Exit: publish's, or 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from mcpcost.cli import main as mcpcost
from mcpcost.runtime.output_tree import read_in_tree, write_in_tree
from mcpcost.sweep.files import load_measurements
from mcpcost.sweep.interim import KEPT, NOT_YET_RUN_REL, not_yet_run_json, pending_from


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="scripts/interim-tree.py")
    p.add_argument("swept", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--date", required=True)
    p.add_argument("--environment", required=True)
    p.add_argument("--servers", default="servers.yaml")
    args = p.parse_args(argv)
    measurements = load_measurements(args.swept)
    if not measurements:
        print(f"{args.swept}: no results/<name>/measurement.json", file=sys.stderr)
        return 2
    kept = sorted(n for n, m in measurements.items() if m.status in KEPT)
    for name in kept:
        folder = args.swept / "results" / name
        for path in sorted(folder.iterdir()):
            rel = f"results/{name}/{path.name}"
            data = read_in_tree(args.swept, rel)
            if path.is_file() and data is not None:
                write_in_tree(args.out, rel, data)
        badge = read_in_tree(args.swept, f"badges/{name}.json")
        if badge is not None:
            write_in_tree(args.out, f"badges/{name}.json", badge)
    reasons = pending_from(measurements, args.environment)
    write_in_tree(args.out, NOT_YET_RUN_REL, not_yet_run_json(args.date, args.environment, reasons))
    print(f"kept {len(kept)}, not yet run {len(reasons)}: {', '.join(sorted(reasons))}")
    out, err = io.StringIO(), io.StringIO()
    code = mcpcost(["publish", "--out", str(args.out), "--servers", args.servers], out, err)
    sys.stdout.write(out.getvalue())
    sys.stderr.write(err.getvalue())
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
