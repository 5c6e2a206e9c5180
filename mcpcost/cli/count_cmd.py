"""``mcpcost count [FILE|-] [--capture] [--json] [--canonical]``: tokens and sha256 of any JSON
document, or of the tools capture a ``measurement.json`` holds.

A ``measurement.json`` counted whole is more than the server's number (the numbers, names and
notes around the capture count too), so the output says what was counted and, for a document
holding a ``rawToolsCapture`` array, gives the capture's own count beside it; ``--capture``
counts only that array, which re-derives the file's ``totalTokens``.

Exit 0 counted, 2 the input cannot be read, is not JSON, or (``--capture``) holds no capture.
"""

from __future__ import annotations

from typing import Any, TextIO

from mcpcost.cli.args import ArgParser
from mcpcost.cli.io import read_source
from mcpcost.core.canonical import Canonical, canonicalize
from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.plural import counted
from mcpcost.core.tokenizer import count_tokens
from mcpcost.errors import EXIT_OK, EXIT_USAGE, InputError
from mcpcost.escaping.terminal import terminal_line

CAPTURE_KEY = "rawToolsCapture"


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost count",
        description="Parse a JSON document as JSON.parse would, canonicalise it as "
        "JSON.stringify would, and print its o200k_base token count and sha256.",
    )
    p.add_argument("source", nargs="?", default="-", metavar="FILE", help="a file or - (stdin)")
    p.add_argument(
        "--capture",
        action="store_true",
        help=f"count only the document's {CAPTURE_KEY} (a measurement.json's number)",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--json",
        action="store_true",
        help='print {"tokens","sha256","bytes","counted"} (and "capture" for a measurement)',
    )
    mode.add_argument(
        "--canonical",
        action="store_true",
        help="write the canonical bytes to stdout exactly (no newline added)",
    )
    return p


def capture_of(doc: Any) -> list[Any] | None:
    """The tools capture a measurement.json document holds, or None."""
    if isinstance(doc, dict):
        capture = doc.get(CAPTURE_KEY)
        if isinstance(capture, list):
            return capture
    return None


def figures(canonical: Canonical, tokens: int) -> dict[str, Any]:
    return {"tokens": tokens, "sha256": canonical.sha256, "bytes": len(canonical.data)}


def run(argv: list[str], out: TextIO, err: TextIO) -> int:
    args = build_parser().parse_args(argv)
    label = "stdin" if args.source == "-" else args.source
    try:
        doc = parse_json(read_source(args.source))
    except InputError as exc:
        message = str(exc) if str(exc).startswith(label) else f"{label}: {exc}"
        err.write(terminal_line(message) + "\n")
        return EXIT_USAGE
    capture = capture_of(doc)
    if args.capture and capture is None:
        err.write(
            terminal_line(
                f"{label}: no {CAPTURE_KEY} array to count (--capture is for a "
                "measurement.json that holds one)"
            )
            + "\n"
        )
        return EXIT_USAGE
    canonical = canonicalize(capture if args.capture else doc)
    if args.canonical:
        out.flush()
        buffer = getattr(out, "buffer", None)
        if buffer is not None:
            buffer.write(canonical.data)
            buffer.flush()
        else:
            out.write(canonical.text)
        return EXIT_OK
    result = figures(canonical, count_tokens(canonical.text))
    what = CAPTURE_KEY if args.capture else "document"
    inner = None
    if capture is not None and not args.capture:
        inner_canonical = canonicalize(capture)
        inner = figures(inner_canonical, count_tokens(inner_canonical.text))
    if args.json:
        doc_out = {**result, "counted": what}
        if inner is not None:
            doc_out["capture"] = inner
        out.write(stringify(doc_out) + "\n")
        return EXIT_OK
    whole = "its rawToolsCapture" if args.capture else "the whole document"
    out.write(
        f"{counted(result['tokens'], 'token')}  sha256 {result['sha256']}  "
        f"{counted(result['bytes'], 'byte')} ({whole})\n"
    )
    if inner is not None:
        out.write(
            f"its {CAPTURE_KEY}, the server's number: {counted(inner['tokens'], 'token')}  "
            f"sha256 {inner['sha256']}  (mcpcost count --capture counts only that)\n"
        )
    return EXIT_OK
