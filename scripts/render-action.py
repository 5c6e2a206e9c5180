#!/usr/bin/env python3
"""Render the released action.yml: the default branch's action.yml with its ``runs.image``
(``Dockerfile``, built on every job) replaced by the published image pinned by digest
(``docker://<image>@sha256:<64 hex>``), pulled instead of built.

Everything else (inputs, outputs, descriptions, comments) is copied byte for byte; the result is
parsed back and checked before it is written. Usage:

    scripts/render-action.py --image ghcr.io/mcp-context-cost/action --digest sha256:<hex> \\
        [--source action.yml] [--output released/action.yml]

Without --output the rendered file goes to stdout. Exit 0 on success, 2 on a malformed image
name or digest, or a source action.yml that does not build from a Dockerfile.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
# A registry host (optionally with a port) and a lowercase repository path, no tag or digest.
IMAGE = re.compile(
    r"[a-z0-9]+(?:[.-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+"
)
# The one line of the source that says where the image comes from.
IMAGE_LINE = re.compile(r"^(?P<indent>[ \t]+)image:[ \t]*(?P<value>\S+)[ \t]*$", re.MULTILINE)
DEV_IMAGE = "Dockerfile"


class RenderError(Exception):
    """The inputs cannot make a valid released action.yml."""


def render(source: str, image: str, digest: str) -> str:
    """The released action.yml text for ``source`` (the dev action.yml) and an image digest."""
    if DIGEST.fullmatch(digest) is None:
        raise RenderError(f"digest must be sha256: and 64 lowercase hex digits, got {digest!r}")
    if IMAGE.fullmatch(image) is None:
        raise RenderError(f"image must be a lowercase registry/repository name, got {image!r}")
    lines = IMAGE_LINE.findall(source)
    if len(lines) != 1 or lines[0][1] != DEV_IMAGE:
        raise RenderError(f"the source action.yml must have exactly one 'image: {DEV_IMAGE}' line")
    pinned = f"docker://{image}@{digest}"
    rendered = IMAGE_LINE.sub(lambda m: f"{m['indent']}image: {pinned}", source)
    check(source, rendered, pinned)
    return rendered


def check(source: str, rendered: str, pinned: str) -> None:
    """The rendered file parses, runs the pinned image, and keeps every input and output."""
    before = yaml.safe_load(source)
    after = yaml.safe_load(rendered)
    runs = after.get("runs") or {}
    if runs.get("using") != "docker" or runs.get("image") != pinned:
        raise RenderError("the rendered action.yml does not run the pinned image")
    for key in ("name", "inputs", "outputs"):
        if after.get(key) != before.get(key):
            raise RenderError(f"rendering changed {key}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", required=True, help="e.g. ghcr.io/mcp-context-cost/action")
    parser.add_argument("--digest", required=True, help="sha256:<64 hex> of the pushed image")
    parser.add_argument("--source", type=Path, default=Path(__file__).parents[1] / "action.yml")
    parser.add_argument("--output", type=Path, help="file to write (default: stdout)")
    args = parser.parse_args(argv)
    try:
        source = args.source.read_text(encoding="utf-8")
        rendered = render(source, args.image, args.digest)
    except (OSError, RenderError, yaml.YAMLError) as exc:
        print(f"render-action: {exc}", file=sys.stderr)
        return 2
    if args.output is None:
        sys.stdout.write(rendered)
    else:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(rendered, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
