"""A sweep killed halfway resumes from what it had staged: real ``mcpcost sweep`` processes
against the loopback registry (which counts the sessions each entry is asked for), SIGKILLed at
a crash point (``tests/helpers/crash_points.py``), then run again."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT
from tests.helpers.sweep_resume import PENDING, env, kill_when_paused, sessions, staged, statuses
from tests.servers.registry import serve_loopback_registry

ENTRIES = 10


@pytest.fixture(name="registry")
def registry_fixture() -> Iterator[str]:
    with serve_loopback_registry(ENTRIES) as base:
        yield base


def sweep_argv(base: str, out: Path, *extra: str, pause: str | None = None) -> list[str]:
    runner = ["-m", "mcpcost"] if pause is None else ["-m", "tests.helpers.crash_points", pause]
    return [
        sys.executable,
        *runner,
        "sweep",
        "--registry",
        base,
        "--allow-private-addresses",
        "--out",
        str(out),
        "--concurrency",
        "1",
        "--timeout",
        "20",
        *extra,
    ]


@pytest.mark.slow
def test_a_sweep_killed_halfway_resumes_without_measuring_a_finished_entry_again(
    registry: str, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    kill_when_paused(sweep_argv(registry, out, pause="result-staged@4"), "result-staged@4")
    done = staged(out)
    assert len(done) == 4
    assert not (out / "results").exists()  # staged, never published
    finished = {int(name.rsplit("-", 1)[1]) for name in done}
    before = sessions(registry)
    assert {i: before[i] for i in finished} == dict.fromkeys(finished, 2)  # two captures each

    again = subprocess.run(
        sweep_argv(registry, out), env=env(), cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert again.returncode == 0, again.stderr
    assert "resumed 4 results a killed sweep had staged" in again.stderr
    after = sessions(registry)
    # none of the finished entries was measured again; the rest were measured by the second
    # run (an entry measured but not yet written when the sweep was killed, once more)
    assert {i: after[i] for i in finished} == dict.fromkeys(finished, 2), after
    assert set(after) == set(range(ENTRIES))
    assert all(after[i] - before.get(i, 0) == 2 for i in after if i not in finished), after
    assert list(statuses(out).values()) == ["measured"] * ENTRIES
    assert not (out / PENDING).exists()
    for name in done:  # a resumed entry's badge is published beside its measurement
        assert (out / "badges" / f"{name}.json").is_file()


@pytest.mark.slow
def test_a_different_selection_does_not_resume_what_another_one_staged(
    registry: str, tmp_path: Path
) -> None:
    """Staged results belong to the sweep that staged them: another shard starts afresh."""
    out = tmp_path / "site"
    kill_when_paused(
        sweep_argv(registry, out, "--shard", "0/2", pause="result-staged@2"), "result-staged@2"
    )
    assert len(staged(out)) == 2
    first = sessions(registry)  # shard 0's entries, staged or in flight
    again = subprocess.run(
        sweep_argv(registry, out, "--shard", "1/2"),
        env=env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    assert "resumed" not in again.stderr
    after = sessions(registry)
    measured_now = {i: n - first.get(i, 0) for i, n in after.items() if n - first.get(i, 0)}
    assert set(measured_now).isdisjoint(first)  # shard 1's entries only, each measured anew
    assert set(measured_now.values()) == {2}
    # what shard 0 had staged was dropped, not published under shard 1's sweep
    assert len(statuses(out)) == len(measured_now)
