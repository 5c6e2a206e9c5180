"""The Action on top of the audit engine, end to end: real pinned servers, base-side launches in
a worktree of the base commit, and one source of truth with ``mcpcost audit --baseline``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.action.github_fake import OPENAPI, WEBHOOKS, FakeGitHub
from tests.action.runner_sim import ROOT, SERVER_PYTHON, Sim, git, pr_payload, reachable_by_others
from tests.helpers.paths import ACTION_TESTS
from tests.servers.registry import fixture_argv, real_server_argv, real_server_missing

pytestmark = pytest.mark.skipif(
    not (OPENAPI.exists() and WEBHOOKS.exists()),
    reason="run `npm ci` in tests/action/npm for @octokit/openapi and @octokit/webhooks-examples",
)

FIXTURE_SOURCE = (ACTION_TESTS / "mcp_fixture.py").read_text()


def real(name: str) -> dict[str, Any]:
    why = real_server_missing(name)
    if why is not None:
        pytest.skip(f"pinned server {name}: {why}")
    argv = real_server_argv(name)
    assert argv is not None
    venv_python = Path(argv[0]).parent / "python"
    if os.geteuid() == 0 and venv_python.exists() and not reachable_by_others(str(venv_python)):
        # a console script of a venv the unprivileged measuring user cannot run (its
        # interpreter is under a private home): the same script and packages, run by an
        # interpreter that user can run
        site = next(Path(argv[0]).parent.parent.glob("lib/python3*/site-packages"))
        return {"command": SERVER_PYTHON, "args": argv, "env": {"PYTHONPATH": str(site)}}
    return {"command": argv[0], "args": argv[1:]}


def commit(
    sim: Sim, block: dict[str, Any], message: str, files: dict[str, str] | None = None
) -> str:
    for name, text in (files or {}).items():
        (sim.repo / name).write_text(text)
    (sim.repo / ".mcp.json").write_text(json.dumps({"mcpServers": block}, indent=2) + "\n")
    git(sim.repo, "add", "-A")
    git(sim.repo, "commit", "-q", "-m", message)
    return git(sim.repo, "rev-parse", "HEAD")


def audit(tmp: Path, config_text: str, side: str, *args: str) -> tuple[int, dict[str, Any]]:
    """``mcpcost audit --config`` on a copy of one side's config, as a user would run it."""
    where = tmp / f"audit-{side}"
    where.mkdir(exist_ok=True)
    (where / ".mcp.json").write_text(config_text)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcpcost",
            "audit",
            "--config",
            str(where / ".mcp.json"),
            "--json",
            "--timeout",
            "30",
            *args,
        ],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=180,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp), "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.slow
