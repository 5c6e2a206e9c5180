"""The Action writes the SARIF file that upload-sarif reads, in a simulated runner: the increase
gate's finding at the config line the annotation names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.sarif_checks import location, validate


def test_the_action_writes_the_sarif_file_for_upload_sarif(tmp_path: Path) -> None:
    from tests.action.github_fake import OPENAPI, WEBHOOKS, FakeGitHub
    from tests.action.runner_sim import Sim, pr_payload, pr_repo

    if not (OPENAPI.exists() and WEBHOOKS.exists()):
        pytest.skip("run `npm ci` in tests/action/npm for @octokit/openapi and webhooks-examples")
    fake = FakeGitHub().start()
    try:
        sim = Sim(tmp_path, fake)
        base, head = pr_repo(sim)
        inputs = {"max-increase": "5", "sarif": "out/mcp.sarif"}
        code, log, outputs, _ = sim.run("pull_request", pr_payload(8, base, head), head, **inputs)
    finally:
        fake.stop()
    assert code == 1, log
    assert outputs["sarif-path"] == "out/mcp.sarif"
    sarif = json.loads((sim.repo / "out" / "mcp.sarif").read_text("utf-8"))
    validate(sarif)
    (result,) = sarif["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("increase", "error")
    assert "over the 5 allowed" in result["message"]["text"]
    uri, base_id, line = location(result)
    assert (uri, base_id) == (".mcp.json", "%SRCROOT%")
    # the annotation and the SARIF result point at the same line
    assert f"::error file=.mcp.json,line={line}," in log
