"""Measuring processes: a sweep's remote endpoints measured in child processes.

Measuring an endpoint on loopback or a fast network is Python work from end to end (HTTP,
JSON, counting), and one interpreter runs Python on one core at a time: a sweep of thousands of
endpoints measured in its own process is bound to one core whatever the machine has. A
``MeasuringPool`` starts up to ``processes`` children (``mcpcost.measuring.child``, in sessions
that measure URLs only), one more each time a job comes while every running child has one in
flight, and gives each job to the child with the fewest in flight. The sweep's
``--concurrency`` still bounds how many jobs run at once; the pool only spreads them over
cores. Only endpoints go to children: a launch (a stdio server, a container) stays in the
sweep's own process, where an interrupt stops its process tree and where the CPU goes to the
server, not to us.

A child that ends or answers with what is not an answer fails its jobs in flight with
``MeasuringProcessFailed`` (the sweep records each as a harness error) and is replaced for later
jobs, at most ``MAX_REPLACEMENTS`` times; after that the pool measures in this process. A child
that ends before it answered anything (one that cannot start here: a broken installation)
fails nothing: its jobs and every later one are measured in this process. Every
answer line is bounded (``MAX_ANSWER_BYTES``) and every wait is bounded by the job's own time
budget. ``close`` ends the children by closing their standard input (docs/PERFORMANCE.md,
"Registry sweeps").
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import IO

from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.errors import McpcostError
from mcpcost.measuring.child import (
    CHILD_MODULE,
    MAX_ANSWER_BYTES,
    job_line,
    read_answer,
    session_line,
)
from mcpcost.measuring.server import TIMEOUT_RETRY_FACTOR
from mcpcost.runtime.addresses import AddressPolicy

MAX_REPLACEMENTS = 3
# The wait for one answer: both captures, the timeout retry at its wider budget, and margin.
ANSWER_MARGIN_S = 30.0
MAX_PROCESSES = 4
CHILD_ARGV = (sys.executable, "-m", CHILD_MODULE)

Fallback = Callable[[ServerSpec, float], Measurement]


class MeasuringProcessFailed(McpcostError):
    """A job a measuring process took gave no measurement (the process ended, or misspoke)."""


def auto_processes(concurrency: int, cpus: int | None = None) -> int:
    """The number of measuring processes a sweep uses when it is not told: one per core the
    process may run on, at most ``MAX_PROCESSES`` and at most its concurrency."""
    if cpus is None:
        affinity = getattr(os, "sched_getaffinity", None)
        cpus = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    return max(1, min(cpus, concurrency, MAX_PROCESSES))


def answer_wait_s(timeout_s: float) -> float:
    """How long a job may take in a child before the pool gives up on it."""
    return timeout_s * (1 + TIMEOUT_RETRY_FACTOR) + ANSWER_MARGIN_S


class _Waiting:
    __slots__ = ("answer", "done", "unstarted")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.answer: Measurement | str | None = None
        self.unstarted = False  # the child ended before it answered anything: not its failure


class _Child:
    """One measuring process: its pipes, its jobs in flight, and the thread reading answers."""

    def __init__(
        self, argv: Sequence[str], opener_line: bytes, on_end: Callable[[_Child], None]
    ) -> None:
        self.waiting: dict[int, _Waiting] = {}
        self.lock = threading.Lock()
        self.ended = False
        self.answered = 0
        self.assigned = 0  # jobs the pool has given this child and not yet had back (pool's lock)
        self._on_end = on_end
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        self._stdin: IO[bytes] = self.proc.stdin  # type: ignore[assignment]
        self._stdout: IO[bytes] = self.proc.stdout  # type: ignore[assignment]
        self._stdin.write(opener_line)
        self._stdin.flush()
        self._reader = threading.Thread(target=self._read, daemon=True, name="mcpcost-answers")
        self._reader.start()

    def send(self, job_id: int, line: bytes, waiting: _Waiting) -> bool:
        """Hand a job over; False when the child has ended (the job is not its)."""
        with self.lock:
            if self.ended:
                return False
            self.waiting[job_id] = waiting
            try:
                self._stdin.write(line)
                self._stdin.flush()
            except (OSError, ValueError):
                del self.waiting[job_id]
                return False
        return True

    def forget(self, job_id: int) -> None:
        with self.lock:
            self.waiting.pop(job_id, None)

    def _read(self) -> None:
        why = "ended"
        try:
            while line := self._stdout.readline(MAX_ANSWER_BYTES + 1):
                if len(line) > MAX_ANSWER_BYTES or not line.endswith(b"\n"):
                    why = "answered with a line too long to be a measurement"
                    break
                job_id, answer = read_answer(line)
                if job_id is None:
                    why = "answered with what is not an answer"
                    break
                with self.lock:
                    waiting = self.waiting.pop(job_id, None)
                    self.answered += 1
                if waiting is not None:
                    refused = f"the measuring process refused the job: {answer}"
                    waiting.answer = answer if isinstance(answer, Measurement) else refused
                    waiting.done.set()
        except (OSError, ValueError):
            pass
        finally:
            self._stdout.close()
        self._end(why)

    def _end(self, why: str) -> None:
        with self.lock:
            self.ended = True
            left = list(self.waiting.values())
            self.waiting.clear()
        self.stop()
        code = self.proc.poll()
        told = f"the measuring process {why}" + ("" if code is None else f" (exit code {code})")
        for waiting in left:
            waiting.answer = told
            waiting.unstarted = self.answered == 0
            waiting.done.set()
        self._on_end(self)

    def stop(self) -> None:
        """Close the child's input (it ends there) and wait a moment for it, then kill it."""
        try:
            self._stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        self.stop()
        self._reader.join(timeout=5)


