"""``mcpcost verify PATH_OR_URL... [--json]``: re-derive published measurements."""

from __future__ import annotations

from typing import Any, TextIO

from mcpcost.cli.args import ArgParser
from mcpcost.cli.io import read_source
from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.terminal import terminal_line
from mcpcost.core.verify import VerifyResult, verify_document
from mcpcost.errors import EXIT_CHECK_FAILED, EXIT_OK, InputError


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost verify",
        description="Re-derive each measurement.json from its rawToolsCapture and compare "
        "total, sha256, tool count, methodology, encoding and per-tool numbers.",
    )
    p.add_argument("sources", nargs="*", metavar="PATH_OR_URL", help="files, URLs or - (stdin)")
    p.add_argument("--remote", action="append", default=[], metavar="URL",
                   help="a URL to verify (same as passing it positionally)")  # fmt: skip
    p.add_argument("--json", action="store_true", help="one JSON object per input per line")
    return p


def verify_source(source: str) -> VerifyResult:
    """Verify one input; unreadable or invalid input becomes a failed result, never an error."""
    try:
        doc = parse_json(read_source(source))
    except InputError as exc:
        return VerifyResult(False, None, None, None, (str(exc),), None)
    return verify_document(doc)


def result_json(source: str, result: VerifyResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "source": source,
        "ok": result.ok,
        "serverName": result.server_name,
        "rederivedTokens": result.rederived_tokens,
        "rederivedSha": result.rederived_sha,
        "problems": list(result.problems),
    }
    if result.ok and result.badge is not None:
        out["badge"] = result.badge
    return out


def run(argv: list[str], out: TextIO, err: TextIO) -> int:
    args = build_parser().parse_args(argv)
    sources: list[str] = [*args.sources, *args.remote]
    if not sources:
        build_parser().error("give at least one measurement.json path or URL")
    all_ok = True
    for source in sources:
        result = verify_source(source)
        all_ok = all_ok and result.ok
        if args.json:
            out.write(stringify(result_json(source, result)) + "\n")
            continue
        name = terminal_line(result.server_name or source)
        if result.ok:
            out.write(
                f"OK {name}: {result.rederived_tokens} tokens ({terminal_line(result.encoding)}, "
                f"methodology {terminal_line(result.methodology_version)}) — capture, hash, and "
                "count all agree\n"
            )
            out.write(f"badge: {terminal_line(result.badge)}\n")
        else:
            out.write(f"FAIL {name}:\n")
            for problem in result.problems:
                out.write(f"  - {terminal_line(problem)}\n")
    return EXIT_OK if all_ok else EXIT_CHECK_FAILED
