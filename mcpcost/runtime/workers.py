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
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from queue import Empty, Queue, SimpleQueue
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


class _KeptThreads:
    """Daemon threads kept idle after a call, for the next one.

    A sweep makes hundreds of short calls a second that must not wait for each other (a
    capture, one request's POST): starting and ending a thread for each cost more CPU than some
    of the calls. A call goes to an idle kept thread, or to a new one when none is idle; a
    thread idle for ``IDLE_S`` ends. A call handles its own failures: one that raises ends its
    thread, and the next call starts another."""

    IDLE_S = 30.0

    def __init__(self) -> None:
        self._calls: SimpleQueue[Callable[[], object]] = SimpleQueue()
        self._idle = 0
        self._lock = threading.Lock()

    def start(self, call: Callable[[], object]) -> None:
        with self._lock:
            if self._idle:
                self._idle -= 1  # that thread is spoken for: it takes this call
                self._calls.put(call)
                return
        threading.Thread(target=self._work, args=(call,), daemon=True, name="mcpcost-kept").start()

    def _work(self, call: Callable[[], object]) -> None:
        while True:
            call()
            with self._lock:
                self._idle += 1
            try:
                call = self._calls.get(timeout=self.IDLE_S)
            except Empty:
                with self._lock:
                    try:  # a call handed over as the wait ran out is still this thread's
                        call = self._calls.get_nowait()
                    except Empty:
                        self._idle -= 1
                        return


_KEPT = _KeptThreads()


def start_on_kept_thread(call: Callable[[], object]) -> None:
    """Run ``call`` on a daemon thread kept for such calls (see ``_KeptThreads``); it must not
    raise (catch what it can fail with)."""
    _KEPT.start(call)


def run_side_by_side(tasks: Sequence[Callable[[], T]], *, name: str) -> list[T]:
    """Every task at once, each on a kept thread; the results in task order. A task's exception
    is raised here once every task has ended (the first to finish with one wins). ``name`` says
    what the tasks are, for a reader of this call."""
    del name  # kept threads serve every caller and keep one name
    finished: SimpleQueue[tuple[int, T | None, BaseException | None]] = SimpleQueue()

    def call(index: int, task: Callable[[], T]) -> None:
        try:
            finished.put((index, task(), None))
        except BaseException as exc:  # handed to the caller below
            finished.put((index, None, exc))

    for index, task in enumerate(tasks):
        start_on_kept_thread(partial(call, index, task))
    results: dict[int, T] = {}
    failure: BaseException | None = None
    for _ in tasks:
        index, value, exc = finished.get()
        if exc is not None and failure is None:
            failure = exc
        results[index] = cast(T, value)
    if failure is not None:
        raise failure
    return [results[i] for i in range(len(tasks))]


class WorkerStream(Generic[T]):
    """Tasks drawn from an iterable as threads come free, results taken as they finish.

    For more tasks than fit in memory at once (a sweep of a whole registry): at most ``limit``
    tasks run and at most ``limit`` finished results wait to be taken, so what is held is bounded
    by the limit, not by the number of tasks. The iterable is advanced under a lock, by whichever
    thread comes free, so it need not be thread-safe; an exception it raises is raised where the
    results are taken, as a task's is. Leaving early starts no further task and waits for the
    running ones. Use as a context manager.
    """

    def __init__(self, tasks: Iterable[Callable[[], T]], *, limit: int, name: str) -> None:
        if limit <= 0:
            raise ValueError("limit must be positive")
        self._tasks = iter(tasks)
        self._lock = threading.Lock()
        self._stopped = False
        # a slot is taken before a task is drawn and given back when its result has been taken
        self._room = threading.Semaphore(2 * limit)
        # (True, ...) marks a thread that ended; it is put after all of that thread's results
        self._finished: SimpleQueue[tuple[bool, T | None, BaseException | None]] = SimpleQueue()
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-{i}") for i in range(limit)
        ]
        for thread in self._threads:
            thread.start()

    def _draw(self) -> Callable[[], T] | None:
        with self._lock:
            if self._stopped:
                return None
            try:
                return next(self._tasks)
            except StopIteration:
                self._stopped = True
                return None
            except BaseException:
                self._stopped = True
                raise

    def _work(self) -> None:
        try:
            while True:
                self._room.acquire()
                try:
                    task = self._draw()
                except BaseException as exc:  # the iterable failed: hand it to the taker
                    self._finished.put((False, None, exc))
                    return
                if task is None:
                    return
                try:
                    self._finished.put((False, task(), None))
                except BaseException as exc:
                    self._finished.put((False, None, exc))
        finally:
            self._finished.put((True, None, None))

    def as_finished(self) -> Iterator[T]:
        """Each result in the order the tasks finish, until the iterable is exhausted."""
        ended = 0
        while ended < len(self._threads):
            thread_ended, value, exc = self._finished.get()
            if thread_ended:
                ended += 1
                continue
            self._room.release()
            if exc is not None:
                raise exc
            yield cast(T, value)

    def close(self) -> None:
        """Draw no further task and wait for the running ones."""
        with self._lock:
            self._stopped = True
        for _ in self._threads:  # wake the threads waiting for a slot; they see the stop
            self._room.release()
        for thread in self._threads:
            thread.join()

    def __enter__(self) -> WorkerStream[T]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class Background:
    """Calls made on a few threads behind the caller's back, in the order submitted.

    For work the caller need not wait for (a sweep's writes, each waiting on its fsync, while
    the measurements go on). At most ``queued`` calls wait for a thread, so a slow call holds
    the caller back instead of letting memory grow. The first call that raised is raised again
    by the next ``submit`` or by ``close``; after it no further call is made. Use as a context
    manager: leaving it waits for every call submitted.
    """

    def __init__(self, *, threads: int, queued: int, name: str) -> None:
        if threads <= 0 or queued <= 0:
            raise ValueError("threads and queued must be positive")
        self._calls: Queue[Callable[[], object] | None] = Queue(maxsize=queued)
        self._failure: BaseException | None = None
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-{i}") for i in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    def _work(self) -> None:
        while (call := self._calls.get()) is not None:
            if self._failure is not None:
                continue  # drain: nothing more is made once a call failed
            try:
                call()
            except BaseException as exc:
                self._failure = self._failure or exc

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure

    def submit(self, call: Callable[[], object]) -> None:
        self._raise_failure()
        self._calls.put(call)

    def close(self) -> None:
        """Wait for every call submitted; raise the first failure."""
        self.stop()
        self._raise_failure()

    def stop(self) -> None:
        """Let the calls submitted end and the threads with them (nothing is raised)."""
        for _ in self._threads:
            self._calls.put(None)
        for thread in self._threads:
            thread.join()
        self._threads = []

    def __enter__(self) -> Background:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.stop()
