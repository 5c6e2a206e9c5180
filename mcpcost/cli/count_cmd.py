"""``mcpcost count [FILE|-] [--json] [--canonical]``: tokens and sha256 of any JSON document.

Exit 0 counted, 2 the input cannot be read or is not JSON.
"""

from __future__ import annotations

from typing import TextIO

from mcpcost.cli.args import ArgParser
from mcpcost.cli.io import read_source
from mcpcost.core.canonical import canonicalize
from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.terminal import terminal_line
from mcpcost.core.tokenizer import count_tokens
from mcpcost.errors import EXIT_OK, EXIT_USAGE, InputError


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost count",
        description="Parse a JSON document as JSON.parse would, canonicalise it as "
        "JSON.stringify would, and print its o200k_base token count and sha256.",
    )
    p.add_argument("source", nargs="?", default="-", metavar="FILE", help="a file or - (stdin)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--json", action="store_true", help='print {"tokens","sha256","bytes"}')
    mode.add_argument(
        "--canonical",
        action="store_true",
        help="write the canonical bytes to stdout exactly (no newline added)",
    )
    return p


def run(argv: list[str], out: TextIO, err: TextIO) -> int:
    args = build_parser().parse_args(argv)
    try:
        canonical = canonicalize(parse_json(read_source(args.source)))
    except InputError as exc:
        label = "stdin" if args.source == "-" else args.source
        message = str(exc) if str(exc).startswith(label) else f"{label}: {exc}"
        err.write(terminal_line(message) + "\n")
        return EXIT_USAGE
    if args.canonical:
        out.flush()
        buffer = getattr(out, "buffer", None)
        if buffer is not None:
            buffer.write(canonical.data)
            buffer.flush()
        else:
            out.write(canonical.text)
        return EXIT_OK
    tokens = count_tokens(canonical.text)
    if args.json:
        doc = {"tokens": tokens, "sha256": canonical.sha256, "bytes": len(canonical.data)}
        out.write(stringify(doc) + "\n")
    else:
        out.write(f"{tokens} tokens  sha256 {canonical.sha256}  {len(canonical.data)} bytes\n")
    return EXIT_OK
