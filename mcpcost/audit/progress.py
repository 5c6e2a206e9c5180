"""Progress of an audit, reported to an injected observer (never to stdout).

``ProgressObserver`` is what the audit calls as it measures; ``progress_for(stream)`` picks a
live single-line display when the stream is a terminal and plain lines otherwise. ``NullProgress`` says nothing.
Only server names are shown (escaped for the terminal), never commands, env or header values.
"""

from __future__ import annotations

import threading
from typing import Protocol, TextIO

from mcpcost.core.status import Status
from mcpcost.escaping.terminal import terminal_line


class ProgressObserver(Protocol):
    """Told when each distinct launch starts and finishes (calls may come from worker threads)."""

    def started(self, name: str, total: int) -> None: ...

    def finished(self, name: str, status: Status, done: int, total: int) -> None: ...


class NullProgress:
    """An observer that reports nothing."""

    def started(self, name: str, total: int) -> None:
        return None

    def finished(self, name: str, status: Status, done: int, total: int) -> None:
        return None


class LineProgress:
    """One plain line per finished server: ``  [done/total] name status``."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def started(self, name: str, total: int) -> None:
        return None

    def finished(self, name: str, status: Status, done: int, total: int) -> None:
        with self._lock:
            self._stream.write(
                f"  [{done}/{total}] {terminal_line(name)} {terminal_line(status)}\n"
            )
            self._stream.flush()


class LiveProgress:
    """A single line rewritten in place on a terminal; cleared when everything is done."""

    def __init__(self, stream: TextIO, width: int = 78) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._running: list[str] = []
        self._done = 0
        self._width = width

    def _draw(self, total: int) -> None:
        names = ", ".join(terminal_line(name) for name in self._running)
        text = f"measuring [{self._done}/{total}] {names}"
        if len(text) > self._width:
            text = text[: self._width - 1] + "…"
        # the line's own clear sequence bypasses the stream's escaping; the text does not
        control = getattr(self._stream, "write_control", self._stream.write)
        control("\r\x1b[2K")
        self._stream.write(text)
        if self._done >= total:
            control("\r\x1b[2K")
        self._stream.flush()

    def started(self, name: str, total: int) -> None:
        with self._lock:
            self._running.append(name)
            self._draw(total)

    def finished(self, name: str, status: Status, done: int, total: int) -> None:
        with self._lock:
            if name in self._running:
                self._running.remove(name)
            self._done = done
            self._draw(total)


def progress_for(stream: TextIO) -> ProgressObserver:
    """Live display on a terminal, plain lines otherwise."""
    isatty = getattr(stream, "isatty", None)
    try:
        tty = bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):
        tty = False
    return LiveProgress(stream) if tty else LineProgress(stream)