def test_real_servers_audit_baseline_and_action_agree(sim: Sim, tmp_path: Path) -> None:
    memory, time_server = real("memory"), real("time")
    base = commit(sim, {"memory": memory}, "base")
    base_text = (sim.repo / ".mcp.json").read_text()
    head = commit(sim, {"memory": memory, "time": time_server}, "head: add time")
    head_text = (sim.repo / ".mcp.json").read_text()
    _, base_report = audit(tmp_path, base_text, "base")
    (tmp_path / "base.json").write_text(json.dumps(base_report))
    memory_tokens = base_report["configs"][0]["totalTokens"]
    cases: list[tuple[int, dict[str, str]]] = [
        (1, {"budget": "100000", "max-increase": "1"}),  # the added server trips the increase
        (0, {"budget": "100000", "max-increase": "100000"}),
        # over the budget on every definition: the Action reads .mcp.json as Claude Code's (its
        # definitions in the Anthropic tool shape), --config names no client (the wire
        # definitions): both judge every definition and both are over a budget under each
        (1, {"budget": "100", "budget-full": "true", "max-increase-percent": "1000"}),
    ]
    for expected, limits in cases:
        code, log, outputs, summary = sim.run(
            "pull_request", pr_payload(21, base, head), head, comment="never", **limits
        )
        flags = [f"--{k}" if v == "true" else f"--{k}={v}" for k, v in limits.items()]
        audit_code, report = audit(
            tmp_path, head_text, "head", "--baseline", str(tmp_path / "base.json"), *flags
        )
        assert code == audit_code == expected, (limits, log, report["gates"])
        assert outputs["status"] == ("pass" if code == 0 else "fail")
        (diff,) = report["diff"]["configs"]
        assert int(outputs["delta"]) == diff["delta"] > 0
        assert int(outputs["base-tokens"]) == diff["beforeTotal"] == memory_tokens
        assert int(outputs["head-tokens"]) == diff["afterTotal"]
        source = report["configs"][0]["source"]
        engine = sorted(r.replace(source, ".mcp.json") for r in report["gates"]["reasons"])
        # the Action knows the file is Claude Code's; `--config` names the session by its file
        action = sorted(
            r.replace("Claude Code's", ".mcp.json's")
            for r in outputs["failure-reasons"].split("\n")
            if r
        )
        if "budget-full" in limits:  # the same gate fails, on each side's own figures
            assert [r.split(" ")[-1] for r in action] == [r.split(" ")[-1] for r in engine]
            assert all("100 budget (--budget-full)" in r for r in action + engine)
        else:
            assert action == engine
        # the Action's own copy of the engine's report says the same
        own = json.loads((sim.repo / ".mcp-context-cost" / "report.json").read_text())
        assert own["gates"]["passed"] == (code == 0)
        assert own["diff"]["configs"][0]["delta"] == diff["delta"]
        assert "time" in summary
    # a head-side server that cannot be measured: the Action's default fail-on (unmeasured) and
    # `audit --fail-on-unmeasured` give the same verdict and the same reasons
    crash = {"command": SERVER_PYTHON, "args": fixture_argv("crash")[1:]}
    broken = commit(sim, {"memory": memory, "time": time_server, "crash": crash}, "head: crash")
    broken_text = (sim.repo / ".mcp.json").read_text()
    unmeasured_cases: list[tuple[int, dict[str, str], list[str]]] = [
        (1, {}, ["--fail-on-unmeasured"]),
        (0, {"fail-on": "budget,increase"}, []),
        (1, {"max-increase": "100000"}, ["--max-increase=100000", "--fail-on-unmeasured"]),
    ]
    for expected, inputs, flags in unmeasured_cases:
        code, log, outputs, _ = sim.run(
            "pull_request", pr_payload(21, base, broken), broken, comment="never", **inputs
        )
        audit_code, report = audit(
            tmp_path, broken_text, "broken", "--baseline", str(tmp_path / "base.json"), *flags
        )
        assert code == audit_code == expected, (inputs, log, report.get("gates"))
        failing = [r for r in outputs["failure-reasons"].split("\n") if r]
        if expected:
            source = report["configs"][0]["source"]
            engine = sorted(r.replace(source, ".mcp.json") for r in report["gates"]["reasons"])
            assert sorted(failing) == engine and any("crash" in r for r in engine)
        else:
            assert failing == [] and "crash" in log  # reported as a warning, not failed


@pytest.mark.slow
def test_real_servers_pr_comment(sim: Sim, fake: FakeGitHub) -> None:
    memory, time_server = real("memory"), real("time")
    base = commit(sim, {"memory": memory, "time": time_server}, "base")
    head = commit(sim, {"memory": memory}, "head: drop time")
    code, log, outputs, _ = sim.run("pull_request", pr_payload(22, base, head), head)
    assert code == 0, log
    assert int(outputs["delta"]) < 0
    (comment,) = fake.comments.values()
    assert "🗑️ removed" in comment["body"] and "`time`" in comment["body"]
    assert "`memory`" in comment["body"]  # unchanged, listed in its collapsed section


