"""Config files as they are at a commit, read from git objects without touching the worktree."""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from mcpcost.core.record import Record
from mcpcost.errors import McpcostError


class GitError(McpcostError):
    """A git command that failed."""


class Git(Record, frozen=True):
    """Runs git in ``repo``; ``safe.directory`` is set per call as well as in the image."""

    repo: str
    timeout_s: float = 120.0

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        cmd = ["git", "-c", f"safe.directory={self.repo}", "-C", self.repo, *args]
        try:
            proc = subprocess.run(cmd, capture_output=True, timeout=self.timeout_s, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise GitError(f"git {args[0]}: {exc}") from None
        if check and proc.returncode != 0:
            detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git {args[0]} failed: {detail[-1] if detail else proc.returncode}")
        return proc

    def has_commit(self, sha: str) -> bool:
        return self.run("cat-file", "-e", f"{sha}^{{commit}}", check=False).returncode == 0

    def ensure_commit(self, sha: str) -> None:
        """Fetch just that commit (depth 1) when the checkout does not have it."""
        if not self.has_commit(sha):
            self.run("fetch", "--no-tags", "--depth=1", "origin", sha)
            if not self.has_commit(sha):
                raise GitError(f"commit {sha} is not available after fetching it")

    def files(self, sha: str) -> list[str]:
        out = self.run("ls-tree", "-r", "--name-only", "-z", sha).stdout
        return [p for p in out.decode("utf-8", "replace").split("\0") if p]

    def read(self, sha: str, path: str) -> str | None:
        """The file's text at ``sha``, or None when it does not exist there."""
        proc = self.run("cat-file", "blob", f"{sha}:{path}", check=False)
        if proc.returncode != 0:
            return None
        return proc.stdout.decode("utf-8", "replace")

    def changed_files(self, base: str, head: str) -> frozenset[str]:
        """Paths that differ between two commits (renames as a deletion and an addition)."""
        out = self.run("diff", "--name-only", "--no-renames", "-z", base, head, "--").stdout
        return frozenset(p for p in out.decode("utf-8", "replace").split("\0") if p)

    @contextmanager
    def worktree(self, sha: str, parent: str | None = None, *, name: str = "tree") -> Iterator[str]:
        """A detached checkout of ``sha`` in ``<new temporary directory>/<name>``, removed
        afterwards.

        The user's working tree and index are never touched; git keeps the worktree's
        bookkeeping under ``.git/worktrees`` only while it exists.
        """
        leaf = os.path.basename(name)
        holder = tempfile.mkdtemp(prefix="mcpcost-base-", dir=parent)
        path = os.path.join(holder, leaf if leaf not in ("", ".", "..") else "tree")
        try:
            self.run("worktree", "add", "--detach", "--quiet", path, sha)
            yield path
        finally:
            self.run("worktree", "remove", "--force", path, check=False)
            shutil.rmtree(holder, ignore_errors=True)
            self.run("worktree", "prune", check=False)


def matching(paths: Sequence[str], patterns: Sequence[str]) -> list[str]:
    """Repo paths matching any pattern (a plain path or a glob), in pattern order."""
    out: list[str] = []
    for pattern in patterns:
        for path in paths:
            if (path == pattern or fnmatch.fnmatchcase(path, pattern)) and path not in out:
                out.append(path)
    return out
