"""The read-deadline timer: an action runs at its time unless cancelled; a cancelled one holds
nothing (its action held a response) and the queue does not grow with cancelled deadlines."""

from __future__ import annotations

import gc
import threading
import time
import weakref

from mcpcost.runtime.http_body import _Timer


class Held:
    """Stands for the response a deadline's action would cut."""


def test_a_deadline_fires_unless_cancelled() -> None:
    timer = _Timer()
    fired = threading.Event()
    never = threading.Event()
    kept = timer.schedule(time.monotonic() + 0.05, fired.set)
    dropped = timer.schedule(time.monotonic() + 0.05, never.set)
    timer.cancel(dropped)
    assert fired.wait(2) and kept.fired
    time.sleep(0.1)
    assert not never.is_set() and not dropped.fired


def test_an_earlier_deadline_wakes_the_timer() -> None:
    timer = _Timer()
    late = threading.Event()
    early = threading.Event()
    timer.schedule(time.monotonic() + 30, late.set)
    started = time.monotonic()
    timer.schedule(time.monotonic() + 0.05, early.set)
    assert early.wait(2) and time.monotonic() - started < 1.5 and not late.is_set()


def test_cancelled_deadlines_hold_nothing_and_leave_the_queue() -> None:
    timer = _Timer()
    timer.schedule(time.monotonic() + 60, lambda: None)  # the thread sleeps a minute
    refs = []
    for _ in range(1000):
        held = Held()
        refs.append(weakref.ref(held))
        timer.cancel(timer.schedule(time.monotonic() + 60, lambda held=held: print(held)))
        del held
    gc.collect()
    assert all(r() is None for r in refs)
    assert len(timer._heap) <= 2 * _Timer.COMPACT_AT
