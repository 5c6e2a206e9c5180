"""The increase gate table in the Action, against the command line on the same two configs.

Each case commits a base and a head ``.mcp.json`` to a real repository, runs ``entrypoint.py``
on the pull request in the simulated runner (loopback GitHub fake), and runs ``mcpcost audit``
on the same two files (``--json`` for the baseline, then ``--baseline --max-increase``): both
must pass or fail alike, carry the same servers over as known unknowns and fail on the same
unknown ones. The servers are real stdio processes: one serves tools, one needs a key from an
unset variable (never launched), one exits at start (as a server without its key does).
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from mcpcost.cli import main
from tests.action.github_fake import FakeGitHub
from tests.action.runner_sim import FIXTURE, SERVER_PYTHON, Sim, git, pr_payload, tool

LIMIT = "1000"


def serving(sim: Sim, name: str, words: int) -> dict[str, Any]:
    return {
        "command": SERVER_PYTHON,
        "args": [str(FIXTURE), sim.tools_file(name, [tool(name, words)])],
    }


def keyed(sim: Sim) -> dict[str, Any]:
    entry = serving(sim, "keyed", 30)
    return {**entry, "env": {"SEARCH_API_KEY": "${MCPCOST_TEST_UNSET_KEY}"}}


def exits(sim: Sim, *extra: str) -> dict[str, Any]:
    """A server that exits at start: its tools file does not exist."""
    return {"command": SERVER_PYTHON, "args": [str(FIXTURE), str(sim.tmp / "absent.json"), *extra]}


def write(sim: Sim, servers: dict[str, Any], message: str) -> str:
    (sim.repo / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n")
    git(sim.repo, "add", "-A")
    git(sim.repo, "commit", "-q", "-m", message)
    return git(sim.repo, "rev-parse", "HEAD")


def cli_verdict(sim: Sim, base: dict[str, Any], head: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """``mcpcost audit`` with the base file as the baseline of the head file (same path)."""
    config = sim.tmp / "cli" / ".mcp.json"
    config.parent.mkdir(exist_ok=True)

    def audit(servers: dict[str, Any], *flags: str) -> tuple[int, str]:
        config.write_text(json.dumps({"mcpServers": servers}))
        out, err = io.StringIO(), io.StringIO()
        code = main(
            ["audit", "--config", str(config), "--json", "--timeout", "30", *flags], out, err
        )
        return code, out.getvalue()

    code, baseline = audit(base)
    assert code == 0, baseline
    (sim.tmp / "baseline.json").write_text(baseline)
    code, report = audit(
        head, "--baseline", str(sim.tmp / "baseline.json"), "--max-increase", LIMIT
    )
    return code, json.loads(report)


def carried_in_comment(body: str) -> set[str]:
    section = body.split("Known unknowns, carried over", 1)
    if len(section) == 1:
        return set()
    block = section[1].split("</details>", 1)[0]
    return {
        line.split(": ", 1)[1].split(" ", 1)[0].strip("`")
        for line in block.splitlines()
        if line.startswith("- ")
    }


CASES = ["unchanged unknowns", "changed unknown", "added unmeasurable"]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_the_action_and_the_cli_agree_on_each_increase_case(
    case: str, sim: Sim, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MCPCOST_TEST_UNSET_KEY", raising=False)
    before = {"notes": serving(sim, "notes", 10), "search": keyed(sim), "broken": exits(sim)}
    after = {**before, "notes": serving(sim, "notes2", 14)}  # the pull request's own change
    expect_pass, carried, failing = True, {"search", "broken"}, set()
    if case == "changed unknown":
        after["broken"] = exits(sim, "--v2")
        expect_pass, carried, failing = False, {"search"}, {"broken"}
    elif case == "added unmeasurable":
        after["second"] = exits(sim, "second")
        expect_pass, carried, failing = False, {"search", "broken"}, {"second"}
    base = write(sim, before, "base")
    head = write(sim, after, "head")

    code, log, outputs, summary = sim.run(
        "pull_request", pr_payload(21, base, head), head, **{"max-increase": LIMIT}
    )
    cli_code, report = cli_verdict(sim, before, after)

    assert (code == 0) is expect_pass, log[-3000:]
    assert (cli_code == 0) is expect_pass, report["gates"]
    assert outputs["status"] == ("pass" if expect_pass else "fail")
    (comment,) = fake.comments.values()
    assert carried_in_comment(comment["body"]) == carried
    assert {k["server"] for k in report["gates"]["knownUnknowns"]} == carried
    saved = json.loads((sim.repo / outputs["report-path"]).read_text())
    found = saved["findings"]
    carried_over = [f for f in found if f["gate"] == "known-unknown" and f["level"] == "warning"]
    assert {f["server"] for f in carried_over} == carried
    assert {f["server"] for f in found if f["level"] == "error" and f["server"]} == failing
    cli_failing = {
        s["name"]
        for c in report["diff"]["configs"]
        for s in c["servers"]
        if s.get("after") is None and not s.get("knownUnknown") and s["kind"] != "removed"
    }
    assert cli_failing == failing
    assert all(name in outputs.get("failure-reasons", "") for name in failing)
    # known unknowns are reported, never annotated: only failures reach the log as annotations
    assert not any(
        f"{n} has no number in either run" in line
        for n in carried
        for line in log.splitlines()
        if line.startswith("::")
    )
    assert all(n in summary for n in carried)


@pytest.mark.slow
def test_with_the_default_inputs_a_key_gated_server_does_not_fail_every_pull_request(
    sim: Sim, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No budget, no max-increase: the Action still requires a number for whatever the pull
    request touched, and carries over what it did not."""
    monkeypatch.delenv("MCPCOST_TEST_UNSET_KEY", raising=False)
    before = {"notes": serving(sim, "notes", 10), "search": keyed(sim)}
    base = write(sim, before, "base")
    head = write(sim, {**before, "notes": serving(sim, "notes2", 20)}, "grow notes")
    code, log, outputs, _ = sim.run("pull_request", pr_payload(22, base, head), head)
    assert code == 0 and outputs["status"] == "pass", log[-3000:]
    (comment,) = fake.comments.values()
    assert carried_in_comment(comment["body"]) == {"search"}
    assert "check failed" not in comment["body"]
    # the next pull request adds a server that cannot start: that one fails it
    head2 = write(sim, {**before, "other": exits(sim)}, "add other")
    code, log, outputs, _ = sim.run("pull_request", pr_payload(23, base, head2), head2)
    assert code == 1 and outputs["status"] == "fail"
    assert "other" in outputs["failure-reasons"] and "search" not in outputs["failure-reasons"]
    # a team that wants every server measured says so
    code, _, outputs, _ = sim.run(
        "pull_request",
        pr_payload(22, base, head),
        head,
        **{"fail-on": "budget,increase,unmeasured,known-unknown"},
    )
    assert code == 1 and "search" in outputs["failure-reasons"]


@pytest.mark.slow
def test_an_unknown_whose_launch_names_a_file_the_pull_request_changed_fails_it(
    sim: Sim, fake: FakeGitHub
) -> None:
    """Written the same, but what it runs changed: only git knows that, so only the Action
    fails it (a --baseline file says nothing of which files changed)."""
    server = sim.repo / "tools" / "server.py"
    server.parent.mkdir()
    server.write_text("import sys\nsys.exit(3)\n")
    entry = {"command": SERVER_PYTHON, "args": ["tools/server.py"]}
    base = write(sim, {"local": entry}, "base")
    server.write_text("import sys\nsys.exit(4)  # still no key\n")
    head = write(sim, {"local": entry}, "change the server")
    code, log, outputs, _ = sim.run(
        "pull_request", pr_payload(24, base, head), head, **{"max-increase": LIMIT}
    )
    assert code == 1, log[-3000:]
    assert "names files this change modified" in outputs["failure-reasons"]
    saved = json.loads((sim.repo / outputs["report-path"]).read_text())
    assert [f for f in saved["findings"] if f["gate"] == "known-unknown"] == []
