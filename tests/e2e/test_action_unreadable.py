"""A broken config is loud in the Action too: a head config that cannot be parsed fails the step
with exit 2 and status error (whatever fail-on says), and the comment names it with what its
client does with such a file. Simulated runner, real git repository, loopback GitHub fake."""

from __future__ import annotations

import json

import pytest

from tests.action.github_fake import FakeGitHub
from tests.action.runner_sim import FIXTURE, SERVER_PYTHON, Sim, git, pr_payload, tool


@pytest.mark.slow
@pytest.mark.parametrize("fail_on", ["budget,increase,unmeasured", "none"])
def test_a_head_config_that_cannot_be_parsed_fails_the_step(
    sim: Sim, fake: FakeGitHub, fail_on: str
) -> None:
    tools = sim.tools_file("t", [tool("search", 5)])
    good = {"mcpServers": {"notes": {"command": SERVER_PYTHON, "args": [str(FIXTURE), tools]}}}
    (sim.repo / ".mcp.json").write_text(json.dumps(good, indent=2) + "\n")
    (sim.repo / ".cursor").mkdir()
    (sim.repo / ".cursor" / "mcp.json").write_text(json.dumps(good))
    git(sim.repo, "add", "-A")
    git(sim.repo, "commit", "-q", "-m", "base")
    base = git(sim.repo, "rev-parse", "HEAD")
    (sim.repo / ".mcp.json").write_text('{\n  "mcpServers": {\n    "notes": {}\n    "x": 1\n}\n')
    git(sim.repo, "commit", "-qam", "break it")
    head = git(sim.repo, "rev-parse", "HEAD")
    code, log, outputs, summary = sim.run(
        "pull_request", pr_payload(31, base, head), head, **{"fail-on": fail_on}
    )
    assert code == 2, log[-3000:]
    assert outputs["status"] == "error"
    assert "Claude Code: .mcp.json line 4" in outputs["failure-reasons"]
    (comment,) = fake.comments.values()
    body = comment["body"]
    assert "check failed" in body and "Claude Code will not load this file either" in body
    assert "Claude Code will not load this file either" in summary
    assert "Traceback" not in log
    # the other client's file is still measured and reported
    assert "notes" in body and ".cursor/mcp.json" in body
