"""Tasks run side by side on threads, their results taken as they finish.

``side_by_side`` runs tasks on a ``concurrent.futures`` thread pool, at most ``limit`` at a time,
drawing them from an iterable only as threads come free (a sweep's registry need not fit in
memory). ``Background`` makes calls behind the caller's back with a bounded backlog (a sweep's
writes, each waiting on its fsync). Short calls that must not wait for each other (a capture, one
request's POST) go to kept daemon threads (``start_on_kept_thread``, ``run_side_by_side``).

A task's exception is raised where its result is taken. Leaving early (an exception, an
interrupt) starts no further task and waits for the running ones, which end promptly because an
interrupt stops their servers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from functools import partial
from queue import Empty, SimpleQueue
from typing import TypeVar, cast

T = TypeVar("T")


@contextmanager
def side_by_side(
    tasks: Iterable[Callable[[], T]], *, limit: int, name: str
) -> Iterator[Iterator[T]]:
    """Run ``tasks`` on at most ``limit`` threads named ``name``; the block gets their results
    in the order they finish. At most ``2 * limit`` tasks are drawn and not yet taken, so what
    is held is bounded by the limit, not by the number of tasks; the iterable is advanced on the
    caller's thread, and its exception is raised where the results are taken, as a task's is.
    Leaving the block cancels what has not started and waits for what has."""
    if limit <= 0:
        raise ValueError("limit must be positive")
    todo = iter(tasks)
    pool = ThreadPoolExecutor(max_workers=limit, thread_name_prefix=name)
    running: set[Future[T]] = set()

    def fill() -> None:
        while len(running) < 2 * limit and (task := next(todo, None)) is not None:
            running.add(pool.submit(task))

    def finished() -> Iterator[T]:
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                running.discard(future)
                fill()
                yield future.result()

    try:
        fill()
        yield finished()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class _KeptThreads:
    """Daemon threads kept idle after a call, for the next one.

    A sweep makes hundreds of short calls a second that must not wait for each other (a
    capture, one request's POST): starting and ending a thread for each cost more CPU than some
    of the calls. A call goes to an idle kept thread, or to a new one when none is idle; a
    thread idle for ``IDLE_S`` ends. A call handles its own failures: one that raises ends its
    thread, and the next call starts another. Not a ``ThreadPoolExecutor``: these calls wait on
    each other (a capture on its POSTs), so any bound on the threads could leave one waiting for
    a call queued behind it, and an executor's threads are joined at exit, where the measuring
    child leaves the jobs still in flight when its input ends."""

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


class Background:
    """Calls made on a few threads behind the caller's back.

    For work the caller need not wait for (a sweep's writes, each waiting on its fsync, while
    the measurements go on). At most ``queued`` calls wait for a thread, so a slow call holds
    the caller back instead of letting memory grow. The first call that raised is raised again
    by the next ``submit`` or by ``close``; calls not yet started then are not made. Use as a
    context manager: leaving it waits for every call submitted.
    """

    def __init__(self, *, threads: int, queued: int, name: str) -> None:
        if threads <= 0 or queued <= 0:
            raise ValueError("threads and queued must be positive")
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name)
        self._room = threading.BoundedSemaphore(threads + queued)
        self._failure: BaseException | None = None

    def _done(self, future: Future[object]) -> None:
        self._room.release()
        failure = None if future.cancelled() else future.exception()
        if failure is not None and self._failure is None:
            self._failure = failure
            self._pool.shutdown(wait=False, cancel_futures=True)  # nothing more is made

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure

    def submit(self, call: Callable[[], object]) -> None:
        self._raise_failure()
        self._room.acquire()
        try:
            future = self._pool.submit(call)
        except RuntimeError:  # the pool was shut down by a failure that came meanwhile
            self._room.release()
            self._raise_failure()
            raise
        future.add_done_callback(self._done)

    def close(self) -> None:
        """Wait for every call submitted; raise the first failure."""
        self.stop()
        self._raise_failure()

    def stop(self) -> None:
        """Let the calls submitted end and the threads with them (nothing is raised)."""
        self._pool.shutdown(wait=True)

    def __enter__(self) -> Background:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.stop()
