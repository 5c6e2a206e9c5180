"""Ending a finished command's process: a normal exit, quiet when the reader has gone.

A normal exit waits for non-daemon threads, runs the exit handlers and flushes both streams. A
stream whose reader has gone is pointed at the null device before the exit's own flush, which
would otherwise report the broken pipe. Only for a process's own entry point, after everything
it writes has been written.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn, TextIO


def leave(code: int) -> NoReturn:
    """End the process with ``code`` through a normal exit (threads, exit handlers, flushes)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except ValueError:  # a closed stream: nothing is left to flush
            pass
        except OSError:  # a closed pipe: nothing more can be written
            _discard_the_rest(stream)
    sys.exit(code)


def _discard_the_rest(stream: TextIO) -> None:
    """Point ``stream``'s descriptor at the null device, so what it still buffers goes nowhere."""
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError):
        return
    try:
        os.dup2(null, fd)
    except OSError:
        pass
    finally:
        os.close(null)
