"""The Dockerfile built with podman from a local base image and run as the runner runs a container
action; its comment must equal the one the subprocess run renders."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.action.github_fake import FakeGitHub
from tests.action.test_action_e2e import FIXTURE, ROOT, Sim, pr_payload, tool

BASE = "localhost/mcpcost-base:bookworm"
pytestmark = [pytest.mark.podman, pytest.mark.slow]


def _podman_ready() -> str | None:
    if shutil.which("podman") is None:
        return "podman is not installed"
    if subprocess.run(["podman", "image", "exists", BASE], capture_output=True).returncode != 0:
        return f"base image {BASE} missing (scripts/setup-podman.sh builds it)"
    return None


def _repo(sim: Sim) -> tuple[str, str]:
    tools = sim.repo / "tools"
    tools.mkdir()
    shutil.copy(FIXTURE, tools / "fixture.py")
    (tools / "small.json").write_text(json.dumps([tool("search", 5)]))
    (tools / "big.json").write_text(json.dumps([tool("search", 60), tool("fetch", 9)]))

    def commit(servers: dict[str, str], msg: str) -> str:
        block = {
            n: {"command": "python3", "args": ["tools/fixture.py", f]} for n, f in servers.items()
        }
        (sim.repo / ".mcp.json").write_text(json.dumps({"mcpServers": block}, indent=2) + "\n")
        subprocess.run(["git", "-C", str(sim.repo), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(sim.repo), "commit", "-qm", msg], check=True)
        return subprocess.run(
            ["git", "-C", str(sim.repo), "rev-parse", "HEAD"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()

    base = commit({"alpha": "tools/small.json"}, "base")
    head = commit({"alpha": "tools/big.json", "beta": "tools/small.json"}, "head")
    return base, head


def test_container_run_matches_subprocess_run(tmp_path: Path) -> None:
    if (why := _podman_ready()) is not None:
        pytest.skip(why)
    fake = FakeGitHub().start()
    try:
        sim = Sim(tmp_path, fake)
        base, head = _repo(sim)
        payload = pr_payload(21, base, head)
        code, log, outputs, _ = sim.run("pull_request", payload, head, **{"dry-run": "true"})
        assert code == 0, log
        expected = (sim.repo / outputs["comment-path"]).read_text()
        runner = tmp_path / "runner"
        for d in ("workflow", "file_commands", "home"):
            (runner / d).mkdir(parents=True)
        shutil.move(str(sim.repo), runner / "workspace")
        (runner / "workspace" / ".mcp-context-cost").exists() and shutil.rmtree(
            runner / "workspace" / ".mcp-context-cost"
        )
        (runner / "workflow" / "event.json").write_text(json.dumps(payload))
        (runner / "file_commands" / "output").write_text("")
        (runner / "file_commands" / "summary").write_text("")
        env = {
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_REPOSITORY": "octo/repo",
            "GITHUB_SHA": head,
            "GITHUB_REF": "refs/pull/7/merge",
            "GITHUB_WORKSPACE": "/github/workspace",
            "GITHUB_OUTPUT": "/github/file_commands/output",
            "GITHUB_STEP_SUMMARY": "/github/file_commands/summary",
            "GITHUB_API_URL": fake.url,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_RUN_ID": "99",
            "HOME": "/github/home",
            "INPUT_GITHUB-TOKEN": "ghs_faketoken",
            "INPUT_COMMENT": "auto",
            "INPUT_SUMMARY": "true",
            "INPUT_TIMEOUT": "30",
            "INPUT_DRY-RUN": "true",
        }
        (runner / "env.list").write_text("".join(f"{k}={v}\n" for k, v in env.items()))
        proc = subprocess.run(
            ["bash", str(ROOT / "scripts" / "container-action-test.sh"), str(runner)],
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        got = (runner / "workspace" / ".mcp-context-cost" / "comment.md").read_text()
        assert got == expected
    finally:
        fake.stop()
