"""The file-writing boundary under real commands and a real file system: ``mcpcost measure --out``
through a symlinked badges directory, and a full disk (a small tmpfs, which needs mount rights)
for one write and for a whole sweep."""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpcost.errors import OutputError
from mcpcost.runtime.output_tree import (
    PENDING_DIR,
    atomic_write,
)
from tests.helpers.paths import ROOT
from tests.servers.registry import fixture_argv


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "mcpcost", *argv],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_measure_out_through_a_symlinked_badges_dir_is_a_one_line_error(tmp_path: Path) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside"
    outside.mkdir()
    out.mkdir()
    (out / "badges").symlink_to(outside)
    proc = run_cli("measure", "--out", str(out), "--name", "fx", "--", *fixture_argv("good"))
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.splitlines()[-1]  # after the progress line, one line of error
    assert last.startswith("refusing to write under") and last.endswith("it is a symbolic link")
    assert "Traceback" not in proc.stderr
    assert list(outside.iterdir()) == []
    assert not (out / "results").exists()  # both files or neither
    assert not (out / PENDING_DIR).exists()


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    where.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip() or proc.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(folder: Path) -> None:
    """Use up every free block of the file system holding ``folder``."""
    fd = os.open(folder / f"filler-{uuid.uuid4().hex}", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)


def test_a_full_disk_is_a_one_line_error_and_the_previous_file_stays(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "disk", "64k") as disk:
        target = disk / "results" / "m.json"
        atomic_write(target, "previous")
        fill(disk)
        with pytest.raises(OutputError) as info:
            atomic_write(target, "x" * 65536)
        assert "No space left on device" in str(info.value) and "\n" not in str(info.value)
        assert target.read_text() == "previous"
        assert [p.name for p in target.parent.iterdir()] == ["m.json"]


@pytest.mark.slow
def test_a_sweep_onto_a_full_disk_exits_2_and_keeps_the_published_tree(tmp_path: Path) -> None:
    servers = tmp_path / "servers.yaml"
    servers.write_text(
        "servers:\n"
        + "".join(
            f"  - name: srv-{i}\n    command: {shlex.join(fixture_argv('good'))!r}\n"
            for i in range(2)
        )
    )
    with small_tmpfs(tmp_path / "disk", "1m") as disk:
        site = disk / "site"
        first = run_cli("sweep", "--servers", str(servers), "--out", str(site))
        assert first.returncode == 0, first.stderr
        before = {p: p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}
        fill(disk)
        again = run_cli("sweep", "--servers", str(servers), "--out", str(site))
        assert again.returncode == 2, again.stderr
        last = again.stderr.strip().splitlines()[-1]
        # the first write is the sweep's resume key, before anything is measured
        assert last == (
            f"cannot write {site}/.mcpcost-pending/resume: No space left on device "
            "(the previous file is left as it was)"
        ), last
        assert "Traceback" not in again.stderr
        after = {p: p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}
        assert after == before
