"""A pull request that adds, deletes or empties a whole config file: git shows what each commit
holds, so the Action compares with an empty config (total 0) instead of calling the change
unknown."""

from __future__ import annotations

import json

from tests.action.github_fake import FakeGitHub
from tests.action.runner_sim import Sim, git, pr_payload, tool


def _commit_readme(sim: Sim, text: str) -> str:
    (sim.repo / "README.md").write_text(text)
    git(sim.repo, "add", "README.md")
    git(sim.repo, "commit", "-q", "-m", "readme")
    return git(sim.repo, "rev-parse", "HEAD")


def _added(sim: Sim) -> tuple[str, str]:
    base = _commit_readme(sim, "no MCP config yet\n")
    head = sim.commit_config({"alpha": sim.tools_file("a", [tool("search", 30)])}, "add .mcp.json")
    return base, head


def test_added_config_is_judged_on_its_full_total(sim: Sim, fake: FakeGitHub) -> None:
    base, head = _added(sim)
    code, log, outputs, summary = sim.run(
        "pull_request", pr_payload(31, base, head), head, **{"max-increase": "100000"}
    )
    assert code == 0, log
    total = int(outputs["head-tokens"])
    assert total > 30 and outputs["base-tokens"] == "0" and int(outputs["delta"]) == total
    assert outputs["failure-reasons"] == ""
    (comment,) = fake.comments.values()
    assert f"(0 → {total:,}, new config)" in comment["body"]
    assert "🆕 added · new config" in comment["body"]
    assert "no baseline" not in comment["body"] and "no baseline" not in summary
    # one token under its total fails the increase gate, on the number, not as unknown
    code, log, outputs, _ = sim.run(
        "pull_request", pr_payload(31, base, head), head, **{"max-increase": str(total - 1)}
    )
    assert code == 1, log
    assert outputs["failure-reasons"] == (
        f".mcp.json: +{total:,} tokens per request, over the {total - 1:,} allowed."
    )
    # exactly at the limit passes
    code, log, outputs, _ = sim.run(
        "pull_request", pr_payload(31, base, head), head, **{"max-increase": str(total)}
    )
    assert code == 0 and outputs["status"] == "pass", log


def test_deleted_config_is_a_decrease(sim: Sim, fake: FakeGitHub) -> None:
    base = sim.commit_config({"alpha": sim.tools_file("a", [tool("search", 30)])}, "base")
    git(sim.repo, "rm", "-q", ".mcp.json")
    git(sim.repo, "commit", "-q", "-m", "drop the config")
    head = git(sim.repo, "rev-parse", "HEAD")
    code, log, outputs, summary = sim.run(
        "pull_request", pr_payload(32, base, head), head, budget="5", **{"max-increase": "0"}
    )
    assert code == 0, log
    before = int(outputs["base-tokens"])
    assert before > 30 and outputs["head-tokens"] == "0" and int(outputs["delta"]) == -before
    assert outputs["failure-reasons"] == ""
    (comment,) = fake.comments.values()
    assert "✅" in comment["body"]
    assert (
        f"**−{before:,} tokens per request** ({before:,} → 0, config removed)" in (comment["body"])
    ), comment["body"]
    assert "🗑️ removed · config removed" in comment["body"]
    assert "not found" not in summary
    audit = json.loads((sim.repo / ".mcp-context-cost" / "report.json").read_text())
    (diff,) = audit["diff"]["configs"]
    assert diff["delta"] == -before and diff["afterTotal"] == 0
    assert audit["diff"]["droppedConfigs"] == [] and audit["gates"]["passed"] is True


def test_emptied_config_is_a_decrease_not_an_unmeasured_failure(sim: Sim, fake: FakeGitHub) -> None:
    a = sim.tools_file("a", [tool("search", 30)])
    b = sim.tools_file("b", [tool("fetch", 10)])
    base = sim.commit_config({"alpha": a, "beta": b}, "base")
    head = sim.commit_config({}, "remove every server")
    code, log, outputs, _ = sim.run(
        "pull_request", pr_payload(33, base, head), head, budget="5", **{"max-increase": "0"}
    )
    assert code == 0, log
    before = int(outputs["base-tokens"])
    assert int(outputs["delta"]) == -before < 0 and outputs["head-tokens"] == "0"
    (comment,) = fake.comments.values()
    assert "config emptied" in comment["body"]
    assert comment["body"].count("🗑️ removed · config emptied") == 2


def test_config_empty_on_base_grows_from_zero(sim: Sim, fake: FakeGitHub) -> None:
    base = sim.commit_config({}, "an empty config")
    head = sim.commit_config({"alpha": sim.tools_file("a", [tool("search", 30)])}, "a server")
    code, log, outputs, _ = sim.run(
        "pull_request", pr_payload(34, base, head), head, **{"max-increase": "5"}
    )
    assert code == 1, log
    total = int(outputs["head-tokens"])
    assert outputs["base-tokens"] == "0" and int(outputs["delta"]) == total
    assert outputs["failure-reasons"] == (
        f".mcp.json: +{total:,} tokens per request, over the 5 allowed."
    )
