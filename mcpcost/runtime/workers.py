"""A few tasks run side by side on threads, their results taken as they finish.

The package's concurrency is small and of one shape: start a handful of tasks (captures, one
measurement per server, a sweep's entries), then take each result the moment it is ready. This is
that shape and nothing more, on ``threading`` and the C ``SimpleQueue`` that are loaded anyway:
``concurrent.futures`` would bring ``logging`` and its dependencies into every command, about
7 ms of imports while the servers start (docs/PERFORMANCE.md).

A task's exception is raised where its result is taken. Leaving early (an exception, an
interrupt) starts no further task and waits for the running ones, which end promptly because an
interrupt stops their servers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from queue import SimpleQueue
from typing import Generic, TypeVar, cast

T = TypeVar("T")


class Workers(Generic[T]):
    """Runs ``tasks`` on at most ``limit`` threads, started at once. Use as a context manager:
    leaving it waits for the threads."""

    def __init__(self, tasks: Sequence[Callable[[], T]], *, limit: int, name: str) -> None:
        if limit <= 0:
            raise ValueError("limit must be positive")
        self._tasks = tuple(tasks)
        self._handed_out = 0
        self._lock = threading.Lock()
        self._stopped = False
        self._finished: SimpleQueue[tuple[int, T | None, BaseException | None]] = SimpleQueue()
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-{i}")
            for i in range(min(limit, len(self._tasks)))
        ]
        for thread in self._threads:
            thread.start()

    def _take(self) -> int | None:
        with self._lock:
            if self._stopped or self._handed_out == len(self._tasks):
                return None
            self._handed_out += 1
            return self._handed_out - 1

    def _work(self) -> None:
        while (index := self._take()) is not None:
            try:
                self._finished.put((index, self._tasks[index](), None))
            except BaseException as exc:  # handed to whoever takes this result
                self._finished.put((index, None, exc))

    def as_finished(self) -> Iterator[tuple[int, T]]:
        """``(task index, result)`` in the order the tasks finish."""
        for _ in self._tasks:
            index, value, exc = self._finished.get()
            if exc is not None:
                raise exc
            yield index, cast(T, value)

    def in_order(self) -> list[T]:
        """Every result, in the order of the tasks."""
        results: dict[int, T] = dict(self.as_finished())
        return [results[i] for i in range(len(self._tasks))]

    def close(self) -> None:
        """Start no further task and wait for the running ones."""
        with self._lock:
            self._stopped = True
        for thread in self._threads:
            thread.join()

    def __enter__(self) -> Workers[T]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def run_side_by_side(tasks: Sequence[Callable[[], T]], *, name: str) -> list[T]:
    """Every task on a thread of its own; the results in task order."""
    with Workers(tasks, limit=max(1, len(tasks)), name=name) as workers:
        return workers.in_order()
