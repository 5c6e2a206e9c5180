"""A simulated GitHub Actions runner for the Action's end-to-end tests: a fresh git repository
whose commits hold ``.mcp.json`` files naming the stdio fixture server (``mcp_fixture.py``),
``entrypoint.py`` run as a subprocess with the runner's environment against the loopback GitHub
fake, and the outputs it wrote read back."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import weakref
from pathlib import Path
from typing import Any

from tests.action.github_fake import FakeGitHub, webhook_example
from tests.helpers.paths import ACTION_TESTS, ROOT

FIXTURE = ACTION_TESTS / "mcp_fixture.py"


def reachable_by_others(path: str) -> bool:
    """True when a user that is neither the owner nor in the group can run ``path``: every
    directory above it searchable by others, the file readable and executable by them."""
    real = os.path.realpath(path)
    wanted = stat.S_IROTH | stat.S_IXOTH
    if os.stat(real).st_mode & wanted != wanted:
        return False
    parent = os.path.dirname(real)
    while True:
        if not os.stat(parent).st_mode & stat.S_IXOTH:
            return False
        if parent == os.path.dirname(parent):
            return True
        parent = os.path.dirname(parent)


def _pythons() -> tuple[str, str]:
    """The interpreter the simulated runner starts the Action (and the fixture servers) with,
    and the PYTHONPATH it gives the Action. Run as root, the Action measures as an
    unprivileged user, who must be able to run the interpreter, as with the image's
    (/opt/mcpcost/bin/python3). When ours is not (an interpreter under a private home), the
    system's of the same version runs our code and our dependencies instead."""
    own = str(ROOT)
    if os.geteuid() != 0 or reachable_by_others(sys.executable):
        return sys.executable, own
    same = shutil.which(f"python{sys.version_info.major}.{sys.version_info.minor}", path="/usr/bin")
    if same is None or not reachable_by_others(same):
        return sys.executable, own  # the Action's children will report they cannot start
    paths = dict.fromkeys([own, sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    return same, os.pathsep.join(paths)


ACTION_PYTHON, ACTION_PYTHONPATH = _pythons()
SERVER_PYTHON = ACTION_PYTHON  # what a test config names as a server's command


def tool(name: str, words: int) -> dict[str, Any]:
    return {
        "name": name,
        "description": " ".join(["lorem"] * words),
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
    }


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


class Sim:
    """A runner around a fresh git repository: commit configs, then run entrypoint.py on an event."""

    def __init__(self, tmp: Path, fake: FakeGitHub) -> None:
        # as root the servers run as an unprivileged user: the repository and the files the
        # test writes live where that user can read them (pytest's own tmp is private)
        if os.geteuid() == 0:
            tmp = Path(tempfile.mkdtemp(prefix="mcpcost-sim-"))
            tmp.chmod(0o755)
            self._cleanup = weakref.finalize(self, shutil.rmtree, tmp, True)
        self.tmp, self.fake = tmp, fake
        self.repo = tmp / "repo"
        self.repo.mkdir()
        git(self.repo, "init", "-q", "-b", "main")
        git(self.repo, "config", "user.email", "t@example.com")
        git(self.repo, "config", "user.name", "t")

    def tools_file(self, name: str, tools: list[dict[str, Any]]) -> str:
        path = self.tmp / f"{name}.json"
        path.write_text(json.dumps(tools))
        return str(path)

    def commit_config(self, servers: dict[str, str], message: str) -> str:
        block = {
            n: {"command": SERVER_PYTHON, "args": [str(FIXTURE), f]} for n, f in servers.items()
        }
        (self.repo / ".mcp.json").write_text(json.dumps({"mcpServers": block}, indent=2) + "\n")
        git(self.repo, "add", ".mcp.json")
        git(self.repo, "commit", "-q", "-m", message)
        return git(self.repo, "rev-parse", "HEAD")

    def run(
        self,
        event: str,
        payload: dict[str, Any],
        sha: str,
        ref: str = "refs/pull/7/merge",
        **inputs: str,
    ) -> tuple[int, str, dict[str, str], str]:
        return self.run_with(event, payload, sha, ref=ref, inputs=inputs)

    def run_with(
        self,
        event: str,
        payload: dict[str, Any],
        sha: str,
        *,
        ref: str = "refs/pull/7/merge",
        inputs: dict[str, str] | None = None,
        environ: dict[str, str] | None = None,
    ) -> tuple[int, str, dict[str, str], str]:
        """``run`` with the inputs as a mapping and more runner variables (``environ``)."""
        event_path = self.tmp / "event.json"
        event_path.write_text(json.dumps(payload))
        out, summary = self.tmp / "output.txt", self.tmp / "summary.md"
        out.write_text("")
        summary.write_text("")
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.tmp),
            "PYTHONPATH": ACTION_PYTHONPATH,
            "GITHUB_EVENT_NAME": event,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": "octo/repo",
            "GITHUB_SHA": sha,
            "GITHUB_REF": ref,
            "GITHUB_WORKSPACE": str(self.repo),
            "GITHUB_OUTPUT": str(out),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_API_URL": self.fake.url,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_RUN_ID": "99",
            "INPUT_GITHUB-TOKEN": "ghs_faketoken",
            "INPUT_COMMENT": "auto",
            "INPUT_SUMMARY": "true",
            "INPUT_TIMEOUT": "30",
        }
        env.update({f"INPUT_{k.upper().replace('_', '-')}": v for k, v in (inputs or {}).items()})
        env.update(environ or {})
        proc = subprocess.run(
            [ACTION_PYTHON, str(ROOT / "entrypoint.py")],
            cwd=self.repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return (
            proc.returncode,
            proc.stdout + proc.stderr,
            parse_outputs(out.read_text()),
            summary.read_text(),
        )


def parse_outputs(text: str) -> dict[str, str]:
    outputs: dict[str, str] = {}
    for m in re.finditer(r"^([\w-]+)<<(\S+)\n(.*?)\n\2\n", text, re.S | re.M):
        outputs[m.group(1)] = m.group(3)
    return outputs


def pr_payload(number: int, base: str, head: str) -> dict[str, Any]:
    payload = webhook_example("pull_request", "opened")
    payload["number"] = number
    payload["pull_request"]["number"] = number
    payload["pull_request"]["base"]["sha"] = base
    payload["pull_request"]["head"]["sha"] = head
    payload["repository"]["full_name"] = "octo/repo"
    return payload


def pr_repo(sim: Sim, grow: int = 40) -> tuple[str, str]:
    """A base commit with one server and a head where it grew and a second one joined."""
    small = sim.tools_file("small", [tool("search", 5)])
    big = sim.tools_file("big", [tool("search", 5 + grow), tool("fetch", 10)])
    base = sim.commit_config({"alpha": small}, "base")
    head = sim.commit_config({"alpha": big, "beta": small}, "head")
    return base, head