class MeasuringPool:
    """Measure endpoints in up to ``processes`` child processes (see the module's docstring).

    ``policy`` is the address policy URLs are opened under (None: the user's own catalog,
    opened as the user's configs are); ``fallback`` measures in this process once children
    could not be kept running. Use as a context manager.
    """

    def __init__(
        self,
        processes: int,
        policy: AddressPolicy | None,
        fallback: Fallback,
        *,
        child_argv: Sequence[str] = CHILD_ARGV,
    ) -> None:
        if processes < 1:
            raise ValueError("processes must be positive")
        self.processes = processes
        self._opener_line = session_line(policy, launches=False)
        self._fallback = fallback
        self._child_argv = tuple(child_argv)
        self._children: list[_Child] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._replaced = 0
        self._closed = False
        self.started = 0  # children started, replacements included

    def measure(self, spec: ServerSpec, timeout_s: float) -> Measurement:
        """The measurement of ``spec`` (a URL), taken in a child process."""
        if spec.url is None:
            raise ValueError("a measuring pool measures URLs only")
        child = self._child()
        if child is None:
            return self._fallback(spec, timeout_s)
        try:
            return self._measure_in(child, spec, timeout_s)
        finally:
            with self._lock:
                child.assigned -= 1

    def _measure_in(self, child: _Child, spec: ServerSpec, timeout_s: float) -> Measurement:
        job_id = next(self._ids)
        line = job_line(job_id, spec, timeout_s)
        waiting = _Waiting()
        if not child.send(job_id, line, waiting):
            raise MeasuringProcessFailed("the measuring process ended before it took the job")
        if not waiting.done.wait(answer_wait_s(timeout_s)):
            child.forget(job_id)
            raise MeasuringProcessFailed(
                f"the measuring process gave no answer within {answer_wait_s(timeout_s):g}s"
            )
        if isinstance(waiting.answer, Measurement):
            return waiting.answer
        if waiting.unstarted:  # measuring processes cannot run here: this process measures
            return self._fallback(spec, timeout_s)
        raise MeasuringProcessFailed(waiting.answer or "the measuring process gave no answer")

    def _child(self) -> _Child | None:
        """The child to give a job to, started when every running one is busy; None when the
        pool measures in this process."""
        with self._lock:
            if self._closed:
                raise MeasuringProcessFailed("the measuring pool is closed")
            live = [c for c in self._children if not c.ended]
            chosen = next((c for c in live if not c.assigned), None)
            if chosen is None and len(live) < self.processes and self._replaced <= MAX_REPLACEMENTS:
                try:
                    chosen = _Child(self._child_argv, self._opener_line, self._ended)
                except OSError:
                    self._replaced = MAX_REPLACEMENTS + 1  # cannot start one: measure here
                else:
                    self._children.append(chosen)
                    self.started += 1
            if chosen is None and live:
                chosen = min(live, key=lambda c: c.assigned)
            if chosen is not None:
                chosen.assigned += 1
            return chosen

    def pids(self) -> list[int]:
        """The process ids of the running children."""
        with self._lock:
            return [c.proc.pid for c in self._children if not c.ended]

    def _ended(self, child: _Child) -> None:
        with self._lock:
            if child in self._children:
                self._children.remove(child)
                if not self._closed:
                    # one that never answered will not start here: none is started again
                    self._replaced = self._replaced + 1 if child.answered else MAX_REPLACEMENTS + 1

    def close(self) -> None:
        """End every child (their input is closed; each ends there)."""
        with self._lock:
            self._closed = True
            children = list(self._children)
        for child in children:
            child.close()

    def __enter__(self) -> MeasuringPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
