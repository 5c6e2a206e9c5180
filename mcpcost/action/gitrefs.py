"""Config files as they are at a commit, read from git objects without touching the worktree.

A pull request's base commit is often not in the checkout (a shallow clone of the head), so it is
fetched from ``origin``. The examples check out with ``persist-credentials: false``, which leaves
no credential behind, so on a private repository that fetch must authenticate: the Action's
token goes to git as an ``http.<server>/.extraheader`` for that one fetch only, through the
``GIT_CONFIG_COUNT`` / ``GIT_CONFIG_KEY_n`` / ``GIT_CONFIG_VALUE_n`` environment of that one
process. It is never written to a git config file, never on a command line (which any process on
the runner can read), scoped to the runner's GitHub server URL (git sends it to no other host),
and masked in any error text. The entry is preceded by an empty value of the same key, which
clears a header ``actions/checkout`` left in the repository's config, so exactly one
``Authorization`` header is sent.
"""

from __future__ import annotations

import base64
import fnmatch
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from mcpcost.errors import McpcostError


class GitError(McpcostError):
    """A git command that failed."""


def token_config(token: str, server_url: str) -> tuple[tuple[str, str], ...]:
    """The git config entries that send ``token`` to ``server_url`` as GitHub's checkout does
    (``Authorization: basic`` of ``x-access-token:<token>``): an empty value that clears any
    header already configured for that URL, then the header. None without a token or an http(s)
    server URL."""
    if not token or not server_url.startswith(("https://", "http://")):
        return ()
    key = f"http.{server_url.rstrip('/')}/.extraheader"
    return ((key, ""), (key, f"AUTHORIZATION: basic {basic_credentials(token)}"))


def basic_credentials(token: str) -> str:
    """``x-access-token:<token>`` in base64, as HTTP basic authentication sends it."""
    return base64.b64encode(f"x-access-token:{token}".encode()).decode("ascii")


def config_environ(
    entries: Sequence[tuple[str, str]], environ: Mapping[str, str]
) -> dict[str, str]:
    """``environ`` with ``entries`` added as ``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` after
    any the environment already holds."""
    out = dict(environ)
    try:
        start = max(0, int(out.get("GIT_CONFIG_COUNT", "0")))
    except ValueError:
        start = 0
    for i, (key, value) in enumerate(entries, start):
        out[f"GIT_CONFIG_KEY_{i}"] = key
        out[f"GIT_CONFIG_VALUE_{i}"] = value
    out["GIT_CONFIG_COUNT"] = str(start + len(entries))
    return out


@dataclass(frozen=True, slots=True)
class Git:
    """Runs git in ``repo``; ``safe.directory`` is set per call as well as in the image.

    ``token`` (kept out of ``repr``) authenticates fetches from ``origin`` when ``origin`` is on
    ``server_url`` (the runner's ``GITHUB_SERVER_URL``); nothing else git does sends it."""

    repo: str
    timeout_s: float = 120.0
    token: str = field(default="", repr=False)
    server_url: str = ""

    def run(
        self, *args: str, check: bool = True, config: Sequence[tuple[str, str]] = ()
    ) -> subprocess.CompletedProcess[bytes]:
        """``git args`` in the repository; ``config`` entries reach that one process through
        its environment (see the module docstring), never its command line."""
        cmd = ["git", "-c", f"safe.directory={self.repo}", "-C", self.repo, *args]
        env = None
        if config:
            env = config_environ(config, os.environ)
            env["GIT_TERMINAL_PROMPT"] = "0"  # a refused credential fails; it never waits
        try:
            proc = subprocess.run(
                cmd, capture_output=True, timeout=self.timeout_s, check=False, env=env
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise GitError(self._masked(f"git {args[0]}: {exc}")) from None
        if check and proc.returncode != 0:
            detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            last = detail[-1] if detail else str(proc.returncode)
            raise GitError(self._masked(f"git {args[0]} failed: {last}"))
        return proc

    def persisted_credentials(self) -> bool:
        """Whether the checkout keeps an HTTP credential in its git config (``actions/checkout``
        without ``persist-credentials: false`` writes the token as an ``extraheader``): a file
        the servers of a pull request can read."""
        proc = self.run("config", "--get-regexp", r"^http\..*\.extraheader$", check=False)
        return proc.returncode == 0 and bool(proc.stdout.strip())

    def _masked(self, text: str) -> str:
        if not self.token:
            return text
        return text.replace(basic_credentials(self.token), "***").replace(self.token, "***")

    def has_commit(self, sha: str) -> bool:
        return self.run("cat-file", "-e", f"{sha}^{{commit}}", check=False).returncode == 0

    def ensure_commit(self, sha: str) -> None:
        """Fetch just that commit (depth 1) when the checkout does not have it, with the token
        for this one fetch."""
        if not self.has_commit(sha):
            auth = token_config(self.token, self.server_url)
            self.run("fetch", "--no-tags", "--depth=1", "origin", sha, config=auth)
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
        # readable, not writable, by the unprivileged user base's servers run as
        # (mcpcost.action.untrusted_launches): it holds only the base commit's files
        os.chmod(holder, 0o755)
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
