"""The stdio transport on its own: spawning, environment, process-group shutdown."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from mcpcost.core.spec import ServerSpec
from mcpcost.transports.failures import SpawnFailed, TransportClosed
from mcpcost.transports.stdio import group_alive, safe_base_env, server_env, spawn_stdio
from tests.servers.registry import fixture_argv, pid_alive

pytestmark = pytest.mark.posix_only("signals POSIX process groups")

ECHO_ENV = (
    "import json,os,sys\n"
    "line=sys.stdin.readline()\n"
    "print(json.dumps({'jsonrpc':'2.0','id':1,'result':{'env':dict(os.environ),"
    "'cwd':os.getcwd()}}),flush=True)\n"
)


def test_safe_base_env_keeps_only_the_safe_names() -> None:
    environ = {
        "PATH": "/bin",
        "HOME": "/h",
        "LC_ALL": "C",
        "https_proxy": "p",
        "AWS_SECRET": "s",
        "GITHUB_TOKEN": "t",
        "SYSTEMROOT": "c:/w",
        "TZ": "UTC",
    }
    assert safe_base_env(environ) == {
        "PATH": "/bin",
        "HOME": "/h",
        "LC_ALL": "C",
        "https_proxy": "p",
        "TZ": "UTC",
    }
    assert safe_base_env(environ, windows=True)["SYSTEMROOT"] == "c:/w"


def test_spec_env_overrides_and_adds() -> None:
    spec = ServerSpec.stdio("x", ["prog"], env={"API_KEY": "k", "PATH": "/only"})
    assert server_env(spec, {"PATH": "/bin", "SECRET": "no"}) == {"API_KEY": "k", "PATH": "/only"}


def test_child_sees_exact_env_and_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPCOST_SHOULD_NOT_LEAK", "leak")
    spec = ServerSpec.stdio(
        "x", [sys.executable, "-c", ECHO_ENV], env={"MY_VAR": "v 1"}, cwd=str(tmp_path)
    )
    t = spawn_stdio(spec)
    try:
        t.send({"jsonrpc": "2.0", "id": 1, "method": "x"})
        result = t.receive(10)["result"]
    finally:
        t.close()
    assert result["env"]["MY_VAR"] == "v 1"
    assert "MCPCOST_SHOULD_NOT_LEAK" not in result["env"]
    assert Path(result["cwd"]).resolve() == tmp_path.resolve()


def test_argv_is_not_run_through_a_shell(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    spec = ServerSpec.stdio(
        "x", [sys.executable, "-c", "import sys; print(sys.argv[1])", f"; touch {marker}"]
    )
    t = spawn_stdio(spec)
    with pytest.raises(TransportClosed) as info:
        t.receive(10)
    t.close()
    assert info.value.exit_code == 0
    assert t.diagnostics.ignored_lines == 1
    assert not marker.exists()


def test_missing_executable_is_spawn_failed() -> None:
    with pytest.raises(SpawnFailed) as info:
        spawn_stdio(ServerSpec.stdio("x", ["/nonexistent/mcp-server-xyz"]))
    assert "spawn failed" in str(info.value)


def test_exit_code_and_stderr_tail_are_reported() -> None:
    code = "import sys; sys.stderr.write('E' * 20000 + 'last words'); sys.exit(7)"
    t = spawn_stdio(ServerSpec.stdio("x", [sys.executable, "-c", code]))
    try:
        with pytest.raises(TransportClosed) as info:
            t.receive(10)
    finally:
        t.close()
    assert info.value.exit_code == 7
    assert info.value.stderr_tail.endswith("last words")
    assert len(info.value.stderr_tail) <= 8192
    assert "code 7" in str(info.value)


def test_close_kills_grandchild_that_ignores_sigterm(tmp_path: Path) -> None:
    gc_pid_file = tmp_path / "gc.pid"
    argv = fixture_argv("grandchild", "--grandchild-pid-file", str(gc_pid_file))
    t = spawn_stdio(ServerSpec.stdio("x", argv))
    pgid = t.diagnostics.pgid
    assert pgid is not None
    deadline = time.monotonic() + 10
    while not gc_pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    gc_pid = int(gc_pid_file.read_text().strip())
    assert pid_alive(gc_pid) and group_alive(pgid)
    started = time.monotonic()
    t.close()
    assert time.monotonic() - started < 5
    assert not pid_alive(gc_pid)
    assert not group_alive(pgid)


def test_close_of_a_server_that_ignores_stdin_eof() -> None:
    t = spawn_stdio(ServerSpec.stdio("x", fixture_argv("silent")))
    pgid = t.diagnostics.pgid
    assert pgid is not None
    t.close()
    t.close()  # twice is fine
    assert not group_alive(pgid)
    with pytest.raises(TransportClosed):
        t.send({"jsonrpc": "2.0", "method": "x"})


def test_send_to_an_exited_server_reports_exit() -> None:
    t = spawn_stdio(ServerSpec.stdio("x", [sys.executable, "-c", "import sys; sys.exit(4)"]))
    try:
        deadline = time.monotonic() + 10
        while t.diagnostics.exit_code is None and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(TransportClosed) as info:
            for _ in range(50):  # the pipe may accept a write or two before EPIPE
                t.send({"jsonrpc": "2.0", "method": "x", "params": {"pad": "y" * 70000}})
        assert info.value.exit_code == 4
    finally:
        t.close()


def test_nothing_is_left_after_many_spawns() -> None:
    pgids = []
    for _ in range(5):
        t = spawn_stdio(ServerSpec.stdio("x", fixture_argv("good")))
        pgids.append(t.diagnostics.pgid)
        t.close()
    assert all(p is not None and not group_alive(p) for p in pgids)
    assert os.getpgid(0) not in pgids