def _server_py(words: int) -> str:
    tools = [{"name": "look", "description": " ".join(["word"] * words), "inputSchema": {}}]
    return FIXTURE_SOURCE.replace(
        '    with open(sys.argv[1], encoding="utf-8") as handle:\n        tools = json.load(handle)\n',
        f"    tools = {tools!r}\n",
    )


def test_base_side_runs_the_base_commits_files(sim: Sim, fake: FakeGitHub) -> None:
    block = {"local": {"command": SERVER_PYTHON, "args": ["server.py"]}}
    base = commit(sim, block, "base", {"server.py": _server_py(5)})
    head = commit(sim, block, "head: longer description", {"server.py": _server_py(105)})
    (sim.repo / "untracked.txt").write_text("mine")
    before = git(sim.repo, "status", "--porcelain")
    code, log, outputs, _ = sim.run("pull_request", pr_payload(23, base, head), head)
    assert code == 0, log
    # 100 more words, each one token: the base number came from base's server.py
    assert int(outputs["delta"]) == 100, log
    assert int(outputs["base-tokens"]) > 0
    # the workspace is as it was, and the temporary worktree is gone
    after = git(sim.repo, "status", "--porcelain")
    assert after.replace("?? .mcp-context-cost/\n", "").replace("?? .mcp-context-cost/", "") == (
        before
    )
    assert len(git(sim.repo, "worktree", "list").splitlines()) == 1
    assert (sim.repo / "server.py").read_text() == _server_py(105)


def test_worktree_is_removed_when_measuring_fails(tmp_path: Path) -> None:
    from mcpcost.action.gitrefs import Git

    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(
        repo,
        "-c",
        "user.email=t@e",
        "-c",
        "user.name=t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    sha = git(repo, "rev-parse", "HEAD")
    seen: list[Path] = []
    with pytest.raises(RuntimeError), Git(str(repo)).worktree(sha, str(tmp_path)) as tree:
        seen.append(Path(tree))
        assert Path(tree, ".git").exists()
        raise RuntimeError("measuring blew up")
    assert seen and not seen[0].exists() and not seen[0].parent.exists()
    assert len(git(repo, "worktree", "list").splitlines()) == 1


def test_budget_failure_is_annotated_on_the_config(sim: Sim, fake: FakeGitHub) -> None:
    block = {"local": {"command": SERVER_PYTHON, "args": ["server.py"]}}
    sha = commit(sim, block, "one", {"server.py": _server_py(50)})
    payload = pr_payload(24, sha, sha)
    code, log, outputs, _ = sim.run("pull_request", payload, sha, budget="10", comment="never")
    assert code == 1 and outputs["status"] == "fail"
    line = next(ln for ln in log.splitlines() if ln.startswith("::error file=.mcp.json"))
    entry_line = (sim.repo / ".mcp.json").read_text().splitlines().index('    "local": {') + 1
    assert f"line={entry_line}," in line and "over the 10 budget" in line


def test_increase_is_annotated_on_the_added_servers_line(sim: Sim, fake: FakeGitHub) -> None:
    local = {"command": SERVER_PYTHON, "args": ["server.py"]}
    base = commit(sim, {"local": local}, "base", {"server.py": _server_py(5)})
    added = {"command": SERVER_PYTHON, "args": ["added.py"]}
    head = commit(
        sim, {"local": local, "added": added}, "head: add a server", {"added.py": _server_py(80)}
    )
    payload = pr_payload(25, base, head)
    code, log, outputs, _ = sim.run(
        "pull_request", payload, head, max_increase="10", comment="never"
    )
    assert code == 1 and outputs["status"] == "fail", log
    line = next(ln for ln in log.splitlines() if ln.startswith("::error file=.mcp.json"))
    entry_line = (sim.repo / ".mcp.json").read_text().splitlines().index('    "added": {') + 1
    assert entry_line > 1
    assert f"line={entry_line}," in line and "over the 10 allowed" in line
