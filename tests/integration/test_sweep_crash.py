"""A published tree survives a killed sweep: real ``mcpcost sweep`` processes, killed at named
points (``tests/helpers/crash_points.py`` stops them there), then the tree compared byte for byte."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mcpcost.core.jsonvalue import parse_json
from tests.helpers.paths import ROOT
from tests.helpers.sweep_resume import run_until_paused as paused_at
from tests.servers.registry import fixture_argv

NAMES = [f"srv-{i}" for i in range(6)]
PENDING = ".mcpcost-pending"


def catalog(path: Path, *, broken: bool) -> Path:
    lines = ["servers:"]
    for name in NAMES:
        argv = ["/nonexistent/mcp-server", "--stdio"] if broken else fixture_argv("good")
        lines += [f"  - name: {name}", f"    command: {shlex.join(argv)!r}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT))


def sweep_argv(servers: Path, out: Path, *, pause: str | None = None) -> list[str]:
    runner = ["-m", "mcpcost"] if pause is None else ["-m", "tests.helpers.crash_points", pause]
    return [
        sys.executable,
        *runner,
        "sweep",
        "--servers",
        str(servers),
        "--out",
        str(out),
        "--concurrency",
        "2",
        "--timeout",
        "20",
    ]


def publish(root: Path, servers: Path) -> subprocess.CompletedProcess[bytes]:
    argv = [
        sys.executable,
        "-m",
        "mcpcost",
        "publish",
        "--out",
        str(root),
        "--servers",
        str(servers),
    ]
    return subprocess.run(argv, env=env(), cwd=ROOT, capture_output=True, timeout=60)


def tree(root: Path, *, pending: bool = False) -> dict[str, bytes]:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and (pending or not rel.startswith(PENDING)):
            out[rel] = p.read_bytes()
    return out


def run_until_paused(
    servers: Path, out: Path, pause: str, *, timeout_s: float = 60
) -> subprocess.Popen[bytes]:
    """Start a sweep of ``servers`` into ``out`` and return once it is paused at ``pause``."""
    return paused_at(sweep_argv(servers, out, pause=pause), pause, timeout_s)


def kill(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    proc.send_signal(sig)
    try:
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    """A tree published by a good sweep of six servers."""
    base = tmp_path_factory.mktemp("published")
    good = catalog(base / "good.yaml", broken=False)
    root = base / "site"
    proc = subprocess.run(
        sweep_argv(good, root), env=env(), cwd=ROOT, capture_output=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr.decode()
    before = tree(root, pending=True)
    assert sum(1 for rel in before if rel.endswith("measurement.json")) == 6
    assert not any(rel.startswith(PENDING) for rel in before)
    return root, before


def copy_tree(files: dict[str, bytes], root: Path) -> Path:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


@pytest.mark.slow
@pytest.mark.parametrize(
    ("point", "sig"),
    [
        ("measuring", signal.SIGKILL),  # before any result
        ("result-staged", signal.SIGKILL),  # during: the first result has landed
        ("result-staged", signal.SIGTERM),
        ("staged", signal.SIGKILL),  # after every write, before the commit point
    ],
)
def test_a_sweep_killed_before_its_commit_leaves_the_tree_byte_identical(
    published: tuple[Path, dict[str, bytes]], tmp_path: Path, point: str, sig: signal.Signals
) -> None:
    _, before = published
    root = copy_tree(before, tmp_path / "site")
    # Every server of this catalog fails: the sweep the issue reported replacing good results.
    broken = catalog(tmp_path / "broken.yaml", broken=True)
    if point == "staged":  # a sweep that reaches its commit passes the guard: measure good ones
        broken = catalog(tmp_path / "good.yaml", broken=False)
    proc = run_until_paused(broken, root, point)
    kill(proc, sig)
    assert tree(root) == before  # every published file, byte for byte, at the moment of death
    # The next command clears what was staged before doing anything else.
    nxt = publish(root, catalog(tmp_path / "same.yaml", broken=False))
    assert nxt.returncode == 0, nxt.stderr.decode()
    assert tree(root, pending=True) == before


@pytest.mark.slow
@pytest.mark.parametrize("point", ["journal-written", "mid-commit"])
def test_a_sweep_killed_after_its_commit_point_is_completed_by_the_next_command(
    published: tuple[Path, dict[str, bytes]], tmp_path: Path, point: str
) -> None:
    _, before = published
    root = copy_tree(before, tmp_path / "site")
    good = catalog(tmp_path / "good.yaml", broken=False)
    proc = run_until_paused(good, root, point)
    kill(proc, signal.SIGKILL)
    staged = {
        rel.removeprefix(f"{PENDING}/tree/"): data
        for rel, data in tree(root, pending=True).items()
        if rel.startswith(f"{PENDING}/tree/")
    }
    journal = parse_json((root / PENDING / "journal").read_bytes())
    assert isinstance(journal, dict) and journal["remove"] == []
    puts: list[str] = journal["put"]
    assert any(rel.endswith("measurement.json") for rel in puts)
    moved = [rel for rel in puts if rel not in staged]
    # mid-commit: the first file was already renamed into place (and is no longer staged)
    assert len(moved) == (1 if point == "mid-commit" else 0)
    expected = dict(before)
    expected.update(staged)
    expected.update({rel: (root / rel).read_bytes() for rel in moved})
    # The next command, whichever it is, finishes the commit before anything else.
    nxt = publish(root, catalog(tmp_path / "same.yaml", broken=False))
    assert nxt.returncode == 0, nxt.stderr.decode()
    after = tree(root, pending=True)
    assert after == expected
    assert "0 files changed" in nxt.stdout.decode()  # the rolled-forward tree was complete


@pytest.mark.slow
def test_a_second_command_on_a_tree_in_use_is_refused(
    published: tuple[Path, dict[str, bytes]], tmp_path: Path
) -> None:
    _, before = published
    root = copy_tree(before, tmp_path / "site")
    good = catalog(tmp_path / "good.yaml", broken=False)
    proc = run_until_paused(good, root, "measuring")
    try:
        nxt = publish(root, good)
    finally:
        kill(proc, signal.SIGKILL)
    err = nxt.stderr.decode()
    assert nxt.returncode == 2 and err.count("\n") == 1 and "another mcpcost command" in err
    assert tree(root) == before


@pytest.mark.slow
def test_a_sweep_the_guard_refuses_never_touches_the_published_tree(
    published: tuple[Path, dict[str, bytes]], tmp_path: Path
) -> None:
    _, before = published
    root = copy_tree(before, tmp_path / "site")
    broken = catalog(tmp_path / "broken.yaml", broken=True)
    proc = subprocess.run(
        sweep_argv(broken, root), env=env(), cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1, proc.stderr
    assert "HARNESS FAULT — refusing to publish this sweep" in proc.stderr
    assert "6 of 6 previously-measured servers (100%) failed" in proc.stderr
    assert tree(root, pending=True) == before


@pytest.mark.slow
@pytest.mark.parametrize("link", ["results/srv-0", "badges"])
def test_a_sweep_refuses_a_symlink_in_the_tree_and_writes_nothing(
    published: tuple[Path, dict[str, bytes]], tmp_path: Path, link: str
) -> None:
    _, before = published
    root = copy_tree(before, tmp_path / "site")
    outside = tmp_path / "outside"
    outside.mkdir()
    moved = tmp_path / "moved"
    (root / link).rename(moved)
    (root / link).symlink_to(outside, target_is_directory=True)
    good = catalog(tmp_path / "good.yaml", broken=False)
    proc = subprocess.run(
        sweep_argv(good, root), env=env(), cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last == f"refusing to write under {root / link}: it is a symbolic link"
    assert list(outside.iterdir()) == []
    expected = {rel: data for rel, data in before.items() if not rel.startswith(link + "/")}
    assert tree(root, pending=True) == expected
