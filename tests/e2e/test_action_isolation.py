"""End to end: a pull request's server that hunts for the job's credentials, launched through the
Action's real entry point in the simulated runner (as root there, as in the container Action),
finds none of them and writes none of the runner's files (docs/SECURITY.md, "What a server a
pull request names can reach")."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.action.github_fake import OPENAPI, WEBHOOKS, FakeGitHub, webhook_example
from tests.action.runner_sim import SERVER_PYTHON, Sim, git, pr_payload
from tests.helpers.paths import ROOT

THIEF = ROOT / "tests" / "servers" / "fixtures" / "credential_thief.py"
WORKFLOW_TOKEN = "ghs_faketoken"  # what runner_sim gives INPUT_GITHUB-TOKEN
RUNTIME_TOKEN = "runtime-token-4f1d2c9a7b"
PROBES = ("ownenv", "procenv", "written")

pytestmark = pytest.mark.skipif(
    not (OPENAPI.exists() and WEBHOOKS.exists()),
    reason="run `npm ci` in tests/action/npm for @octokit/openapi and @octokit/webhooks-examples",
)


def findings(text: str) -> dict[str, int]:
    """The thief's counts, read from the tool names it listed (``<probe>_<count>``)."""
    return {m[1]: int(m[2]) for m in re.finditer(r'"(ownenv|procenv|written)_(\d+)"', text)}


def runner_files(sim: Sim) -> dict[str, Path]:
    files = {name: sim.tmp / f"{name.lower()}.txt" for name in ("GITHUB_ENV", "GITHUB_PATH")}
    for path in files.values():
        path.write_text("")
    return files


def thief(sim: Sim, writes: list[Path], **extra: object) -> dict[str, object]:
    args = [str(THIEF), "--token", RUNTIME_TOKEN]
    for path in writes:
        args += ["--write", str(path)]
    return {"command": SERVER_PYTHON, "args": args, **extra}


