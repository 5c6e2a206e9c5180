"""How many measuring processes a sweep uses, and how long it waits for one's answer."""

from __future__ import annotations

import pytest

from mcpcost.sweep.measuring_pool import MAX_PROCESSES, answer_wait_s, auto_processes


@pytest.mark.parametrize(
    ("concurrency", "cpus", "expected"),
    [(8, 2, 2), (8, 16, MAX_PROCESSES), (3, 16, 3), (1, 8, 1), (8, 1, 1), (2, 0, 1)],
)
def test_one_process_per_core_within_the_concurrency(
    concurrency: int, cpus: int, expected: int
) -> None:
    assert auto_processes(concurrency, cpus) == expected


def test_the_wait_covers_the_timeout_retry() -> None:
    # both captures within the budget, then the retry at twice it
    assert answer_wait_s(60) > 60 * 3
    assert answer_wait_s(10) < answer_wait_s(60)
