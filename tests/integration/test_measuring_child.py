"""The measuring child (``mcpcost.measuring.child``) as the Action uses it: a session that may
launch, one job, input closed at once; the child measures, answers and only then ends. The
sweep's use (URLs only) is tested with its pool (test_sweep_measuring_pool.py)."""

from __future__ import annotations

import subprocess
import sys

from mcpcost.core.model import Measurement, render_measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.measuring import MeasureOptions, measure_server
from mcpcost.measuring.child import CHILD_MODULE, job_line, read_answer, session_line
from tests.helpers.paths import ROOT
from tests.servers.registry import fixture_argv

SECRET = "child-secret-5d8e1f"


def run_child(stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    argv = [sys.executable, "-m", CHILD_MODULE]
    return subprocess.run(argv, input=stdin, capture_output=True, timeout=120, cwd=ROOT)


def without_date(m: Measurement) -> str:
    return render_measurement(m.with_(measured_at=""))


def test_a_session_that_may_launch_measures_its_job_before_it_ends() -> None:
    spec = ServerSpec.stdio("good", fixture_argv("good"), env={"TOKEN": SECRET})
    done = run_child(session_line(None, launches=True) + job_line(7, spec, 30))
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.count(b"\n") == 1 and SECRET.encode() not in done.stdout
    job_id, told = read_answer(done.stdout)
    assert job_id == 7 and isinstance(told, Measurement)
    assert told.status is Status.MEASURED
    here = measure_server(spec, MeasureOptions(timeout_s=30))
    assert without_date(told) == without_date(here)


def test_a_session_that_may_not_launch_refuses_the_same_job() -> None:
    """(Its answer is read before its input closes: such a child drops what is in flight.)"""
    spec = ServerSpec.stdio("good", fixture_argv("good"))
    argv = [sys.executable, "-m", CHILD_MODULE]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(session_line(None, launches=False) + job_line(1, spec, 30))
    proc.stdin.flush()
    answer = proc.stdout.readline()
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    proc.stdout.close()
    assert read_answer(answer) == (1, "a measuring child measures URLs only")


def test_a_first_line_that_is_not_a_session_measures_nothing() -> None:
    spec = ServerSpec.stdio("good", fixture_argv("good"))
    for first in (b'{"policy": null, "launches": "yes"}\n', b'{"launches": true}\n', b"[]\n"):
        done = run_child(first + job_line(1, spec, 30))
        assert (done.returncode, done.stdout, done.stderr) == (2, b"", b"")
