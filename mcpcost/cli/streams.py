"""The CLI's stdout and stderr, with the output boundary built in.

``main`` wraps both streams once, so no command can forget: every write is passed through
``mcpcost.escaping.terminal.document_text`` (control characters, ANSI/OSC sequences, bidi controls
and invisible characters shown escaped; ``\\n`` and the Markdown boundary's zero-width joiners
kept), and when ``GITHUB_ACTIONS`` is ``true`` every line through
``mcpcost.escaping.cilog.neutralize_workflow_commands`` (complete lines only: a partial line waits for
its end, or for ``finish``). Commands still escape each untrusted value where they format it
(``terminal_line``), so a value cannot forge a line break either; this is the net under them.
``write_control`` is for the CLI's own terminal sequences (the live progress line), never for
text that came from elsewhere.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from typing import Any, TextIO

from mcpcost.escaping.cilog import neutralize_workflow_commands
from mcpcost.escaping.terminal import document_text


def terminal_width(environ: Mapping[str, str], stream: Any, default: int) -> int:
    """The width output to ``stream`` fits: ``COLUMNS`` when it is a positive number, else the
    terminal's when ``stream`` is one, else ``default``."""
    columns = environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if stream is not None and stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns or default
    except (OSError, ValueError, AttributeError):
        pass
    return default


class SafeStream:
    """A text stream that escapes what it is given before it reaches ``raw``."""

    def __init__(self, raw: TextIO, *, ci_log: bool) -> None:
        self.raw = raw
        self.ci_log = ci_log
        self._pending = ""

    def write(self, text: str) -> int:
        safe = document_text(text)
        if self.ci_log:
            lines = (self._pending + safe).split("\n")
            self._pending = lines.pop()
            if lines:
                self.raw.write("".join(neutralize_workflow_commands(x) + "\n" for x in lines))
        else:
            self.raw.write(safe)
        return len(text)

    def write_control(self, sequence: str) -> None:
        """A terminal control sequence of our own (never untrusted text), written as is."""
        self.raw.write(sequence)

    def finish(self) -> None:
        """Write out a partial last line and flush (a closed or broken pipe is left alone)."""
        pending, self._pending = self._pending, ""
        with contextlib.suppress(OSError, ValueError):
            if pending:
                self.raw.write(neutralize_workflow_commands(pending))
            self.raw.flush()

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        isatty = getattr(self.raw, "isatty", None)
        return bool(isatty()) if callable(isatty) else False

    def __getattr__(self, name: str) -> Any:
        # ``buffer``, ``encoding``, ``fileno`` ...: the byte-exact paths (``count --canonical``)
        return getattr(self.raw, name)


def safe_streams(
    out: TextIO, err: TextIO, environ: dict[str, str]
) -> tuple[SafeStream, SafeStream]:
    """Both CLI streams wrapped; workflow commands neutralised under GitHub Actions."""
    ci_log = environ.get("GITHUB_ACTIONS") == "true"
    return SafeStream(out, ci_log=ci_log), SafeStream(err, ci_log=ci_log)
