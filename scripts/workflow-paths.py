#!/usr/bin/env python3
"""Write the ``paths:`` filter of examples/workflows/pr-gate.yml from the client registry.

The list is every repository-level config path the Action reads by default
(``mcpcost.configs.clients.registry.PROJECT_CONFIG_PATHS``), in the registry's order, so a pull
request that changes any of them runs the gate. The registry holds plain paths and ``*`` in a
file name, which GitHub's filter reads as the Action's ``fnmatch`` does for files directly in
that directory (GitHub's ``*`` stops at ``/``, fnmatch's does not, so a file one directory
deeper is read by the Action without triggering the workflow). A path using any other glob
syntax is refused rather than written, since the two would read it differently.

usage: scripts/workflow-paths.py [--check] [WORKFLOW]
  WORKFLOW  default examples/workflows/pr-gate.yml
  --check   write nothing; exit 1 naming the difference when the file is not what it would write
Exit 0 written or up to date, 1 out of date (--check), 2 a file without a pull_request paths list.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcpcost.configs.clients.registry import PROJECT_CONFIG_PATHS  # noqa: E402

DEFAULT = ROOT / "examples" / "workflows" / "pr-gate.yml"
PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9._*-]+)*")
# the `paths:` key of the pull_request trigger and the list items under it
BLOCK = re.compile(r"(?m)^(  pull_request:\n    paths:[^\n]*\n)((?:      [^\n]*\n)+)")
HEADER = "    paths: # every repository config the Action reads (scripts/workflow-paths.py)\n"


def paths_block(paths: tuple[str, ...]) -> str:
    for path in paths:
        if not PLAIN.fullmatch(path.lstrip(".")) or "**" in path:
            raise SystemExit(f"workflow-paths: {path!r} is not a plain path or a one-level glob")
    return "".join(f'      - "{p}"\n' for p in paths)


def render(text: str, paths: tuple[str, ...]) -> str:
    found = BLOCK.search(text)
    if found is None:
        raise LookupError("no pull_request trigger with a paths: list")
    head = "  pull_request:\n" + HEADER
    return text[: found.start()] + head + paths_block(paths) + text[found.end() :]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/workflow-paths.py")
    parser.add_argument("workflow", nargs="?", default=str(DEFAULT))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    path = Path(args.workflow)
    text = path.read_text("utf-8")
    try:
        wanted = render(text, PROJECT_CONFIG_PATHS)
    except LookupError as exc:
        print(f"workflow-paths: {path}: {exc}", file=sys.stderr)
        return 2
    if wanted == text:
        return 0
    if args.check:
        print(
            f"workflow-paths: {path} is out of date with the client registry; "
            "run scripts/workflow-paths.py",
            file=sys.stderr,
        )
        return 1
    path.write_text(wanted, "utf-8")
    print(f"workflow-paths: wrote {len(PROJECT_CONFIG_PATHS)} paths to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
