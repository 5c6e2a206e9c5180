"""End to end: entrypoint.py as a subprocess in a simulated runner, a real git repository, real
stdio MCP servers, a real pull_request payload and a loopback GitHub API checked against GitHub's
OpenAPI description."""

from __future__ import annotations

import json
import re

import pytest

from tests.action.github_fake import OPENAPI, WEBHOOKS, FakeGitHub, webhook_example
from tests.action.runner_sim import Sim, pr_payload, pr_repo, tool

pytestmark = pytest.mark.skipif(
    not (OPENAPI.exists() and WEBHOOKS.exists()),
    reason="run `npm ci` in tests/action/npm for @octokit/openapi and @octokit/webhooks-examples",
)


def test_first_run_creates_then_updates_then_leaves_alone(sim: Sim, fake: FakeGitHub) -> None:
    base, head = pr_repo(sim)
    payload = pr_payload(7, base, head)
    code, log, outputs, summary = sim.run("pull_request", payload, head)
    assert code == 0, log
    assert outputs["status"] == "pass"
    assert int(outputs["delta"]) > 0 and int(outputs["head-tokens"]) > int(outputs["base-tokens"])
    assert len(fake.comments) == 1
    (comment,) = fake.comments.values()
    assert comment["body"].startswith("<!-- mcp-context-cost:v1 key=default -->")
    assert "`beta`" in comment["body"] and "🆕 added" in comment["body"]
    assert "alpha" in summary
    first_id = outputs["comment-id"]
    assert (sim.repo / outputs["comment-path"]).read_text() == comment["body"]
    # a new head commit: the same comment is updated in place
    bigger = sim.tools_file("bigger", [tool("search", 200)])
    head2 = sim.commit_config(
        {"alpha": bigger, "beta": sim.tools_file("s2", [tool("x", 1)])}, "more"
    )
    code, log, outputs, _ = sim.run("pull_request", pr_payload(7, base, head2), head2)
    assert code == 0, log
    assert outputs["comment-id"] == first_id and len(fake.comments) == 1
    patches = [r for r in fake.requests if r[0] == "PATCH"]
    assert len(patches) == 1
    # the same result again: nothing is sent
    code, log, outputs, _ = sim.run("pull_request", pr_payload(7, base, head2), head2)
    assert code == 0 and len([r for r in fake.requests if r[0] == "PATCH"]) == 1
    assert "comment: unchanged" in log


def test_gate_failure_still_comments_then_exits_1(sim: Sim, fake: FakeGitHub) -> None:
    base, head = pr_repo(sim)
    code, log, outputs, _ = sim.run(
        "pull_request", pr_payload(8, base, head), head, **{"max-increase": "5"}
    )
    assert code == 1, log
    assert outputs["status"] == "fail" and "over the 5 allowed" in outputs["failure-reasons"]
    (comment,) = fake.comments.values()
    assert "check failed" in comment["body"]
    assert re.search(r"^::error file=\.mcp\.json,line=\d+,title=MCP context cost::", log, re.M)


def test_fork_token_403_warns_and_still_gates(sim: Sim, fake: FakeGitHub) -> None:
    fake.forbid_writes = True
    base, head = pr_repo(sim)
    code, log, outputs, _ = sim.run(
        "pull_request", pr_payload(9, base, head), head, **{"max-increase": "5"}
    )
    assert code == 1 and outputs["status"] == "fail"
    assert "::warning::could not post the comment" in log and "pull-requests: write" in log
    assert fake.comments == {}


def test_comment_that_would_be_too_long_is_cut_with_a_note(sim: Sim, fake: FakeGitHub) -> None:
    small = sim.tools_file("small", [tool("a", 1)])
    base = sim.commit_config({"alpha": small}, "base")
    many = {f"server-{i:04d}-{'x' * 60}": small for i in range(900)}
    head = sim.commit_config(many, "many")
    code, log, outputs, summary = sim.run(
        "pull_request", pr_payload(10, base, head), head, concurrency="16", **{"fail-on": "none"}
    )
    assert code == 0, log[-2000:]
    assert outputs["status"] == "pass"
    (comment,) = fake.comments.values()
    assert len(comment["body"]) < 65536
    assert "more rows are in the job summary" in comment["body"]
    assert summary.count("server-") >= 900


