"""``runtime.workers.side_by_side`` over a stream, and ``Background``: tasks drawn from a stream
with what is held bounded by the limit, and calls made behind the caller's back."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest

from mcpcost.runtime.workers import Background, side_by_side


def test_a_stream_is_drawn_only_as_far_as_the_limit_allows() -> None:
    """With results not taken, no more than 2 x limit tasks are ever drawn from the stream."""
    drawn = 0

    def tasks() -> Iterator[Callable[[], int]]:
        nonlocal drawn
        for i in range(1000):
            drawn += 1
            yield lambda i=i: i  # type: ignore[misc]

    with side_by_side(tasks(), limit=3, name="t") as results:
        first = next(results)
        time.sleep(0.2)  # let the threads draw as far as they may
        assert drawn <= 2 * 3 + 1
        rest = list(results)
    assert sorted([first, *rest]) == list(range(1000))
    assert drawn == 1000


def test_no_more_tasks_run_at_once_than_the_limit() -> None:
    running = peak = 0
    lock = threading.Lock()

    def task() -> None:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.01)
        with lock:
            running -= 1

    with side_by_side((task for _ in range(40)), limit=4, name="t") as finished:
        assert len(list(finished)) == 40
    assert 1 <= peak <= 4


def test_a_failing_stream_or_task_is_raised_where_the_results_are_taken() -> None:
    def broken() -> Iterator[Callable[[], int]]:
        yield lambda: 1
        raise ValueError("page 2 unreadable")

    with pytest.raises(ValueError, match="page 2 unreadable"):
        with side_by_side(broken(), limit=2, name="t") as finished:
            list(finished)

    def boom() -> int:
        raise RuntimeError("task failed")

    with pytest.raises(RuntimeError, match="task failed"):
        with side_by_side(iter([boom]), limit=2, name="t") as finished:
            list(finished)


def test_leaving_early_draws_nothing_more_and_ends_every_thread() -> None:
    drawn = 0

    def tasks() -> Iterator[Callable[[], int]]:
        nonlocal drawn
        while True:
            drawn += 1
            yield lambda: 0

    before = threading.active_count()
    with side_by_side(tasks(), limit=3, name="t") as finished:
        next(finished)
    seen = drawn
    time.sleep(0.05)
    assert drawn == seen and drawn <= 2 * 3 + 1
    assert threading.active_count() == before


def test_background_makes_every_call_and_holds_the_caller_when_full() -> None:
    done: list[int] = []
    gate = threading.Event()

    def call(i: int) -> None:
        gate.wait(5)
        done.append(i)

    bg = Background(threads=2, queued=2, name="t")
    for i in range(4):  # two running, two queued
        bg.submit(lambda i=i: call(i))  # type: ignore[misc]
    held = threading.Thread(target=bg.submit, args=(lambda: call(4),))
    held.start()
    time.sleep(0.1)
    assert held.is_alive()  # the fifth waits for room
    gate.set()
    held.join(5)
    bg.close()
    assert sorted(done) == [0, 1, 2, 3, 4]


def test_background_raises_the_first_failure_and_makes_no_call_after_it() -> None:
    made: list[int] = []

    def fail() -> None:
        raise OSError("disk full")

    bg = Background(threads=1, queued=8, name="t")
    bg.submit(fail)
    time.sleep(0.05)
    with pytest.raises(OSError, match="disk full"):
        bg.submit(lambda: made.append(1))
    with pytest.raises(OSError, match="disk full"):
        bg.close()  # and its threads end
    assert made == []
    assert not any(t.name.startswith("t_") for t in threading.enumerate())
