"""Kept threads: calls that must not wait for each other, on threads kept for the next call."""

from __future__ import annotations

import threading
import time

import pytest

from mcpcost.runtime.workers import run_side_by_side, start_on_kept_thread


def kept_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "mcpcost-kept"}


def test_calls_one_after_another_start_at_most_one_thread() -> None:
    """Kept threads serve the whole process: twenty calls one after another take idle ones
    and start at most one new thread, whatever ran before."""
    before = kept_threads()
    seen: list[threading.Thread] = []
    for _ in range(20):
        done = threading.Event()

        def call(done: threading.Event = done) -> None:
            seen.append(threading.current_thread())
            done.set()

        start_on_kept_thread(call)
        assert done.wait(5)
        time.sleep(0.01)  # the thread goes back to waiting before the next call comes
    assert all(t.name == "mcpcost-kept" for t in seen)
    assert len(set(seen) - before) <= 1


def test_calls_at_once_do_not_wait_for_each_other() -> None:
    """Eight calls that each wait for all the others can only end if all run at once."""
    barrier = threading.Barrier(8, timeout=5)
    ended = threading.Semaphore(0)

    def call() -> None:
        barrier.wait()
        ended.release()

    for _ in range(8):
        start_on_kept_thread(call)
    assert all(ended.acquire(timeout=5) for _ in range(8))
    assert len(kept_threads()) >= 8


def test_side_by_side_keeps_task_order_and_raises_once_all_ended() -> None:
    assert run_side_by_side([lambda: 1, lambda: 2, lambda: 3], name="t") == [1, 2, 3]
    finished: list[str] = []

    def slow() -> str:
        time.sleep(0.2)
        finished.append("slow")
        return "slow"

    def failing() -> str:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        run_side_by_side([failing, slow], name="t")
    assert finished == ["slow"]  # raised only after the slow task had ended