def test_badge_commit_on_push_creates_orphan_branch_then_retries_409(
    sim: Sim, fake: FakeGitHub
) -> None:
    head = sim.commit_config({"alpha": sim.tools_file("small", [tool("a", 3)])}, "base")
    payload = webhook_example("push")
    payload["repository"]["default_branch"] = "main"
    code, log, outputs, _ = sim.run("push", payload, head, ref="refs/heads/main", badge="true")
    assert code == 0, log
    assert fake.refs["badges"] == "d" * 40
    assert json.loads(fake.files[("badges", "mcp-context-cost.json")])["schemaVersion"] == 1
    assert json.loads(outputs["badge-json"])["message"].endswith("tokens")
    head2 = sim.commit_config({"alpha": sim.tools_file("big", [tool("a", 300)])}, "grow")
    fake.conflicts_left = 1
    code, log, outputs, _ = sim.run("push", payload, head2, ref="refs/heads/main", badge="true")
    assert code == 0, log
    assert json.loads(fake.files[("badges", "mcp-context-cost.json")]) == json.loads(
        outputs["badge-json"]
    )
    assert [r[0] for r in fake.requests if "/contents/" in r[1]].count("PUT") == 2


def test_workflow_run_posts_the_saved_comment_after_checking_head(
    sim: Sim, fake: FakeGitHub
) -> None:
    base, head = pr_repo(sim)
    fake.forbid_writes = True
    code, log, outputs, _ = sim.run("pull_request", pr_payload(11, base, head), head)
    report = (sim.repo / outputs["report-path"]).read_bytes()
    phase1_body = (sim.repo / outputs["comment-path"]).read_text()
    fake.forbid_writes = False
    fake.artifacts[555] = {"report.json": report}
    payload = webhook_example("workflow_run")
    payload["workflow_run"].update(
        id=555,
        head_sha=head,
        pull_requests=[],
        html_url="https://github.example/octo/repo/actions/runs/555",
    )
    fork = payload["workflow_run"]["head_repository"]["full_name"]
    # the same commit is also the head of another pull request, from another repository
    fake.pulls[11] = (head, "someone-else/copy")
    code, log, _, _ = sim.run("workflow_run", payload, "f" * 40, ref="refs/heads/main")
    assert code == 2 and "comes from another repository" in log and fake.comments == {}
    fake.pulls[11] = (head, fork)
    code, log, outputs, _ = sim.run("workflow_run", payload, "f" * 40, ref="refs/heads/main")
    assert code == 0, log
    (comment,) = fake.comments.values()
    assert comment["issue"] == 11
    assert comment["body"].replace("runs/555", "runs/99") == phase1_body
    # a saved result for another commit is refused
    payload["workflow_run"]["head_sha"] = "0" * 40
    code, log, _, _ = sim.run("workflow_run", payload, "f" * 40, ref="refs/heads/main")
    assert code == 2 and "not posting it" in log


def test_pull_request_target_is_refused(sim: Sim, fake: FakeGitHub) -> None:
    base, head = pr_repo(sim)
    code, log, outputs, _ = sim.run("pull_request_target", pr_payload(12, base, head), base)
    assert code == 2
    assert "refusing to measure under pull_request_target" in log
    assert outputs["status"] == "error" and fake.requests == []


def test_bad_input_is_one_line_error_exit_2(sim: Sim) -> None:
    code, log, outputs, _ = sim.run("pull_request", {}, "0" * 40, budget="lots")
    assert code == 2 and log.startswith("::error::input budget: 'lots' is not a whole number")
    assert "Traceback" not in log and outputs["status"] == "error"
