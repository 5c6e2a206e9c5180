"""The file-writing boundary: atomic writes, no symbolic link below the root, fsync failures and
recovery (under real commands and a full disk: tests/integration/test_output_tree_commands.py)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from mcpcost.errors import OutputError
from mcpcost.runtime.output_tree import (
    PENDING_DIR,
    Access,
    atomic_write,
    open_tree,
    read_in_tree,
    recover_tree,
    try_lock,
    write_in_tree,
)


def test_atomic_write_replaces_whole_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b.json"
    atomic_write(target, "one")
    atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert sorted(p.name for p in target.parent.iterdir()) == ["b.json"]
    assert oct(target.stat().st_mode & 0o777) == oct(0o644)


def test_owner_only_files_are_0600_in_0700_directories_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        write_in_tree(tmp_path / "state", "sub/tokens.json", "{}", access=Access.OWNER)
        atomic_write(tmp_path / "public" / "r.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "state" / "sub" / "tokens.json").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "state" / "sub").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "state").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "public" / "r.json").stat().st_mode) == 0o644


def test_the_tree_lock_is_exclusive_and_ends_with_its_descriptor(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    path.touch()
    first, second = os.open(path, os.O_RDWR), os.open(path, os.O_RDWR)
    try:
        assert try_lock(first)
        assert not try_lock(second)  # another holder (another open file description)
        os.close(first)
        first = -1
        assert try_lock(second)
    finally:
        for fd in (first, second):
            if fd >= 0:
                os.close(fd)


@pytest.mark.parametrize("link", ["results", "results/srv", "badges"])
def test_a_symlink_below_the_root_is_refused_and_nothing_lands_outside(
    tmp_path: Path, link: str
) -> None:
    root, outside = tmp_path / "site", tmp_path / "outside"
    outside.mkdir()
    (root / link).parent.mkdir(parents=True, exist_ok=True)
    (root / link).symlink_to(outside, target_is_directory=True)
    rel = "badges/srv.json" if link == "badges" else "results/srv/measurement.json"
    with pytest.raises(OutputError, match=r"it is a symbolic link"):
        write_in_tree(root, rel, "{}")
    assert list(outside.iterdir()) == []
    assert read_in_tree(root, rel) is None  # and reads do not follow it either


def test_a_final_component_that_is_a_link_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "x.json").symlink_to(victim)
    write_in_tree(tmp_path / "site", "x.json", "new")
    assert victim.read_text() == "keep"
    assert not (tmp_path / "site" / "x.json").is_symlink()


def test_paths_that_climb_out_are_refused(tmp_path: Path) -> None:
    for rel in ("../x", "/etc/x", "a/../../x", ""):
        with pytest.raises(OutputError):
            write_in_tree(tmp_path, rel, "x")


def test_an_io_error_at_fsync_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "m.json"
    atomic_write(target, "old")

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OutputError) as info:
        atomic_write(target, "new")
    monkeypatch.undo()
    assert "\n" not in str(info.value) and "previous file is left as it was" in str(info.value)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


def test_staged_files_are_flushed_together_at_the_commit_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Staging flushes nothing; the commit flushes every staged file before its journal."""
    synced: list[str] = []
    real_fsync = os.fsync

    def recording_fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    with open_tree(tmp_path) as txn:
        txn.put("results/a/measurement.json", "a")
        txn.put("badges/a.json", "b")
        assert synced == []
        txn.commit()
    staged_files = [p for p in synced if "/tree/" in p and p.endswith(".json")]
    assert sorted(Path(p).name for p in staged_files) == ["a.json", "measurement.json"]
    journal_at = next(i for i, p in enumerate(synced) if "/.journal." in p)
    assert all(synced.index(p) < journal_at for p in staged_files)
    assert (tmp_path / "results" / "a" / "measurement.json").read_text() == "a"


def test_an_io_error_flushing_staged_files_stops_before_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_in_tree(tmp_path, "results/a.json", "old")

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    with open_tree(tmp_path) as txn:
        txn.put("results/a.json", "new")
        monkeypatch.setattr(os, "fsync", failing_fsync)
        with pytest.raises(OutputError) as info:
            txn.commit()
        monkeypatch.undo()
        assert not txn.journal_written
    assert "\n" not in str(info.value) and "a.json" in str(info.value)
    assert (tmp_path / "results" / "a.json").read_text() == "old"
    assert not (tmp_path / PENDING_DIR).exists()


def test_a_transaction_left_without_commit_changes_nothing(tmp_path: Path) -> None:
    write_in_tree(tmp_path, "results/a.json", "old")
    with open_tree(tmp_path) as txn:
        txn.put("results/a.json", "new")
        txn.put("results/b.json", "b")
        assert txn.read("results/a.json") == b"new"
        assert (tmp_path / "results" / "a.json").read_text() == "old"
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["a.json"]
    assert not (tmp_path / PENDING_DIR).exists()


def test_a_journal_is_rolled_forward_and_staged_files_without_one_are_dropped(
    tmp_path: Path,
) -> None:
    write_in_tree(tmp_path, "keep.txt", "old")
    write_in_tree(tmp_path, f"{PENDING_DIR}/tree/keep.txt", "staged, never committed")
    recover_tree(tmp_path)
    assert (tmp_path / "keep.txt").read_text() == "old"
    assert list((tmp_path / PENDING_DIR).iterdir()) == []
    write_in_tree(tmp_path, "gone.md", "stale")
    write_in_tree(tmp_path, f"{PENDING_DIR}/tree/keep.txt", "committed")
    write_in_tree(tmp_path, f"{PENDING_DIR}/journal", '{"put":["keep.txt"],"remove":["gone.md"]}')
    recover_tree(tmp_path)
    assert (tmp_path / "keep.txt").read_text() == "committed"
    assert not (tmp_path / "gone.md").exists()
    assert recover_tree(tmp_path) == 0  # idempotent


def test_the_actions_report_files_never_follow_a_link_in_the_workspace(tmp_path: Path) -> None:
    from mcpcost.action.publishing import write_workspace_file

    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (workspace / ".mcp-context-cost").symlink_to(outside)
    with pytest.raises(OutputError, match="symbolic link"):
        write_workspace_file(str(workspace), ".mcp-context-cost/report.json", "{}")
    assert list(outside.iterdir()) == []
    write_workspace_file(str(workspace), "reports/./report.json", "{}\n")
    assert (workspace / "reports" / "report.json").read_text() == "{}\n"
