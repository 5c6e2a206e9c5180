"""Files from the world are read bounded: ``runtime.world_files`` on its own, then discovery
through the real CLI in a project whose ``.mcp.json`` is a link to ``/dev/zero``, whose configs
are FIFOs, and whose ``envFile`` names ``/dev/zero`` and a FIFO. Each is refused without
blocking and without reading a byte; the rest of the project is still read."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcpcost.runtime.world_files import Links, WorldFileRefused, read_world_file
from tests.helpers.paths import ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")


def finishes(call: Callable[[], Any], seconds: float = 5.0) -> Any:
    """``call()``'s result or exception, failing the test if it does not return in time."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(call())
        except BaseException as exc:
            box.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert box, f"still blocked after {seconds}s"
    return box[0]


def refusal(path: Path | str, **kwargs: Any) -> str:
    kwargs.setdefault("max_bytes", 1 << 20)
    outcome = finishes(lambda: read_world_file(path, **kwargs))
    assert isinstance(outcome, WorldFileRefused), outcome
    assert isinstance(outcome, OSError)
    return str(outcome.strerror)


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    data = os.urandom(200_000)
    (tmp_path / "f").write_bytes(data)
    assert read_world_file(tmp_path / "f", max_bytes=len(data)) == data
    assert refusal(tmp_path / "f", max_bytes=len(data) - 1) == f"larger than {len(data) - 1} bytes"
    with pytest.raises(FileNotFoundError):
        read_world_file(tmp_path / "missing", max_bytes=10)


def test_what_is_not_a_regular_file_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")  # nobody writes: a blocking open would wait forever
    (tmp_path / "dir").mkdir()
    assert refusal(tmp_path / "fifo") == "not a regular file (a FIFO)"
    assert refusal("/dev/zero") == "not a regular file (a character device)"
    assert refusal(tmp_path / "dir") == "is a directory"
    (tmp_path / "zero").symlink_to("/dev/zero")
    assert refusal(tmp_path / "zero") == "not a regular file (a character device)"


def test_a_terminal_is_refused_without_becoming_ours() -> None:
    try:
        master, slave = os.openpty()
    except OSError:
        pytest.skip("no pseudo-terminals here")
    try:
        assert refusal(os.ttyname(slave)) == "not a regular file (a character device)"
    finally:
        os.close(master)
        os.close(slave)


def test_links_are_followed_only_as_the_caller_allows(tmp_path: Path) -> None:
    inside, outside = tmp_path / "repo", tmp_path / "elsewhere"
    inside.mkdir()
    outside.mkdir()
    (inside / "real.json").write_text("{}")
    (outside / "secret").write_text("s3cret")
    (inside / "near.json").symlink_to(inside / "real.json")
    (inside / "far.json").symlink_to(outside / "secret")
    assert read_world_file(inside / "far.json", max_bytes=100) == b"s3cret"  # FOLLOW
    assert refusal(inside / "near.json", links=Links.REFUSE) == "is a symbolic link"
    assert read_world_file(inside / "real.json", max_bytes=100, links=Links.REFUSE) == b"{}"
    within = {"links": Links.WITHIN, "root": inside}
    assert read_world_file(inside / "near.json", max_bytes=100, **within) == b"{}"
    assert refusal(inside / "far.json", **within) == f"a symbolic link leading out of {inside}"


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_discovery_in_a_hostile_project_ends_and_reports_each_file(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".cursor").mkdir(parents=True)
    (project / ".vscode").mkdir()
    (project / ".mcp.json").symlink_to("/dev/zero")
    os.mkfifo(project / ".vscode" / "mcp.json")
    os.mkfifo(project / "pipe.env")
    servers = {
        "zero": {"command": "echo", "envFile": "/dev/zero"},
        "pipe": {"command": "echo", "envFile": str(project / "pipe.env")},
    }
    (project / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "mcpcost", "audit", "--list-configs", "--json"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit_memory,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    configs = {c["source"]: c for c in json.loads(done.stdout)["configs"]}
    mcp_json = configs[str(project / ".mcp.json")]
    assert mcp_json["state"] == "error"
    assert mcp_json["error"] == "cannot read: not a regular file (a character device)"
    fifo = configs[str(project / ".vscode" / "mcp.json")]
    assert fifo["state"] == "error" and fifo["error"] == "cannot read: not a regular file (a FIFO)"
    cursor = configs[str(project / ".cursor" / "mcp.json")]
    assert cursor["state"] == "ok" and [s["name"] for s in cursor["servers"]] == ["zero", "pipe"]
    without = "launched without its variables"
    assert cursor["problems"] == [
        "server 'zero': envFile /dev/zero cannot be read "
        f"(not a regular file (a character device)): {without}",
        f"server 'pipe': envFile {project / 'pipe.env'} cannot be read "
        f"(not a regular file (a FIFO)): {without}",
    ]


def test_a_published_tree_with_a_fifo_is_read_without_blocking(tmp_path: Path) -> None:
    from mcpcost.runtime.output_tree import read_in_tree
    from mcpcost.sweep.files import load_measurements, read_bytes

    (tmp_path / "results" / "pipe").mkdir(parents=True)
    os.mkfifo(tmp_path / "results" / "pipe" / "measurement.json")
    (tmp_path / "results" / "fine").mkdir()
    (tmp_path / "results" / "fine" / "measurement.json").write_text("{}")
    rel = "results/pipe/measurement.json"
    assert finishes(lambda: read_in_tree(tmp_path, rel)) is None
    assert finishes(lambda: read_bytes(tmp_path / rel)) is None
    assert finishes(lambda: read_in_tree(tmp_path, "results/fine/measurement.json")) == b"{}"
    assert finishes(lambda: load_measurements(tmp_path)) == {}
