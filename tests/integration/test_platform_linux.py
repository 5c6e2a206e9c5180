"""The platform layer on this system (Linux) with real processes: the interface, a background
process that escapes the tree while holding our pipes, and the environment servers inherit."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpcost.cli import main
from mcpcost.core.spec import ServerSpec
from mcpcost.core.tokenizer import get_tokenizer
from mcpcost.runtime.processes import (
    LiveTrees,
    ProcessPlatform,
    ProcessTree,
    current_platform,
    start_tree,
    stop_tree,
)
from mcpcost.runtime.processes.linux import LinuxPlatform
from mcpcost.transports.stdio import spawn_stdio
from tests.helpers.live_processes import tagged
from tests.helpers.paths import ROOT
from tests.servers.registry import FIXTURES_DIR

pytestmark = pytest.mark.linux_only("reads /proc")

PLATFORM_SERVER = FIXTURES_DIR / "platform_server.py"


def platform_argv(mode: str, *extra: str) -> list[str]:
    return [sys.executable, str(PLATFORM_SERVER), "--mode", mode, *extra]


def wait_for_file(path: Path, limit_s: float = 15.0) -> str:
    deadline = time.monotonic() + limit_s
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return path.read_text()


@pytest.fixture
def escaped_pids() -> Iterator[list[int]]:
    """Background processes a test let escape; killed at the end whatever happened."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def start_script(platform: ProcessPlatform, script: str, registry: LiveTrees) -> ProcessTree:
    """A shell script started as a server tree, registered in ``registry``."""
    env = {"PATH": os.environ["PATH"]}
    return start_tree(platform, ["sh", "-c", script], env=env, cwd=None, registry=registry)


def test_the_interface_starts_watches_and_stops_a_tree(tmp_path: Path) -> None:
    platform = current_platform()
    assert platform.name == "linux"
    assert platform.resolve(["sh", "-c", "x"], {"PATH": "/usr/bin:/bin"}).found in (
        "/usr/bin/sh",
        "/bin/sh",
    )
    assert platform.resolve(["no-such-command-xyz"], {"PATH": "/bin"}).found is None
    registry = LiveTrees()
    tree = start_script(platform, f"sleep 30 & echo $! > {tmp_path / 'bg.pid'}; sleep 30", registry)
    background = int(wait_for_file(tmp_path / "bg.pid"))
    assert platform.alive(tree) and registry.snapshot() == [tree]
    stop_tree(tree, 2.0, registry=registry)
    tree.close_pipes()
    assert not platform.alive(tree) and registry.snapshot() == []
    assert background not in {pid for pid, _, _ in LinuxPlatform().processes()}
    assert tree.exit_code() == -signal.SIGTERM


def test_strays_from_children_files_equal_a_full_scan(tmp_path: Path) -> None:
    # the walk down the children files and the scan of every /proc entry find the same strays
    platform = LinuxPlatform()
    registry = LiveTrees()
    script = f"setsid sleep 30 & echo $! > {tmp_path / 'bg.pid'}; sleep 30 & wait"
    tree = start_script(platform, script, registry)
    try:
        stray = int(wait_for_file(tmp_path / "bg.pid"))
        deadline = time.monotonic() + 5
        while os.getsid(stray) != stray and time.monotonic() < deadline:
            time.sleep(0.01)  # setsid has forked but not yet left the group
        assert platform.strays(tree) == platform._strays_by_scan(tree) == [stray]
    finally:
        stop_tree(tree, 2.0, registry=registry)
        tree.close_pipes()
    assert platform.strays(tree) == platform._strays_by_scan(tree) == []


def test_strays_fall_back_to_a_scan_without_children_files() -> None:
    class NoChildrenFiles:
        def listdir(self, path: str) -> list[str]:
            return ["1", "100", "101", "self"] if path == "/proc" else ["100"]

        def read_bytes(self, path: str) -> bytes:
            if path.endswith("/children"):
                raise FileNotFoundError(path)
            pid = path.split("/")[2]
            return {
                "1": b"1 (init) S 0 1 1",
                "100": b"100 (node) S 1 100 100",
                "101": b"101 (helper) S 100 101 101",
            }[pid]

        def getpgid(self, pid: int) -> int:
            return pid

    platform = LinuxPlatform(NoChildrenFiles())  # type: ignore[arg-type]
    tree = type("Tree", (), {"pid": 100, "group": 100})()
    assert platform.strays(tree) == [101]  # type: ignore[arg-type]


