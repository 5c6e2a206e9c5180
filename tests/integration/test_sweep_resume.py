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


def test_a_resumed_sweep_publishes_only_what_it_selected(tmp_path: Path) -> None:
    """A killed sweep staged results for a, b and c; resumed under the same key, the selection
    no longer holds b (the registry changed within the day): a and c are resumed, d measured,
    and b's staged result is dropped, never published."""
    import datetime as dt

    from mcpcost.core.model import Measurement
    from mcpcost.sweep.catalog import load_catalog
    from mcpcost.sweep.runner import Job, SweepOptions, run_sweep
    from tests.helpers.sweep_sites import measured, tools

    names = ["a", "b", "c", "d"]
    text = "servers:\n" + "".join(f"  - name: {n}\n    command: npx -y {n}\n" for n in names)
    catalog = load_catalog(text, "servers.yaml")
    entries = {e.name: e for e in catalog.entries}
    when = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.UTC)
    swept: list[str] = []
    first_run = [True]

    def measure(job: Job) -> Measurement:
        if job.entry.name == "d" and first_run[0]:
            raise KeyboardInterrupt  # the first run is cut short before d
        swept.append(job.entry.name)
        return measured(job.entry.name, tools(2))

    def run(selected: list[str]) -> list[str]:
        lines: list[str] = []
        run_sweep(
            catalog,
            [entries[n] for n in selected],
            tmp_path,
            measure,
            SweepOptions(concurrency=1),
            clock=lambda: when,
            progress=lines.append,
            publish_pages=False,
            resume="same-key",
        )
        return lines

    with pytest.raises(KeyboardInterrupt):
        run(names)
    first_run[0] = False
    assert staged(tmp_path) == {"a", "b", "c"}
    lines = run(["a", "c", "d"])
    assert swept == ["a", "b", "c", "d"]  # nothing measured twice
    assert "resumed 2 results a killed sweep had staged" in lines
    assert any(line.startswith("dropped 1 result a killed sweep had staged") for line in lines)
    assert sorted(statuses(tmp_path)) == ["a", "c", "d"]
    assert not (tmp_path / "badges" / "b.json").exists()