def test_the_probe_finds_credentials_where_they_are_reachable(tmp_path: Path) -> None:
    """The control: run without the Action in between, the thief finds and writes everything."""
    target = tmp_path / "github_env"
    target.write_text("")
    env = {"PATH": os.environ["PATH"], "INPUT_GITHUB-TOKEN": WORKFLOW_TOKEN}
    env["ACTIONS_RUNTIME_TOKEN"] = RUNTIME_TOKEN
    request = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "x"}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]
    script = f"{SERVER_PYTHON} {THIEF} --token {RUNTIME_TOKEN} --write {target}"
    # a shell holding the tokens stands for the Action's process: the thief is its child
    out = subprocess.run(
        ["sh", "-c", script],
        input="".join(json.dumps(r) + "\n" for r in request),
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    found = findings(out)
    assert found["ownenv"] >= 2 and found["procenv"] >= 1 and found["written"] == 1
    assert "NODE_OPTIONS" in target.read_text()


def test_a_pull_requests_server_reaches_no_credential_and_no_runner_file(
    sim: Sim, fake: FakeGitHub
) -> None:
    files = runner_files(sim)
    out, summary = sim.tmp / "output.txt", sim.tmp / "summary.md"
    writes = [*files.values(), out, summary]
    base_servers = {"thief": thief(sim, writes)}
    (sim.repo / ".cursor").mkdir()
    (sim.repo / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": base_servers}))
    git(sim.repo, "add", "-A")
    git(sim.repo, "commit", "-q", "-m", "base")
    base = git(sim.repo, "rev-parse", "HEAD")
    # head: the same thief, plus one that names the job's variables and a /proc envFile
    named = thief(
        sim,
        writes,
        env={
            "A": "${env:INPUT_GITHUB-TOKEN}",
            "B": "${env:ACTIONS_RUNTIME_TOKEN}",
            "C": "${env:GITHUB_ENV}",
            "D": "${env:RUNNER_TEMP}",
        },
    )
    proc_file = thief(sim, writes, envFile="/proc/self/environ")
    # one that names a package manager's credential the step holds
    publisher = thief(sim, writes, env={"E": "${env:UV_PUBLISH_TOKEN}"})
    head_servers = {**base_servers, "named": named, "procfile": proc_file, "publisher": publisher}
    (sim.repo / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": head_servers}))
    git(sim.repo, "commit", "-q", "-am", "head")
    head = git(sim.repo, "rev-parse", "HEAD")
    environ = {name: str(path) for name, path in files.items()}
    environ.update(ACTIONS_RUNTIME_TOKEN=RUNTIME_TOKEN, RUNNER_TEMP=str(sim.tmp))
    # the step's package-manager credentials (the thief counts values holding the token)
    environ.update(NPM_CONFIG__AUTHTOKEN=RUNTIME_TOKEN, UV_PUBLISH_TOKEN=RUNTIME_TOKEN)
    environ["PIP_INDEX_URL"] = f"https://me:{RUNTIME_TOKEN}@pypi.example/simple"
    code, log, _, summary_text = sim.run_with(
        "pull_request",
        pr_payload(41, base, head),
        head,
        inputs={"fail-on": "none"},
        environ=environ,
    )
    assert code == 0, log
    audit = (sim.repo / ".mcp-context-cost" / "report.json").read_text()
    report = json.loads(audit)
    (config,) = report["configs"]
    measured = {s["name"]: s for s in config["servers"]}
    assert set(measured) == {"thief", "procfile"}, audit[:2000]
    # the job's variables never resolve: the server naming them is not launched with them
    skipped_by_name = {s["name"]: s for s in config["skipped"]}
    assert set(skipped_by_name) == {"named", "publisher"}, config["skipped"]
    skipped = skipped_by_name["named"]
    names = ("INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN", "GITHUB_ENV", "RUNNER_TEMP")
    assert {f"${{env:{n}}}" for n in names} <= set(skipped["unresolved"]), skipped
    # nor do the package managers' credentials
    assert skipped_by_name["publisher"]["unresolved"] == ["${env:UV_PUBLISH_TOKEN}"]
    for name, server in measured.items():
        assert server["status"] == "measured", (name, server)
    every_output = "\n".join(
        [
            log,
            summary_text,
            *(p.read_text() for p in (sim.repo / ".mcp-context-cost").iterdir()),
            *(c["body"] for c in fake.comments.values()),
        ]
    )
    # each probe ran in every launched server and found nothing
    counts = [(m[1], int(m[2])) for m in re.finditer(r'"(ownenv|procenv|written)_(\d+)"', audit)]
    assert {what for what, _ in counts} == set(PROBES), audit[:2000]
    assert all(n == 0 for _, n in counts), counts
    for path in [*files.values(), out, summary]:
        assert "NODE_OPTIONS" not in path.read_text(), path
    assert WORKFLOW_TOKEN not in every_output and RUNTIME_TOKEN not in every_output
    assert "NODE_OPTIONS" not in every_output


def test_phase_two_refuses_a_report_nested_100000_levels_in_one_line(
    sim: Sim, fake: FakeGitHub
) -> None:
    saved = sim.tmp / "artifact"
    saved.mkdir()
    (saved / "report.json").write_text("[" * 100_000 + "]" * 100_000)
    payload = webhook_example("workflow_run")
    payload["workflow_run"].update(id=556, head_sha="a" * 40, pull_requests=[])
    code, log, outputs, _ = sim.run_with(
        "workflow_run",
        payload,
        "f" * 40,
        ref="refs/heads/main",
        inputs={"artifact-path": str(saved)},
    )
    assert code == 2, log
    assert "Traceback" not in log and "RecursionError" not in log
    (error,) = [line for line in log.splitlines() if line.startswith("::error")]
    assert "nested deeper than 512 levels" in error
    assert outputs["status"] == "error" and fake.comments == {}


def test_a_checkout_that_kept_its_token_is_warned_about(sim: Sim, fake: FakeGitHub) -> None:
    base = sim.commit_config({}, "base")
    head = sim.commit_config({"alpha": sim.tools_file("t", [])}, "head")
    code, log, _, _ = sim.run("pull_request", pr_payload(42, base, head), head)
    assert code == 0 and "persist-credentials" not in log, log
    git(sim.repo, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic eA==")
    code, log, _, _ = sim.run("pull_request", pr_payload(42, base, head), head)
    assert code == 0, log
    (warning,) = [line for line in log.splitlines() if line.startswith("::warning")]
    assert "persist-credentials: false" in warning and "eA==" not in log


@pytest.mark.podman
@pytest.mark.slow
def test_in_the_real_image_the_thief_finds_nothing(tmp_path: Path, fake: FakeGitHub) -> None:
    """The same hostile server run by the Action's own image with podman, as the runner runs a
    container action (scripts/container-action-test.sh): runner files mounted, root inside."""
    from tests.servers import podman

    if (why := podman.podman_unavailable()) is not None:
        pytest.skip(why)
    podman.ensure_prebuilt_image()
    sim = Sim(tmp_path, fake)
    (sim.repo / "tools").mkdir()
    (sim.repo / "tools" / "thief.py").write_text(THIEF.read_text())
    files = ["env", "path", "output", "summary"]
    args = ["tools/thief.py", "--token", RUNTIME_TOKEN]
    for name in files:
        args += ["--write", f"/github/file_commands/{name}"]
    named = {"command": "python3", "args": args, "env": {"A": "${env:INPUT_GITHUB-TOKEN}"}}
    (sim.repo / ".cursor").mkdir()

    def commit(servers: dict[str, object], message: str) -> str:
        (sim.repo / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
        git(sim.repo, "add", "-A")
        git(sim.repo, "commit", "-q", "-m", message)
        return git(sim.repo, "rev-parse", "HEAD")

    base = commit({"thief": {"command": "python3", "args": args}}, "base")
    head = commit({"thief": {"command": "python3", "args": args}, "named": named}, "head")
    payload = pr_payload(43, base, head)
    runner = tmp_path / "runner"
    for d in ("workflow", "file_commands", "home"):
        (runner / d).mkdir(parents=True)
    shutil.move(str(sim.repo), runner / "workspace")
    (runner / "workflow" / "event.json").write_text(json.dumps(payload))
    for name in files:
        (runner / "file_commands" / name).write_text("")
    env = {
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_SHA": head,
        "GITHUB_REF": "refs/pull/43/merge",
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_ENV": "/github/file_commands/env",
        "GITHUB_PATH": "/github/file_commands/path",
        "GITHUB_OUTPUT": "/github/file_commands/output",
        "GITHUB_STEP_SUMMARY": "/github/file_commands/summary",
        "GITHUB_API_URL": fake.url,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_RUN_ID": "99",
        "HOME": "/github/home",
        "ACTIONS_RUNTIME_TOKEN": RUNTIME_TOKEN,
        "INPUT_GITHUB-TOKEN": WORKFLOW_TOKEN,
        "INPUT_FAIL-ON": "none",
        "INPUT_TIMEOUT": "30",
        "INPUT_DRY-RUN": "true",
    }
    (runner / "env.list").write_text("".join(f"{k}={v}\n" for k, v in env.items()))
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "container-action-test.sh"), str(runner)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    audit = (runner / "workspace" / ".mcp-context-cost" / "report.json").read_text()
    counts = [(m[1], int(m[2])) for m in re.finditer(r'"(ownenv|procenv|written)_(\d+)"', audit)]
    assert {what for what, _ in counts} == set(PROBES), audit[:3000]
    assert all(n == 0 for _, n in counts), counts
    for name in files:
        assert "NODE_OPTIONS" not in (runner / "file_commands" / name).read_text(), name
    assert WORKFLOW_TOKEN not in proc.stdout and RUNTIME_TOKEN not in audit


def test_phase_two_refuses_a_report_that_is_not_the_audits_shape(
    sim: Sim, fake: FakeGitHub
) -> None:
    """A saved report.json is read back against the audit report's schema: phase 1's own
    report passes, the same report with one field changed (the old outcome's ``verdict``) is
    refused in one line, exit 2, and nothing is posted."""
    base = sim.commit_config({}, "base")
    head = sim.commit_config({"alpha": sim.tools_file("t", [])}, "head")
    code, log, outputs, _ = sim.run("pull_request", pr_payload(43, base, head), head)
    assert code == 0, log
    report = json.loads((sim.repo / outputs["report-path"]).read_text())
    saved = sim.tmp / "artifact"
    saved.mkdir()
    report["verdict"] = {"passed": True, "failures": []}
    posted = json.loads(json.dumps(fake.comments))
    (saved / "report.json").write_text(json.dumps(report))
    payload = webhook_example("workflow_run")
    payload["workflow_run"].update(id=557, head_sha=head, pull_requests=[])
    code, log, outputs, _ = sim.run_with(
        "workflow_run",
        payload,
        "f" * 40,
        ref="refs/heads/main",
        inputs={"artifact-path": str(saved)},
    )
    assert code == 2, log
    assert "Traceback" not in log
    (error,) = [line for line in log.splitlines() if line.startswith("::error")]
    assert "does not have the audit report's shape" in error and "'verdict'" in error
    assert outputs["status"] == "error" and json.loads(json.dumps(fake.comments)) == posted
