"""Base and head share one measurement when the launch is the same and names nothing the pull
request changed; otherwise the base side runs from a worktree of the base commit. Real git
repositories and real stdio servers; launches are counted through the measure function the
Action is given."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from mcpcost.action.gitrefs import Git
from mcpcost.action.main import run
from mcpcost.action.measure_sides import default_measure_server
from mcpcost.action.runner_env import Log, Runner
from mcpcost.action.settings import CommentMode, Settings
from mcpcost.core.measure import measure_tools
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.runtime.github import GitHubClient
from tests.helpers.paths import ACTION_TESTS
from tests.servers.registry import real_server_argv, real_server_missing

FIXTURE = ACTION_TESTS / "mcp_fixture.py"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


class Repo:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        git(root, "config", "user.email", "t@example.com")
        git(root, "config", "user.name", "t")

    def commit(self, files: dict[str, str | None], config: dict[str, Any] | None = None) -> str:
        for name, text in files.items():
            path = self.root / name
            if text is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        if config is not None:
            body = json.dumps({"mcpServers": config}, indent=2) + "\n"
            (self.root / ".mcp.json").write_text(body)
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "--allow-empty", "-m", "change")
        return git(self.root, "rev-parse", "HEAD")


class Counting:
    """The real measure function, with every launch it was asked for recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None]] = []
        self.lock = threading.Lock()

    def __call__(self, spec: ServerSpec, timeout_s: float) -> Measurement:
        with self.lock:
            self.calls.append((spec.name, spec.cwd))
        return default_measure_server(spec, timeout_s)

    def count(self, name: str) -> int:
        return sum(1 for n, _ in self.calls if n == name)


def run_pr(
    repo: Repo, base: str, head: str, tmp: Path, *, working_directory: str = "."
) -> tuple[int, Counting, str, Path]:
    event = tmp / "event.json"
    event.write_text(
        json.dumps({"pull_request": {"number": 5, "base": {"sha": base}, "head": {"sha": head}}})
    )
    out = tmp / "output.txt"
    out.write_text("")
    runner = Runner.from_environ(
        {
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": "octo/repo",
            "GITHUB_SHA": head,
            "GITHUB_REF": "refs/pull/5/merge",
            "GITHUB_WORKSPACE": str(repo.root),
            "GITHUB_OUTPUT": str(out),
            "PATH": os.environ["PATH"],
            "HOME": str(tmp),
        }
    )
    settings = Settings(
        comment=CommentMode.NEVER,
        summary=False,
        timeout=30.0,
        working_directory=working_directory,
    )
    gh = GitHubClient(
        session=requests.Session(),
        api_url="http://127.0.0.1:9",  # never called: comment never, no badge
        token="",
        sleep=time.sleep,
        clock=time.time,
    )
    counting, log = Counting(), io.StringIO()
    code = run(settings, runner, gh=gh, git=Git(str(repo.root)), measure=counting, log=Log(log))
    return code, counting, log.getvalue(), out


def _server_py(words: int) -> str:
    tools = [{"name": "look", "description": " ".join(["word"] * words), "inputSchema": {}}]
    return FIXTURE.read_text().replace(
        '    with open(sys.argv[1], encoding="utf-8") as handle:\n'
        "        tools = json.load(handle)\n",
        f"    tools = {tools!r}\n",
    )


def _delta(out: Path) -> int:
    text = out.read_text()
    start = text.index("delta<<")
    return int(text[start:].splitlines()[1])


def test_unchanged_launch_outside_the_repo_is_measured_once(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "t", "description": "x y z", "inputSchema": {}}]))
    block = {"ext": {"command": sys.executable, "args": [str(FIXTURE), str(tools)]}}
    repo = Repo(tmp_path / "repo")
    base = repo.commit({"README.md": "one\n"}, block)
    head = repo.commit({"README.md": "two\n"}, block)
    code, counting, log, out = run_pr(repo, base, head, tmp_path)
    assert code == 0, log
    assert counting.count("ext") == 1, counting.calls
    assert "1 of 1 local launches share head's measurement; 0 run from a worktree" in log
    assert _delta(out) == 0
    assert len(git(repo.root, "worktree", "list").splitlines()) == 1


@pytest.mark.slow
def test_unchanged_real_server_is_measured_once(tmp_path: Path) -> None:
    why = real_server_missing("memory")
    if why is not None:
        pytest.skip(f"pinned server memory: {why}")
    argv = real_server_argv("memory")
    assert argv is not None
    memory = {"command": argv[0], "args": argv[1:]}
    repo = Repo(tmp_path / "repo")
    base = repo.commit({}, {"memory": memory})
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "t", "description": "x", "inputSchema": {}}]))
    added = {"command": sys.executable, "args": [str(FIXTURE), str(tools)]}
    head = repo.commit({}, {"memory": memory, "added": added})
    code, counting, log, out = run_pr(repo, base, head, tmp_path)
    assert code == 0, log
    assert counting.count("memory") == 1 and counting.count("added") == 1, counting.calls
    assert _delta(out) > 0


