"""SIGINT and SIGTERM end any command within a couple of seconds, with no server left running.

On the first signal two things happen independently:

* a watchdog thread, woken by the signal's byte on a wakeup channel (written by the interpreter's
  C-level handler, so it does not wait for the main thread to reach Python code), refuses every
  new server (``runtime.processes``), stops every server tree started so far (SIGTERM, then
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
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType

from mcpcost.runtime.processes import kill_every_tree, stop_every_tree

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

    def watch(self, wakeup: WakeupChannel) -> None:
        """The watchdog: wait for a handled signal's byte, then reap and bound the exit."""
        signum = _first_handled_signal(wakeup)
        if signum is None:  # the command ended: the channel is done with
            with suppress(OSError):
                wakeup.close_reader()
            return
        threading.Thread(target=stop_every_tree, daemon=True, name="mcpcost-reap").start()
        time.sleep(self.hard_exit_s)  # the bound holds however long the stops take
        kill_every_tree()
        try:
            if not self.reported:
                os.write(2, b"interrupted\n")
        finally:
            os._exit(128 + signum)


def _first_handled_signal(wakeup: WakeupChannel) -> int | None:
    """The first handled signal written to the channel, or None once its writing end closes."""
    try:
        while data := wakeup.read_one():
            if data[0] in HANDLED:
                return data[0]
    except OSError:
        pass
    return None


class WakeupChannel:
    """Where the interpreter's C-level signal handler writes each signal's number: a pipe, or a
    socket pair on Windows, whose ``set_wakeup_fd`` takes only a socket. Closing the writing end
    ends the reader's wait with an empty read."""

    def __init__(self) -> None:
        self.read_one: Callable[[], bytes]
        self.close_reader: Callable[[], None]
        self.close_writer: Callable[[], None]
        if os.name == "nt":
            import socket  # only here: a pipe needs no socket module loaded before a launch

            reader, writer = socket.socketpair()
            writer.setblocking(False)
            self.write_fd = writer.fileno()
            self.read_one = lambda: reader.recv(1)
            self.close_reader, self.close_writer = reader.close, writer.close
        else:
            read_fd, self.write_fd = os.pipe()
            os.set_blocking(self.write_fd, False)
            self.read_one = lambda: os.read(read_fd, 1)
            self.close_reader = lambda: os.close(read_fd)
            self.close_writer = lambda: os.close(self.write_fd)


@contextmanager
def handling_interrupts() -> Iterator[Interrupts]:
    """Install the handlers and the watchdog for the duration of a command (main thread only;
    elsewhere the command runs with whatever handlers it has)."""
    caught = Interrupts()
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    wakeup = WakeupChannel()
    previous = {s: signal.getsignal(s) for s in HANDLED}
    previous_fd = signal.set_wakeup_fd(wakeup.write_fd, warn_on_full_buffer=False)
    for s in HANDLED:
        signal.signal(s, caught.handle)
    watchdog = threading.Thread(
        target=caught.watch, args=(wakeup,), daemon=True, name="mcpcost-interrupts"
    )
    watchdog.start()
    try:
        yield caught
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        signal.set_wakeup_fd(previous_fd)
        if caught.signum is None:  # else the watchdog is reaping: leave it its channel
            wakeup.close_writer()  # the watchdog's read ends, and it closes its end
