"""Measuring processes: a sweep's endpoints measured in child processes, against a loopback
registry whose process serves every endpoint (tests/servers/loopback_registry.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.model import Measurement, render_measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.measuring.child import session_line, spec_to_json
from mcpcost.measuring.server import MeasureOptions, measure_server
from mcpcost.runtime.addresses import AddressPolicy
from mcpcost.sweep.measuring_pool import MeasuringPool, MeasuringProcessFailed
from tests.helpers.live_processes import alive, children_of
from tests.helpers.paths import ROOT
from tests.helpers.sweep_resume import kill_when_paused, sessions, staged, statuses
from tests.servers.registry import serve_loopback_registry

LOOPBACK = AddressPolicy(allow_private=True)
NAME = "io.github.loopback-remote-{i:05d}"


@pytest.fixture(name="registry", scope="module")
def registry_fixture() -> Iterator[str]:
    with serve_loopback_registry(12) as base:
        yield base


def here(spec: ServerSpec, timeout_s: float) -> Measurement:
    return measure_server(spec, MeasureOptions(timeout_s=timeout_s, url_policy=LOOPBACK))


def without_date(m: Measurement) -> str:
    return render_measurement(m.with_(measured_at=""))


def test_the_pool_measures_what_this_process_measures(registry: str) -> None:
    specs = [ServerSpec.remote(f"e{i}", f"{registry}/mcp/{i}") for i in range(6)]
    got: dict[int, Measurement] = {}
    with MeasuringPool(2, LOOPBACK, here) as pool:

        def one(i: int) -> None:
            got[i] = pool.measure(specs[i], 10)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert pool.started == 2  # six jobs at once, never more children than asked for
        assert len(pool.pids()) == 2
    for i, spec in enumerate(specs):
        assert got[i].status is Status.MEASURED
        assert without_date(got[i]) == without_date(here(spec, 10))


def test_one_job_at_a_time_needs_one_child(registry: str) -> None:
    with MeasuringPool(3, LOOPBACK, here) as pool:
        for i in range(3):
            assert pool.measure(ServerSpec.remote("e", f"{registry}/mcp/{i}"), 10).has_number
        assert pool.started == 1


def test_the_children_end_with_the_pool(registry: str) -> None:
    with MeasuringPool(2, LOOPBACK, here) as pool:
        pool.measure(ServerSpec.remote("e", f"{registry}/mcp/0"), 10)
        pids = pool.pids()
    assert pids and not any(alive(p) for p in pids)


def test_a_child_that_dies_fails_its_job_and_is_replaced(registry: str) -> None:
    """The job in flight is a harness failure of ours; the next job gets a new child."""
    slow = f"{registry}/slow/3000"  # answers after 3 s: time to kill the child under it
    with MeasuringPool(1, LOOPBACK, here) as pool:
        pool.measure(ServerSpec.remote("warm", f"{registry}/mcp/0"), 10)
        (pid,) = pool.pids()
        failed: list[BaseException] = []

        def in_flight() -> None:
            try:
                pool.measure(ServerSpec.remote("slow", slow), 10)
            except MeasuringProcessFailed as exc:
                failed.append(exc)

        thread = threading.Thread(target=in_flight)
        thread.start()
        time.sleep(0.5)
        os.kill(pid, 9)
        thread.join(timeout=20)
        assert failed and "the measuring process ended" in str(failed[0])
        assert "exit code -9" in str(failed[0])
        again = pool.measure(ServerSpec.remote("after", f"{registry}/mcp/1"), 10)
        assert again.status is Status.MEASURED
        assert pool.started == 2 and pool.pids() != [pid]


def test_the_pool_refuses_a_launch() -> None:
    with MeasuringPool(2, LOOPBACK, here) as pool, pytest.raises(ValueError):
        pool.measure(ServerSpec.stdio("local", ["node", "server.js"]), 10)


def start_child() -> subprocess.Popen[bytes]:
    """A measuring child with all three of its streams on pipes."""
    return subprocess.Popen(
        [sys.executable, "-m", "mcpcost.measuring.child"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )


def child(*lines: bytes, answers: int) -> list[dict[str, object]]:
    """The first ``answers`` lines a measuring child answers to ``lines``; then its input is
    closed, and it must end at once without a word on standard error."""
    proc = start_child()
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(b"".join(lines))
    proc.stdin.flush()
    got = [json.loads(proc.stdout.readline()) for _ in range(answers)]
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    assert proc.stderr.read() == b""
    proc.stdout.close()
    proc.stderr.close()
    assert all(isinstance(a, dict) for a in got)
    return got


def line(doc: object) -> bytes:
    return json.dumps(doc).encode() + b"\n"


def test_the_child_refuses_a_launch_and_a_job_that_is_not_one(registry: str) -> None:
    launch = spec_to_json(ServerSpec.stdio("local", ["sh", "-c", "touch /tmp/never"]))
    remote = spec_to_json(ServerSpec.remote("e", f"{registry}/mcp/2"))
    answers = child(
        session_line(LOOPBACK, launches=False),
        line({"id": 1, "spec": launch, "timeout": 5}),
        line({"id": 2, "spec": {"name": "x"}, "timeout": 5}),
        line({"id": 3, "spec": remote, "timeout": -1}),
        b"not json\n",
        line({"id": 4, "spec": remote, "timeout": 10}),
        answers=4,
    )
    by_id = {a["id"]: a for a in answers}
    assert set(by_id) == {1, 2, 3, 4}
    assert by_id[1]["error"] == "a measuring child measures URLs only"
    assert str(by_id[2]["error"]).startswith("not a server spec")
    assert by_id[3]["error"] == "a job has a positive timeout"
    measured = Measurement.from_dict(parse_json(stringify(by_id[4]["measurement"])))
    assert measured.status is Status.MEASURED
    assert not Path("/tmp/never").exists()


def test_the_child_keeps_the_address_policy(registry: str) -> None:
    """Without allowPrivate a loopback endpoint is refused inside the child, as in the sweep."""
    remote = spec_to_json(ServerSpec.remote("e", f"{registry}/mcp/2"))
    (answer,) = child(
        session_line(AddressPolicy(), launches=False),
        line({"id": 1, "spec": remote, "timeout": 10}),
        answers=1,
    )
    m = Measurement.from_dict(answer["measurement"])
    assert not m.has_number and "address policy" in (m.notes or "")


def test_the_child_without_an_opener_line_measures_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcpcost.measuring.child"],
        input=b'{"id": 1}\n',
        capture_output=True,
        timeout=30,
        cwd=ROOT,
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, b"", b"")


def sweep(registry: str, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "mcpcost", "sweep", "--registry", registry]
    argv += ["--allow-private-addresses", "--out", str(out), "--timeout", "20", *extra]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=180)


def tree(out: Path) -> dict[str, str]:
    return {
        d.name: without_date(Measurement.from_dict(parse_json(f.read_bytes())))
        for d in sorted((out / "results").iterdir())
        if (f := d / "measurement.json").is_file()
    }


def test_a_sweep_in_processes_publishes_what_one_process_does(
    registry: str, tmp_path: Path
) -> None:
    one = sweep(registry, tmp_path / "one", "--concurrency", "4", "--processes", "1")
    two = sweep(registry, tmp_path / "two", "--concurrency", "4", "--processes", "2")
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert len(tree(tmp_path / "one")) == 12
    assert tree(tmp_path / "two") == tree(tmp_path / "one")


@pytest.mark.slow
def test_a_sweep_in_processes_killed_halfway_resumes_and_leaves_no_child(tmp_path: Path) -> None:
    with serve_loopback_registry(12) as registry:  # its own: the sessions counted are this test's
        killed_and_resumed(registry, tmp_path / "site")


def killed_and_resumed(registry: str, out: Path) -> None:
    argv = [sys.executable, "-m", "tests.helpers.crash_points", "result-staged@4", "sweep"]
    argv += ["--registry", registry, "--allow-private-addresses", "--out", str(out)]
    argv += ["--concurrency", "2", "--processes", "2", "--timeout", "20"]
    before = sessions(registry)
    left: set[int] = set()

    def note_children(pid: int) -> None:
        left.update(children_of(pid))

    kill_when_paused(argv, "result-staged@4", on_pause=note_children)
    assert left, "the sweep had started no measuring process"
    deadline = time.monotonic() + 15
    while any(alive(p) for p in left) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(p) for p in left)  # each ended when its pipe closed
    done = staged(out)
    assert len(done) >= 4
    again = sweep(registry, out, "--concurrency", "2", "--processes", "2")
    assert again.returncode == 0, again.stderr
    assert f"resumed {len(done)} results a killed sweep had staged" in again.stderr
    after = sessions(registry)
    finished = {int(name.rsplit("-", 1)[1]) for name in done}
    assert all(after[i] - before.get(i, 0) == 2 for i in finished), (before, after)
    assert list(statuses(out).values()) == ["measured"] * 12


def test_a_child_whose_input_ends_drops_its_jobs_and_ends_at_once(registry: str) -> None:
    """A job in flight (an endpoint answering in 5 s) does not hold the child past its input."""
    slow = spec_to_json(ServerSpec.remote("slow", f"{registry}/slow/5000"))
    proc = start_child()
    out, err = proc.communicate(
        session_line(LOOPBACK, launches=False) + line({"id": 1, "spec": slow, "timeout": 10}),
        timeout=4,
    )
    assert (proc.returncode, out, err) == (0, b"", b"")


def test_a_child_that_cannot_start_leaves_the_measuring_to_this_process(registry: str) -> None:
    """A child that ends before answering anything (it cannot run here) fails no job: the job
    and every later one are measured in this process, and no child is started again."""
    broken = (sys.executable, "-c", "import sys; sys.exit(3)")
    measured_here: list[str] = []

    def fallback(spec: ServerSpec, timeout_s: float) -> Measurement:
        measured_here.append(spec.name)
        return here(spec, timeout_s)

    with MeasuringPool(2, LOOPBACK, fallback, child_argv=broken) as pool:
        first = pool.measure(ServerSpec.remote("first", f"{registry}/mcp/4"), 10)
        second = pool.measure(ServerSpec.remote("second", f"{registry}/mcp/5"), 10)
        assert pool.started == 1
    assert first.status is Status.MEASURED and second.status is Status.MEASURED
    assert measured_here == ["first", "second"]