def test_close_does_not_wait_for_a_process_that_escaped_with_our_pipes(
    tmp_path: Path, escaped_pids: list[int]
) -> None:
    pid_file = tmp_path / "escaped.pid"
    before = len(os.listdir("/proc/self/fd"))
    t = spawn_stdio(ServerSpec.stdio("x", platform_argv("escape", "--pid-file", str(pid_file))))
    escaped_pids.append(int(wait_for_file(pid_file)))
    t.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
    assert t.receive(10)["id"] == 1
    started = time.monotonic()
    t.close()
    assert time.monotonic() - started < 1.5
    assert tagged(str(pid_file)) == set(escaped_pids)  # only the escaped one is left
    deadline = time.monotonic() + 2
    while len(os.listdir("/proc/self/fd")) > before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(os.listdir("/proc/self/fd")) == before  # our ends of its pipes are closed


def test_a_child_that_left_the_group_is_stopped_with_the_server(
    tmp_path: Path, escaped_pids: list[int]
) -> None:
    pid_file = tmp_path / "child.pid"
    argv = platform_argv("escape", "--forks", "1", "--pid-file", str(pid_file))
    t = spawn_stdio(ServerSpec.stdio("x", argv))
    child = int(wait_for_file(pid_file))
    escaped_pids.append(child)
    assert os.getsid(child) == child  # a session (and group) of its own
    started = time.monotonic()
    t.close()
    assert time.monotonic() - started < 1.5
    assert tagged(str(pid_file)) == set()


@pytest.mark.slow
def test_measure_timeout_holds_when_a_background_process_keeps_the_pipes(
    tmp_path: Path, escaped_pids: list[int]
) -> None:
    pid_file = tmp_path / "escaped.pid"
    argv = [
        "measure",
        "--timeout",
        "5",
        "--json",
        "--",
        *platform_argv("escape", "--pid-file", str(pid_file)),
    ]
    out, err = io.StringIO(), io.StringIO()
    get_tokenizer()  # loaded before the clock starts: the bound is on the servers, not on us
    started = time.monotonic()
    code = main(argv, out, err)
    elapsed = time.monotonic() - started
    survivors = tagged(str(pid_file))  # what is left of both captures' trees
    escaped_pids.extend(survivors)
    assert code == 0, err.getvalue()
    assert json.loads(out.getvalue())["status"] == "measured"
    assert elapsed < 5 + 2
    # each capture's server left one background process in a session of its own; nothing else:
    # a server would lead its own session (sid == pid) and be our child
    assert 1 <= len(survivors) <= 2
    parents = {pid: ppid for pid, ppid, _ in LinuxPlatform().processes()}
    for pid in survivors:
        assert os.getsid(pid) not in (pid, os.getsid(0)) and parents[pid] != os.getpid()


