"""An argparse that fails with one line and exit 2 instead of printing usage and exiting."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any, NoReturn

from mcpcost.cli.streams import terminal_width
from mcpcost.core.patterns import LazyPattern
from mcpcost.core.suggest import did_you_mean
from mcpcost.errors import UsageError
from mcpcost.version import __version__

_INVALID_CHOICE = LazyPattern(r"invalid choice: '([^']*)' \(choose from (.*)\)")


class HelpLayout(argparse.HelpFormatter):
    """argparse's help layout, wrapped to the terminal (``streams.terminal_width``; argparse
    prints help on ``sys.stdout``, 80 columns when that is no terminal). argparse's own formatter asks
    ``shutil`` for the size, and one is made for every argument added; shutil loads the
    compression modules, which would delay the start of every command."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
        **later: Any,  # whatever a newer argparse passes, handed on unchanged
    ) -> None:
        wrap = terminal_width(os.environ, sys.stdout, 80) - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, wrap, **later)


class ArgParser(argparse.ArgumentParser):
    """ArgumentParser that raises UsageError; unknown flags name the running version."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", HelpLayout)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments"):
            hints = self._flag_hints(message.removeprefix("unrecognized arguments:").split())
            message = (
                f"{message}{hints} (mcp-context-cost {__version__} does not know these flags; "
                f"see 'mcpcost {self.prog.split()[-1]} --help')"
            )
        else:
            choice = _INVALID_CHOICE.search(message)
            if choice is not None:
                choices = re.findall(r"'([^']*)'|([^,\s]+)", choice.group(2))
                meant = did_you_mean(choice.group(1), [a or b for a, b in choices])
                message += f"; did you mean {meant!r}?" if meant else ""
        raise UsageError(f"{self.prog}: {message}")

    def _flag_hints(self, words: list[str]) -> str:
        """``; did you mean --budget?`` for each unknown flag close to a known one."""
        flags = [f for f in self._option_string_actions if f.startswith("--")]
        hints: list[tuple[str, str]] = []
        for word in words:
            if not word.startswith("-"):
                continue
            flag = word.split("=", 1)[0]
            meant = did_you_mean(flag, flags)
            if meant is not None:
                hints.append((flag, meant))
        if len(hints) == 1:
            return f"; did you mean {hints[0][1]}?"
        return "".join(f"; did you mean {meant} for {flag}?" for flag, meant in hints)


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
