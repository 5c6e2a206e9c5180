#!/usr/bin/env python3
"""Make the interim published tree from a sweep's tree: keep what measured, list the rest as
``not-yet-run`` with the reason (``mcpcost.sweep.interim``), then publish.

usage: scripts/interim-tree.py SWEPT --out DIR --date YYYY-MM-DD --environment TEXT
                               [--servers servers.yaml]

SWEPT is the ``--out`` of a ``mcpcost sweep`` run. Into DIR it copies, for every kept
measurement (``measured``, ``dynamic``, ``auth-required``, ``remote-auth-wall``), its
``results/<name>/`` files and ``badges/<name>.json`` (made from the measurement when SWEPT has
none); it writes ``results/not-yet-run.json`` with a reason for every other one (the environment
text, then the status and note the attempt ended in) and publishes as ``mcpcost publish`` does:
history folded, pages rendered from what was kept, and a grey ``not yet run`` badge for every
entry the pages show as not-yet-run. All of it is staged in one transaction and reaches DIR in
one commit, or not at all. Exit: 0, or 2 on bad arguments or when DIR would hold no measurement.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcpcost.cli.merge_cmd import load_optional_catalog
from mcpcost.cli.publish_cmd import report
from mcpcost.core.badge import badge_file_text
from mcpcost.errors import InputError
from mcpcost.runtime.output_tree import open_tree, read_in_tree
from mcpcost.sweep.files import badge_rel, load_measurements
from mcpcost.sweep.interim import KEPT, NOT_YET_RUN_REL, not_yet_run_json, pending_from
from mcpcost.sweep.publish import publish_into


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
    try:
        catalog = load_optional_catalog(args.servers)
    except InputError as exc:
        print(exc, file=sys.stderr)
        return 2
    kept = sorted(n for n, m in measurements.items() if m.status in KEPT)
    reasons = pending_from(measurements, args.environment)
    with open_tree(args.out) as txn:
        for name in kept:
            folder = args.swept / "results" / name
            for path in sorted(folder.iterdir()):
                rel = f"results/{name}/{path.name}"
                data = read_in_tree(args.swept, rel)
                if path.is_file() and data is not None:
                    txn.put(rel, data)
            badge = read_in_tree(args.swept, badge_rel(name))
            txn.put(
                badge_rel(name), badge if badge is not None else badge_file_text(measurements[name])
            )
        txn.put(NOT_YET_RUN_REL, not_yet_run_json(args.date, args.environment, reasons))
        if not load_measurements(txn.root, txn):
            print(f"{args.out}: would hold no measurement; nothing written", file=sys.stderr)
            return 2
        print(f"kept {len(kept)}, not yet run {len(reasons)}: {', '.join(sorted(reasons))}")
        published = publish_into(txn, catalog)
        txn.commit()
    report(published, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