def test_servers_get_package_manager_certificate_and_proxy_settings(tmp_path: Path) -> None:
    secrets = {
        "npm_config_registry": "https://npm.internal.example/s3cr3t-npm/",
        "NPM_CONFIG_CAFILE": "/etc/corp/npm-ca.pem",
        "PNPM_HOME": "/opt/pnpm-home",
        "YARN_CACHE_FOLDER": "/opt/yarn-cache",
        "BUN_INSTALL": "/opt/bun",
        "UV_NATIVE_TLS": "true",
        "UV_INDEX_URL": "https://user:uv-s3cr3t@pypi.internal.example/simple",
        "PIP_INDEX_URL": "https://user:pip-s3cr3t@pypi.internal.example/simple",
        "NODE_EXTRA_CA_CERTS": "/etc/corp/node-ca.pem",
        "SSL_CERT_FILE": "/etc/corp/ca.pem",
        "SSL_CERT_DIR": "/etc/corp/certs",
        "REQUESTS_CA_BUNDLE": "/etc/corp/requests.pem",
        "CURL_CA_BUNDLE": "/etc/corp/curl.pem",
        "GIT_SSL_CAINFO": "/etc/corp/git.pem",
        "HTTPS_PROXY": "http://proxy-user:proxy-s3cr3t@proxy.internal.example:3128",
        "https_proxy": "http://proxy-user:proxy-s3cr3t@proxy.internal.example:3128",
        "NO_PROXY": "localhost,127.0.0.1",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    withheld = {
        "AWS_SECRET_ACCESS_KEY": "aws-s3cr3t",
        "GITHUB_TOKEN": "gh-s3cr3t",
        "NODE_OPTIONS": "--require /tmp/evil.js",
        "PYTHONPATH": str(ROOT),
    }
    prefixes = ",".join(sorted({n.split("_")[0] for n in (*secrets, *withheld)}))
    argv = [
        sys.executable,
        "-m",
        "mcpcost",
        "measure",
        "--timeout",
        "20",
        "--json",
        "--",
        *platform_argv("env-report", "--prefixes", prefixes),
    ]
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/"), **secrets, **withheld}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    received = {tool["name"] for tool in json.loads(done.stdout)["tools"]}
    assert received == set(secrets)
    for value in (*secrets.values(), *withheld.values()):
        if "s3cr3t" in value:
            assert value not in done.stdout and value not in done.stderr


def test_a_tree_left_open_is_killed_when_the_process_exits(tmp_path: Path) -> None:
    tag = f"left-open-{uuid.uuid4().hex}"
    script = (
        "import sys\n"
        "from mcpcost.core.spec import ServerSpec\n"
        "from mcpcost.transports.stdio import spawn_stdio\n"
        f"t = spawn_stdio(ServerSpec.stdio('x', ['sh', '-c', 'sleep 30; : {tag}']))\n"
        "print(t.diagnostics.pgid, flush=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout)  # the server was started, and never closed (it ignores stdin's end)
    deadline = time.monotonic() + 2
    while tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert tagged(tag) == set()


def test_waiting_for_a_child_returns_when_it_ends_not_when_the_wait_runs_out() -> None:
    from mcpcost.runtime.processes.posix import RealPosixSystem

    system = RealPosixSystem()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.3)"])
    started = time.monotonic()
    system.wait_exit(child.pid, 30.0)
    waited = time.monotonic() - started
    assert child.poll() is not None  # it had ended (now reaped)
    assert waited < 15.0  # far from the 30 s it was allowed
    # a child already reaped is not waited for at all
    started = time.monotonic()
    system.wait_exit(child.pid, 30.0)
    assert time.monotonic() - started < 15.0


@pytest.fixture
def descriptors_past_1024() -> Iterator[None]:
    """Hold enough open descriptors that the next one opened is numbered past 1024, where
    ``select`` cannot take it."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 1300
    if soft < wanted:
        if hard != resource.RLIM_INFINITY and hard < wanted:
            pytest.skip("the descriptor limit cannot reach past 1024 here")
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    held = [os.open(os.devnull, os.O_RDONLY)]
    try:
        while held[-1] < 1100:
            held.append(os.dup(held[0]))
        yield
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_waiting_for_a_child_works_past_select_s_descriptor_limit(
    descriptors_past_1024: None,
) -> None:
    from mcpcost.runtime.processes.posix import RealPosixSystem

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.2)"])
    RealPosixSystem().wait_exit(child.pid, 30.0)
    assert child.poll() is not None


def test_a_pipe_numbered_past_select_s_limit_is_read(descriptors_past_1024: None) -> None:
    from mcpcost.runtime.processes.posix import PollingReader

    read_end, write_end = os.pipe()
    assert read_end > 1024
    reader = PollingReader(os.fdopen(read_end, "rb"))
    os.write(write_end, b"hello\n")
    assert reader.read1(100) == b"hello\n"
    os.close(write_end)
    assert reader.read1(100) == b""  # end of file
    reader.close()


def test_command_lookup_follows_shutil_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from mcpcost.runtime.processes.posix import executable_on_path

    first, second, empty = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for d in (first, second, empty):
        d.mkdir()
    for d, name, mode in (
        (first, "tool", 0o644),  # not executable: skipped
        (second, "tool", 0o755),
        (first, "only-a", 0o755),
        (second, "dir-named", 0o755),
    ):
        (d / name).write_text("#!/bin/sh\n")
        (d / name).chmod(mode)
    (first / "dir-named").mkdir()  # a directory is never the command
    monkeypatch.chdir(tmp_path)
    paths = [
        f"{first}:{second}",
        f"{second}:{first}",
        f"{first}:{first}:{empty}",
        f":{first}",  # an empty entry is the working directory
        "",
        None,  # this process's PATH
    ]
    commands = ["tool", "only-a", "dir-named", "missing", str(second / "tool"), "a/only-a", "sh"]
    for path in paths:
        for command in commands:
            assert executable_on_path(command, path) == shutil.which(command, path=path), (
                command,
                path,
            )
