"""The ``mcpcost`` executable's exit: nothing a normal exit does is lost: the exit code, buffered
output, exit handlers and threads that were still running, and a reader that went away early."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.paths import ROOT


def run_entry(
    prelude: str, *argv: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run ``prelude`` then the executable's entry with ``argv``, in a fresh interpreter."""
    script = f"import sys\n{prelude}\nsys.argv = ['mcpcost', *{list(argv)!r}]\n"
    script += "from mcpcost.cli import entry\nentry()\n"
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )


def test_exit_code_is_the_commands() -> None:
    assert run_entry("", "--version").returncode == 0
    unknown = run_entry("", "no-such-command")
    assert unknown.returncode == 2
    assert b"unknown command" in unknown.stderr


def test_buffered_output_reaches_a_pipe_whole() -> None:
    # 300 KB left in the stdout buffer (more than a pipe holds) before the command runs
    proc = run_entry("sys.stdout.write('x' * 300_000)", "--version")
    assert proc.returncode == 0
    assert proc.stdout.startswith(b"x" * 300_000)
    assert proc.stdout.endswith(b"\n") and b"mcp-context-cost" in proc.stdout[300_000:]


def test_exit_handlers_and_running_threads_finish(tmp_path: Path) -> None:
    handler, worker = tmp_path / "handler", tmp_path / "worker"
    prelude = "\n".join(
        [
            "import atexit, threading, time",
            f"atexit.register(lambda: open({str(handler)!r}, 'w').write('ran'))",
            "def work():",
            "    time.sleep(0.3)",
            f"    open({str(worker)!r}, 'w').write('done')",
            "threading.Thread(target=work).start()",
        ]
    )
    proc = run_entry(prelude, "--version")
    assert proc.returncode == 0, proc.stderr
    assert handler.read_text() == "ran"
    assert worker.read_text() == "done"


def test_a_reader_gone_early_leaves_no_traceback_and_the_commands_code() -> None:
    # output still buffered for a pipe whose reader closed it before the exit's flush
    prelude = "\n".join(
        [
            "import os",
            "read, write = os.pipe()",
            "os.dup2(write, 1)",
            "sys.stdout.write('x' * 100)",
            "os.close(read)",
        ]
    )
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = run_entry(prelude, "no-such-command", env=buffered)
    assert proc.returncode == 2
    assert proc.stderr.startswith(b"mcpcost: unknown command") and proc.stderr.count(b"\n") == 1


def test_python_dash_m_uses_the_entry() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mcpcost", "nope"], capture_output=True, cwd=ROOT, check=False
    )
    assert proc.returncode == 2
    assert b"unknown command 'nope'" in proc.stderr
    assert b"Traceback" not in proc.stderr
