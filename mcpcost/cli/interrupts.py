"""SIGINT and SIGTERM end any command within a couple of seconds, with no server left running.

On the first signal two things happen independently:

* a watchdog thread, woken by the signal's byte on a wakeup socket (written by the interpreter's
  C-level handler, so it does not wait for the main thread to reach Python code), refuses every
  new server (``transports.processes``), stops every server tree started so far (SIGTERM, then
  SIGKILL after a short grace; the Job Object on Windows) and, should the process still be
  running ``HARD_EXIT_S`` after the signal, kills the trees once more and exits at once;
* the Python handler raises ``KeyboardInterrupt`` in the main thread, so the command unwinds
  through its normal cleanup: captures whose servers were stopped fail at once and nothing more
  is written. ``main`` turns it into ``interrupted`` and exit code 128 + the signal number.

A second signal exits at once. See docs/GUARANTEES.md.
"""

from __future__ import annotations

import os
import signal
import socket
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
        self.reported = False  # ``main`` already wrote "interrupted"

    @property
    def exit_code(self) -> int:
        return 128 + (self.signum or signal.SIGINT)

    def handle(self, signum: int, frame: FrameType | None) -> None:
        """The Python-level handler (main thread): unwind the command."""
        if self.signum is not None:  # a second signal: nothing more is waited for
            kill_every_tree()
            os._exit(128 + signum)
        self.signum = signum
        raise KeyboardInterrupt

    def watch(self, wakeup: socket.socket) -> None:
        """The watchdog: wait for a handled signal's byte, then reap and bound the exit."""
        while True:
            try:
                data = wakeup.recv(1)
            except OSError:
                return
            if not data:  # the command ended and closed the socket
                return
            if data[0] in HANDLED:
                break
        signum = data[0]
        threading.Thread(target=stop_every_tree, daemon=True, name="mcpcost-reap").start()
        time.sleep(self.hard_exit_s)  # the bound holds however long the stops take
        kill_every_tree()
        try:
            if not self.reported:
                os.write(2, b"interrupted\n")
        finally:
            os._exit(128 + signum)


@contextmanager
def handling_interrupts() -> Iterator[Interrupts]:
    """Install the handlers and the watchdog for the duration of a command (main thread only;
    elsewhere the command runs with whatever handlers it has)."""
    caught = Interrupts()
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    previous = {s: signal.getsignal(s) for s in HANDLED}
    previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    for s in HANDLED:
        signal.signal(s, caught.handle)
    watchdog = threading.Thread(
        target=caught.watch, args=(reader,), daemon=True, name="mcpcost-interrupts"
    )
    watchdog.start()
    try:
        yield caught
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        signal.set_wakeup_fd(previous_fd)
        if caught.signum is None:  # else the watchdog is reaping: leave it its socket
            writer.close()
            reader.shutdown(socket.SHUT_RDWR)
            reader.close()
