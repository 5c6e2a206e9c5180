"""``mcpcost verify PATH_OR_URL... [--json] [--strict]``: re-derive published measurements.

A directory stands for every ``measurement.json`` under it (a sweep's or publish's tree).
Exit 0 when every measurement re-derives or is a consistently recorded failure (``--strict``:
a recorded failure fails too), 1 when one disagrees, 2 when an input cannot be read or is not a
measurement at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from mcpcost.cli.args import ArgParser
from mcpcost.cli.io import is_url, read_source
from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.plural import counted
from mcpcost.core.verify import VerifyResult, VerifyVerdict, verify_document
from mcpcost.errors import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE, InputError
from mcpcost.escaping.terminal import terminal_line

MEASUREMENT_FILE = "measurement.json"


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost verify",
        description="Re-derive each measurement.json from its rawToolsCapture and compare "
        "total, sha256, tool count, methodology, encoding and per-tool numbers. A directory "
        "stands for every measurement.json under it. Failures recorded as such (a timeout, a "
        "startup failure) are reported as recorded, not measured.",
        epilog="Exit codes: 0 every measurement agrees or is a recorded failure, 1 one "
        "disagrees (or, with --strict, is a recorded failure), 2 an input cannot be read.",
    )
    p.add_argument(
        "sources", nargs="*", metavar="PATH_OR_URL", help="files, directories, URLs or - (stdin)"
    )
    p.add_argument(
        "--remote",
        action="append",
        default=[],
        metavar="URL",
        help="a URL to verify (same as passing it positionally)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per input per line")
    p.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 1) on recorded failures too, not only on disagreements",
    )
    return p


@dataclass(frozen=True, slots=True)
class SourceResult:
    """One input: its verification, or why it could not be read (``unreadable``)."""

    source: str
    result: VerifyResult | None
    unreadable: str | None = None


def expand_sources(sources: list[str]) -> list[str]:
    """Each directory replaced by the measurement.json files under it, sorted."""
    out: list[str] = []
    for source in sources:
        if source != "-" and not is_url(source) and Path(source).is_dir():
            found = sorted(str(p) for p in Path(source).rglob(MEASUREMENT_FILE) if p.is_file())
            out.extend(found or [source])  # an empty directory is reported as unreadable
        else:
            out.append(source)
    return out


def verify_source(source: str) -> SourceResult:
    """Verify one input; unreadable input or a non-object is ``unreadable``, never an error."""
    try:
        if source != "-" and not is_url(source) and Path(source).is_dir():
            raise InputError(f"{source}: a directory without any {MEASUREMENT_FILE}")
        doc = parse_json(read_source(source))
    except InputError as exc:
        text = str(exc)
        label = "stdin" if source == "-" else source
        return SourceResult(source, None, text if label in text else f"{label}: {text}")
    if not isinstance(doc, dict):
        return SourceResult(source, None, f"{source}: not a measurement (not a JSON object)")
    return SourceResult(source, verify_document(doc))


def result_json(item: SourceResult) -> dict[str, Any]:
    result = item.result
    if result is None:
        return {
            "source": item.source,
            "ok": False,
            "verdict": "unreadable",
            "serverName": None,
            "rederivedTokens": None,
            "rederivedSha": None,
            "problems": [item.unreadable],
        }
    out: dict[str, Any] = {
        "source": item.source,
        "ok": result.ok,
        "verdict": str(result.verdict),
        "serverName": result.server_name,
        "rederivedTokens": result.rederived_tokens,
        "rederivedSha": result.rederived_sha,
        "problems": list(result.problems),
    }
    if result.recorded_status is not None:
        out["status"] = result.recorded_status
    if result.ok and result.badge is not None:
        out["badge"] = result.badge
    return out


def text_lines(item: SourceResult) -> list[str]:
    result = item.result
    if result is None:
        return [terminal_line(item.unreadable)]
    name = terminal_line(result.server_name or item.source)
    if result.verdict == VerifyVerdict.AGREES:
        return [
            f"OK {name}: {counted(result.rederived_tokens or 0, 'token', grouped=False)} "
            f"({terminal_line(result.encoding)}, "
            f"methodology {terminal_line(result.methodology_version)}) — capture, hash, and count "
            "all agree",
            f"badge: {terminal_line(result.badge)}",
        ]
    if result.verdict == VerifyVerdict.RECORDED:
        return [
            f"RECORDED {name}: {terminal_line(result.recorded_status)} (recorded, not measured: "
            "nothing to re-derive)"
        ]
    return [f"FAIL {name}:", *(f"  - {terminal_line(problem)}" for problem in result.problems)]


def exit_code(items: list[SourceResult], *, strict: bool) -> int:
    if any(item.result is None for item in items):
        return EXIT_USAGE
    failing = {VerifyVerdict.DISAGREES, *((VerifyVerdict.RECORDED,) if strict else ())}
    if any(item.result is not None and item.result.verdict in failing for item in items):
        return EXIT_CHECK_FAILED
    return EXIT_OK


def run(argv: list[str], out: TextIO, err: TextIO) -> int:
    args = build_parser().parse_args(argv)
    sources = expand_sources([*args.sources, *args.remote])
    if not sources:
        build_parser().error("give at least one measurement.json path, directory or URL")
    items: list[SourceResult] = []
    for source in sources:
        item = verify_source(source)
        items.append(item)
        if args.json:
            out.write(stringify(result_json(item)) + "\n")
        elif item.result is None:
            err.write(f"{terminal_line(item.unreadable)}\n")
        else:
            out.write("".join(line + "\n" for line in text_lines(item)))
    counts = {v: sum(1 for i in items if i.result and i.result.verdict == v) for v in VerifyVerdict}
    unreadable = sum(1 for i in items if i.result is None)
    if len(items) > 1:
        err.write(
            f"{counts[VerifyVerdict.AGREES]} agree, "
            f"{counted(counts[VerifyVerdict.RECORDED], 'recorded failure')}, "
            f"{counts[VerifyVerdict.DISAGREES]} disagree, "
            f"{unreadable} unreadable\n"
        )
    return exit_code(items, strict=args.strict)
