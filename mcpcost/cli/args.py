"""An argparse that fails with one line and exit 2 instead of printing usage and exiting."""

from __future__ import annotations

import argparse
from typing import NoReturn

from mcpcost import __version__
from mcpcost.errors import UsageError


class ArgParser(argparse.ArgumentParser):
    """ArgumentParser that raises UsageError; unknown flags name the running version."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments"):
            message = (
                f"{message} (mcp-context-cost {__version__} does not know these flags; "
                f"see 'mcpcost {self.prog.split()[-1]} --help')"
            )
        raise UsageError(f"{self.prog}: {message}")

    def parse_known_or_fail(self, argv: list[str]) -> argparse.Namespace:
        return self.parse_args(argv)


def positive_int(text: str) -> int:
    """An integer > 0 (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """An integer >= 0 (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}") from None
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value
