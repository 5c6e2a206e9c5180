"""The client lens in the Action, in a simulated runner against the loopback GitHub fake: a pull
request adds the project configs of five clients (Claude Code, Cursor, VS Code, Codex, Gemini
CLI) pointing at the limits servers. The sticky comment and the job summary show what each
session's model gets with its findings, the breaking ones are warnings until ``fail-on`` lists
``limits``, then they fail the step, as SARIF errors under their kind's rule."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpcost.escaping.markdown import code_span
from tests.action.github_fake import OPENAPI, WEBHOOKS, FakeGitHub
from tests.action.runner_sim import SERVER_PYTHON, Sim, git, pr_payload
from tests.helpers.lens_homes import populate_repo
from tests.helpers.sarif_checks import validate

pytestmark = pytest.mark.skipif(
    not (OPENAPI.exists() and WEBHOOKS.exists()),
    reason="run `npm ci` in tests/action/npm for @octokit/openapi and @octokit/webhooks-examples",
)
pytest.importorskip("mcpcost.audit.lens", reason="the client lens is not on this branch yet")

BREAKS = ("drops", "rejects", "cuts")
SHOWN = 20  # findings per session in the comment (comment.LENS_FINDINGS)


def _pull_request(sim: Sim) -> tuple[str, str]:
    base = sim.commit_config({}, "base: no servers")
    files = populate_repo(sim.repo, SERVER_PYTHON)  # the Action measures PR servers as nobody
    git(sim.repo, "add", *(str(p.relative_to(sim.repo)) for p in files.values()))
    git(sim.repo, "commit", "-q", "-m", "head: five clients' configs")
    return base, git(sim.repo, "rev-parse", "HEAD")


def _audit(sim: Sim) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((sim.repo / ".mcp-context-cost" / "report.json").read_text())
    return data


def _section(body: str, label: str) -> list[str]:
    """The lines under one session's ``- {label}: **What the model gets...`` item."""
    lines = body.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith(f"- {label}: "))
    out = []
    for x in lines[start + 1 :]:
        if not x.startswith("  "):
            break
        out.append(x)
    return out


def _finding_lines(section: list[str], f: dict[str, Any]) -> list[str]:
    subject = " / ".join(code_span(x, 80) for x in (f["server"], f["tool"]) if x is not None)
    return [x for x in section if f"`{f['kind']}`" in x and (subject or "session's") in x]


def test_the_comment_shows_each_sessions_lens_and_warns(sim: Sim, fake: FakeGitHub) -> None:
    base, head = _pull_request(sim)
    code, log, outputs, summary = sim.run("pull_request", pr_payload(9, base, head), head)
    assert code == 0, log
    assert outputs["status"] == "pass"
    (comment,) = fake.comments.values()
    body = comment["body"]
    assert "**What each client's model gets**" in body
    sessions = [s for s in _audit(sim)["sessions"] if s["modelView"] is not None]
    assert {s["client"] for s in sessions} >= {"claude-code", "cursor", "vscode", "codex", "gemini"}
    breaking = 0
    for s in sessions:
        view = s["modelView"]
        assert f"- {s['label']}: **What the model gets: {view['upfrontTokens']:,} tokens" in body
        in_comment, in_summary = _section(body, s["label"]), _section(summary, s["label"])
        for i, f in enumerate(view["findings"]):
            shown = _finding_lines(in_comment, f)
            assert len(shown) == (1 if i < SHOWN else 0), (s["label"], f)
            assert len(_finding_lines(in_summary, f)) == 1, (s["label"], f)
            breaking += f["effect"] in BREAKS
        if len(view["findings"]) > SHOWN:
            more = len(view["findings"]) - SHOWN
            assert f"… and {more} more findings (see the job summary)" in body
    assert int(outputs["limit-findings"]) == breaking > 0
    # what breaks is a warning while fail-on leaves limits out, counted (each is listed above)
    assert f"⚠️ {breaking} client-lens findings where a client drops" in body
    assert "Cursor drops tool" not in body.replace("\\", "")  # not listed a second time


def test_fail_on_limits_fails_the_step_with_sarif_errors(sim: Sim, fake: FakeGitHub) -> None:
    base, head = _pull_request(sim)
    inputs = {"fail-on": "budget,increase,unmeasured,limits", "sarif": "lens.sarif"}
    code, log, outputs, _ = sim.run("pull_request", pr_payload(9, base, head), head, **inputs)
    assert code == 1, log
    assert outputs["status"] == "fail"
    (comment,) = fake.comments.values()
    assert "check failed" in comment["body"]
    sarif = json.loads((sim.repo / "lens.sarif").read_text("utf-8"))
    validate(sarif)
    every = [r for r in sarif["runs"][0]["results"] if r["ruleId"].startswith("mcpcost/lens/")]
    # what breaks fails; what breaks nothing (a rename, an app-only tool) is there as a note
    assert {r["level"] for r in every} == {"error", "note"}
    lens = [r for r in every if r["level"] == "error"]
    assert len(lens) == int(outputs["limit-findings"]) > 0
    assert "mcpcost/lens/name-too-long" in {r["ruleId"] for r in lens}
    assert len(outputs["failure-reasons"].splitlines()) == len(lens)


def test_the_clients_input_narrows_the_lens(sim: Sim, fake: FakeGitHub) -> None:
    base, head = _pull_request(sim)
    inputs = {"clients": "cursor", "fail-on": "limits"}
    code, log, outputs, _ = sim.run("pull_request", pr_payload(9, base, head), head, **inputs)
    assert code == 1, log
    (comment,) = fake.comments.values()
    body = comment["body"]
    assert "- Cursor" in body and "- Claude Code" not in body and "- VS Code" not in body
    cursor = next(s for s in _audit(sim)["sessions"] if s["client"] == "cursor")
    assert int(outputs["limit-findings"]) == sum(
        f["effect"] in BREAKS for f in cursor["modelView"]["findings"]
    )


def test_a_push_puts_each_server_through_each_client_in_the_summary(
    sim: Sim, fake: FakeGitHub
) -> None:
    from mcpcost.configs.clients import KNOWN_CLIENTS, client_named
    from tests.action.github_fake import webhook_example

    _, head = _pull_request(sim)
    payload = webhook_example("push")
    payload["repository"]["default_branch"] = "main"
    code, log, _, summary = sim.run("push", payload, head, ref="refs/heads/main")
    assert code == 0, log
    lines = summary.splitlines()
    for server in ("limits-server", "many-tools"):
        start = lines.index(f"### `{server}` through each client's lens")
        table = lines[start + 6 : start + 6 + len(KNOWN_CLIENTS) + 1]
        assert table[-1] == ""  # the table has a row per client, no more
        assert [r.split(" | ")[0][2:] for r in table[:-1]] == [
            client_named(c).label for c in KNOWN_CLIENTS
        ]
    # the server alone: Cursor drops its two long names, Claude Code cuts the long description
    assert sum(x.startswith("- Cursor: ❌ **drops** `limits-server`") for x in lines) == 2
    assert any(
        x.startswith("- Claude Code: ❌ **cuts** `limits-server` / `describe_everything`")
        for x in lines
    )
    narrowed = sim.run("push", payload, head, ref="refs/heads/main", clients="cursor,vscode")
    assert narrowed[0] == 0
    assert "- Claude Code:" not in narrowed[3] and "- Cursor: ❌" in narrowed[3]
