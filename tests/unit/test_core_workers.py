"""``runtime.workers.side_by_side``: tasks on a thread pool, results as they finish."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from mcpcost.runtime.workers import run_side_by_side, side_by_side


def test_results_come_in_finishing_order() -> None:
    gates = [threading.Event() for _ in range(3)]

    def task(i: int) -> Callable[[], int]:
        def run() -> int:
            gates[i].wait(5)
            return i * 10

        return run

    with side_by_side([task(i) for i in range(3)], limit=3, name="t") as finished:
        order = []
        for i in (2, 0, 1):  # let the tasks finish in this order, one at a time
            gates[i].set()
            order.append(next(finished))
    assert order == [20, 0, 10]
    assert run_side_by_side([lambda: "a", lambda: "b", lambda: "c"], name="t") == ["a", "b", "c"]


def test_no_more_tasks_run_at_once_than_the_limit() -> None:
    running, peak = 0, 0
    lock = threading.Lock()

    def task() -> None:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.02)
        with lock:
            running -= 1

    with side_by_side([task] * 8, limit=3, name="t") as finished:
        assert len(list(finished)) == 8
    assert peak == 3


def test_a_task_exception_is_raised_where_its_result_is_taken() -> None:
    def boom() -> int:
        raise RuntimeError("task failed")

    with side_by_side([lambda: 1, boom], limit=1, name="t") as finished:
        assert next(finished) == 1
        with pytest.raises(RuntimeError, match="task failed"):
            next(finished)


def test_leaving_early_starts_no_further_task_and_waits_for_the_running_one() -> None:
    started: list[int] = []
    release = threading.Event()

    def task(i: int) -> Callable[[], int]:
        def run() -> int:
            started.append(i)
            if i == 0:
                release.wait(5)
            return i

        return run

    with pytest.raises(KeyError), side_by_side([task(i) for i in range(5)], limit=1, name="t"):
        while not started:
            time.sleep(0.001)
        threading.Timer(0.05, release.set).start()
        raise KeyError("the caller gave up")
    assert started == [0]  # the running task finished; none other began
    assert not any(t.name.startswith("t_") for t in threading.enumerate())


def test_threads_are_named_and_gone_after_the_block() -> None:
    names: list[str] = []
    with side_by_side(
        [lambda: names.append(threading.current_thread().name)] * 2, limit=2, name="mcpcost-x"
    ) as finished:
        list(finished)
    assert all(n.startswith("mcpcost-x_") for n in names)
    assert not any(t.name.startswith("mcpcost-x_") for t in threading.enumerate())


def test_nothing_to_run_and_a_bad_limit() -> None:
    with side_by_side([], limit=4, name="t") as finished:
        assert list(finished) == []
    assert run_side_by_side([], name="t") == []
    with pytest.raises(ValueError, match="limit"), side_by_side([lambda: 1], limit=0, name="t"):
        pass
