"""An argparse that fails with one line and exit 2 instead of printing usage and exiting."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Collection, Iterable
from typing import Any, NoReturn, TypeVar

from mcpcost.core.suggest import did_you_mean
from mcpcost.errors import UsageError
from mcpcost.version import __version__

Choice = TypeVar("Choice", bound=str)


class ArgParser(argparse.ArgumentParser):
    """ArgumentParser that raises UsageError; near misses name the closest flag or choice, and
    unknown flags name the running version. It works from what it was given (the flags added,
    the words left over, each argument's choices), never from the text of argparse's messages."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("allow_abbrev", False)
        self.known_flags: list[str] = []  # before argparse's own --help is added
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """argparse's ``add_argument``; ``choices`` without a ``type`` are checked by ``one_of``."""
        return self._noted(super().add_argument(*args, **_checked_choices(kwargs)))

    def add_argument_group(self, *args: Any, **kwargs: Any) -> Any:
        return self._noting(super().add_argument_group(*args, **kwargs))

    def add_mutually_exclusive_group(self, **kwargs: Any) -> Any:
        return self._noting(super().add_mutually_exclusive_group(**kwargs))

    def parse_args(self, args: Iterable[str] | None = None, namespace: Any = None) -> Any:
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            raise UsageError(
                f"{self.prog}: unrecognized arguments: {' '.join(extra)}{self._flag_hints(extra)} "
                f"(mcp-context-cost {__version__} does not know these flags; "
                f"see 'mcpcost {self.prog.split()[-1]} --help')"
            )
        return parsed

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")

    def _noted(self, action: argparse.Action) -> argparse.Action:
        self.known_flags.extend(f for f in action.option_strings if f.startswith("--"))
        return action

    def _noting(self, group: Any) -> Any:
        """``group`` with its ``add_argument`` checking choices and noting flags as ours does."""
        add = group.add_argument

        def add_argument(*args: Any, **kwargs: Any) -> argparse.Action:
            return self._noted(add(*args, **_checked_choices(kwargs)))

        group.add_argument = add_argument
        return group

    def _flag_hints(self, words: list[str]) -> str:
        """``; did you mean --budget?`` for each unknown flag close to a known one."""
        hints: list[tuple[str, str]] = []
        for word in words:
            if not word.startswith("-"):
                continue
            flag = word.split("=", 1)[0]
            meant = did_you_mean(flag, self.known_flags)
            if meant is not None:
                hints.append((flag, meant))
        if len(hints) == 1:
            return f"; did you mean {hints[0][1]}?"
        return "".join(f"; did you mean {meant} for {flag}?" for flag, meant in hints)


def one_of(choices: Collection[Choice]) -> Callable[[str], Choice]:
    """An argparse ``type`` accepting exactly ``choices`` (strings, or a ``StrEnum``'s members,
    which it returns); anything else fails with the choices and the closest one."""
    ordered = list(choices)

    def check(text: str) -> Choice:
        for choice in ordered:
            if choice == text:
                return choice
        meant = did_you_mean(text, ordered)
        listed = ", ".join(repr(str(c)) for c in ordered)
        hint = f"; did you mean {str(meant)!r}?" if meant is not None else ""
        raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {listed}){hint}")

    return check


def _checked_choices(kwargs: dict[str, Any]) -> dict[str, Any]:
    choices = kwargs.get("choices")
    if choices is not None and "type" not in kwargs:
        kwargs = {**kwargs, "type": one_of(tuple(choices))}
    return kwargs


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


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535 (argparse type)."""
    value = non_negative_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    """A finite number >= 0 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}")
    return value