def test_changed_local_server_is_measured_on_both_sides(tmp_path: Path) -> None:
    block = {"local": {"command": sys.executable, "args": ["server.py"]}}
    repo = Repo(tmp_path / "repo")
    base = repo.commit({"server.py": _server_py(5)}, block)
    head = repo.commit({"server.py": _server_py(25)})
    code, counting, log, out = run_pr(repo, base, head, tmp_path)
    assert code == 0, log
    cwds = sorted(str(c) for n, c in counting.calls if n == "local")
    assert len(cwds) == 2 and cwds.count(str(repo.root)) == 1, cwds
    assert _delta(out) == 20  # base's own server.py ran: 20 fewer one-token words
    assert len(git(repo.root, "worktree", "list").splitlines()) == 1


def test_unchanged_local_server_is_shared(tmp_path: Path) -> None:
    block = {"local": {"command": sys.executable, "args": ["server.py"]}}
    repo = Repo(tmp_path / "repo")
    base = repo.commit({"server.py": _server_py(5), "notes.txt": "a\n"}, block)
    head = repo.commit({"notes.txt": "b\n"})
    code, counting, log, out = run_pr(repo, base, head, tmp_path)
    assert code == 0, log
    assert counting.calls == [("local", str(repo.root))]
    assert _delta(out) == 0


def test_changed_directory_named_by_cwd_is_not_shared(tmp_path: Path) -> None:
    block = {"local": {"command": sys.executable, "args": ["server.py"], "cwd": "srv"}}
    repo = Repo(tmp_path / "repo")
    base = repo.commit({"srv/server.py": _server_py(5), "srv/data.txt": "a\n"}, block)
    head = repo.commit({"srv/data.txt": "b\n"})
    code, counting, log, _ = run_pr(repo, base, head, tmp_path)
    assert code == 0, log
    assert counting.count("local") == 2, counting.calls


# --------------------------------------------------------------------------- pure rules


# ------------------------------------------------------------- ${workspaceFolder} launches


def _tools(words: int) -> list[dict[str, Any]]:
    return [{"name": "look", "description": " ".join(["word"] * words), "inputSchema": {}}]


def _vscode(server: dict[str, Any]) -> str:
    return json.dumps({"servers": {"local": {"type": "stdio", **server}}}, indent=2) + "\n"


@pytest.mark.parametrize(
    ("config_path", "server", "script"),
    [
        # the path is absolute once parsed: it must name base's copy on the base side
        (
            ".vscode/mcp.json",
            {"command": sys.executable, "args": ["${workspaceFolder}/server.py"]},
            "server.py",
        ),
        # the same through an absolute cwd built from the variable
        (
            ".vscode/mcp.json",
            {"command": sys.executable, "args": ["server.py"], "cwd": "${workspaceFolder}/srv"},
            "srv/server.py",
        ),
        (
            ".cursor/mcp.json",
            {"command": sys.executable, "args": ["${workspaceFolder}/server.py"]},
            "server.py",
        ),
        # a working directory: ${workspaceFolder} is that directory on each side
        (
            "sub/.vscode/mcp.json",
            {"command": sys.executable, "args": ["${workspaceFolder}/server.py"]},
            "sub/server.py",
        ),
    ],
)
def test_workspace_folder_launch_runs_base_own_file(
    tmp_path: Path, config_path: str, server: dict[str, Any], script: str
) -> None:
    workdir = "sub" if config_path.startswith("sub/") else "."
    if ".vscode" in config_path:
        text = _vscode(server)
    else:
        text = json.dumps({"mcpServers": {"local": server}}, indent=2) + "\n"
    repo = Repo(tmp_path / "repo")
    base = repo.commit({config_path: text, script: _server_py(5)})
    head = repo.commit({script: _server_py(105)})
    code, counting, log, out = run_pr(repo, base, head, tmp_path, working_directory=workdir)
    assert code == 0, log
    assert counting.count("local") == 2, counting.calls
    assert "0 of 1 local launches share head's measurement; 1 run from a worktree" in log
    # the delta is exactly the difference between the two commits' tool definitions
    expected = measure_tools(_tools(105)).total_tokens - measure_tools(_tools(5)).total_tokens
    assert expected == 100
    assert _delta(out) == expected
    # the workspace is untouched and the worktree is gone
    assert (repo.root / script).read_text() == _server_py(105)
    assert len(git(repo.root, "worktree", "list").splitlines()) == 1


def test_workspace_folder_launch_of_an_unchanged_file_is_shared(tmp_path: Path) -> None:
    text = _vscode({"command": sys.executable, "args": ["${workspaceFolder}/server.py"]})
    repo = Repo(tmp_path / "repo")
    base = repo.commit({".vscode/mcp.json": text, "server.py": _server_py(5), "n.txt": "a\n"})
    head = repo.commit({"n.txt": "b\n"})
    code, counting, log, out = run_pr(repo, base, head, tmp_path)
    assert code == 0, log
    assert counting.calls == [("local", str(repo.root))]
    assert _delta(out) == 0


def test_worktree_is_named_like_the_checkout(tmp_path: Path) -> None:
    """``${workspaceFolderBasename}`` expands to the same text in the base worktree."""
    repo = Repo(tmp_path / "my-project")
    sha = repo.commit({"a.txt": "a\n"})
    with Git(str(repo.root)).worktree(sha, str(tmp_path), name="my-project") as tree:
        assert os.path.basename(tree) == "my-project" and Path(tree, "a.txt").is_file()
        assert Path(tree).parent != repo.root.parent
    with Git(str(repo.root)).worktree(sha, str(tmp_path), name="..") as tree:
        assert os.path.basename(tree) == "tree"
    assert len(git(repo.root, "worktree", "list").splitlines()) == 1
