"""``mcpcost badge MEASUREMENT.json [--label TEXT]``: the shields.io endpoint JSON.

Exit 0 printed, 2 the input cannot be read or is not a measurement.
"""

from __future__ import annotations

from typing import TextIO

from mcpcost.cli.args import ArgParser
from mcpcost.cli.io import read_source
from mcpcost.core.badge import DEFAULT_LABEL, badge_for_measurement
from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.model import Measurement
from mcpcost.errors import EXIT_OK, InputError


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost badge",
        description="Print the shields.io endpoint badge JSON "
        "for a measurement (grey 'unknown' for servers that could not be measured).",
    )
    p.add_argument("source", metavar="MEASUREMENT", help="measurement.json path, URL or -")
    p.add_argument(
        "--label", default=DEFAULT_LABEL, help=f"badge label (default {DEFAULT_LABEL!r})"
    )
    return p


def run(argv: list[str], out: TextIO, err: TextIO) -> int:
    args = build_parser().parse_args(argv)
    data = read_source(args.source)
    try:
        measurement = Measurement.from_dict(parse_json(data))
    except InputError as exc:
        label = "stdin" if args.source == "-" else args.source
        raise InputError(f"{label}: not a measurement: {exc}") from None
    out.write(badge_for_measurement(measurement, args.label) + "\n")
    return EXIT_OK
