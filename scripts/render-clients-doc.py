#!/usr/bin/env python3
"""Write docs/CLIENTS.md from the clients' lens rules (``mcpcost.configs.clients.rules_doc``).

    scripts/render-clients-doc.py [--check] [--output docs/CLIENTS.md]

``--check`` writes nothing and exits 1 when the file differs from what the rules say (0 when it
is current). Exit 2 when the file cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcpcost.configs.clients.rules_doc import clients_doc
from mcpcost.runtime.output_tree import atomic_write

DEFAULT = Path(__file__).resolve().parent.parent / "docs" / "CLIENTS.md"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="render-clients-doc.py", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 when the file is stale")
    parser.add_argument("--output", type=Path, default=DEFAULT, help="where the page goes")
    args = parser.parse_args(argv)
    text = clients_doc()
    if args.check:
        try:
            current = args.output.read_text(encoding="utf-8")
        except OSError:
            current = None
        if current != text:
            print(f"{args.output} is stale: run scripts/render-clients-doc.py", file=sys.stderr)
            return 1
        return 0
    try:
        atomic_write(args.output, text)
    except OSError as exc:
        print(f"cannot write {args.output}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
