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


def test_dockerfiles_take_dependencies_from_pyproject_only() -> None:
    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = [d.split(">")[0].split("=")[0].split("<")[0].strip() for d in deps]
    for dockerfile in ("Dockerfile", "Dockerfile.base"):
        text = (ROOT / dockerfile).read_text().lower()
        repeated = [n for n in names if f"'{n}" in text or f'"{n}' in text or f" {n}>" in text]
        assert repeated == [], f"{dockerfile} repeats {repeated}"
        assert "image-deps.sh" in text and "pyproject.toml" in text
    assert "!scripts/image-deps.sh" in (ROOT / ".dockerignore").read_text()


def test_prebuilt_base_makes_the_action_build_copy_only_code(tmp_path: Path) -> None:
    if (why := _podman_ready()) is not None:
        pytest.skip(why)
    prebuilt = "localhost/mcpcost-action-prebuilt:test"

    def build(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["podman", "build", "--network", "host", "-v", "/etc/ssl/certs:/etc/ssl/certs:ro",
             *args, str(ROOT)],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip

    made = build(
        "-f", str(ROOT / "Dockerfile.base"), "--build-arg", f"PYTHON={BASE}", "-t", prebuilt
    )
    assert made.returncode == 0, made.stdout + made.stderr
    image = "localhost/mcpcost-action-on-prebuilt:test"
    on_top = build("--no-cache", "--build-arg", f"BASE={prebuilt}", "-t", image)
    assert on_top.returncode == 0, on_top.stdout + on_top.stderr
    # the runtime step found everything in place: no package was downloaded or installed
    built = on_top.stdout + on_top.stderr
    assert "Collecting" not in built and "Get:1" not in built, built
    probe = subprocess.run(
        ["podman", "run", "--rm", "--entrypoint", "sh", image, "-c",
         "node --version && uv --version && git --version && "
         "python3 -c 'import tiktoken, regex, yaml, requests, docker, jinja2, mcpcost'"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert probe.returncode == 0, probe.stdout + probe.stderr
