"""SIGINT and SIGTERM end any command within a couple of seconds, with no server left running.

On the first signal: no new server may start (``transports.processes`` refuses), every server
tree started so far is stopped (SIGTERM, then SIGKILL after a short grace; the Job Object on
Windows), and ``KeyboardInterrupt`` is raised in the main thread so the command unwinds through
its normal cleanup: captures whose servers were stopped fail at once, nothing more is written,
and the command exits with 128 + the signal number. Should anything still hold the process
(a remote server that does not answer, a worker thread waiting on it) ``HARD_EXIT_S`` after the
signal, the trees are killed once more and the process exits without waiting. A second signal
exits at once. See docs/GUARANTEES.md.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from mcpcost.transports.processes import kill_every_tree, stop_every_tree

HARD_EXIT_S = 1.2
HANDLED = (signal.SIGINT, signal.SIGTERM)


class Interrupts:
    """The signal received (if any) and what follows it."""

    def __init__(self, hard_exit_s: float = HARD_EXIT_S) -> None:
        self.signum: int | None = None
        self.hard_exit_s = hard_exit_s

    @property
    def exit_code(self) -> int:
        return 128 + (self.signum or signal.SIGINT)

    def handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is not None:  # a second signal: nothing more is waited for
            kill_every_tree()
            os._exit(128 + signum)
        self.signum = signum
        threading.Thread(target=stop_every_tree, daemon=True, name="mcpcost-reap").start()
        threading.Thread(target=self._hard_exit, daemon=True, name="mcpcost-exit").start()
        raise KeyboardInterrupt

    def _hard_exit(self) -> None:
        time.sleep(self.hard_exit_s)
        kill_every_tree()
        try:
            sys.stderr.write("interrupted\n")
            sys.stderr.flush()
        finally:
            os._exit(self.exit_code)


@contextmanager
def handling_interrupts() -> Iterator[Interrupts]:
    """Install the handlers for the duration of a command (main thread only; elsewhere the
    command runs with whatever handlers it has)."""
    caught = Interrupts()
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    previous = {s: signal.getsignal(s) for s in HANDLED}
    for s in HANDLED:
        signal.signal(s, caught.handle)
    try:
        yield caught
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
