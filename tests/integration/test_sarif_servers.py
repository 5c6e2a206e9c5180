"""``mcpcost audit --sarif`` over real stdio servers: the budget gate and unmeasured servers
located at each server's config line, an increase at the server that grew, warnings without a gate
and errors with one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcpcost.audit.gates import Gate
from mcpcost.audit.model_view import FindingKind
from tests.helpers.sarif_checks import (
    audit,
    location,
    project_fixture,  # noqa: F401  (the fixture)
    validate,
)
from tests.servers.registry import fixture_argv


def line_of(path: Path, needle: str) -> int:
    lines = path.read_text("utf-8").splitlines()
    return next(i for i, text in enumerate(lines, 1) if needle in text)


def results_by_rule(log: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    (run,) = log["runs"]
    return {(r["ruleId"], r["level"]): r for r in run["results"]}


@pytest.mark.slow
def test_budget_and_unmeasured_at_the_config_lines(project: Path, tmp_path: Path) -> None:
    config = project / ".cursor" / "mcp.json"
    sarif = tmp_path / "out.sarif"
    argv = ["--config", str(config), "--timeout", "10", "--budget", "10", "--sarif", str(sarif)]
    code, _, err = audit(argv, project, tmp_path)
    assert code == 1, err
    log = json.loads(sarif.read_text("utf-8"))
    validate(log)
    found = results_by_rule(log)
    assert set(found) == {("budget", "error"), ("unmeasured", "warning")}
    budget = found[("budget", "error")]
    assert "over the 10 budget" in budget["message"]["text"]
    heaviest = json.loads(audit(["--config", str(config), "--json"], project, tmp_path)[1])
    top = heaviest["configs"][0]["servers"][0]["name"]
    assert location(budget) == (".cursor/mcp.json", "%SRCROOT%", line_of(config, f'"{top}"'))
    crash = found[("unmeasured", "warning")]
    assert location(crash) == (".cursor/mcp.json", "%SRCROOT%", line_of(config, '"crash"'))
    assert "crash could not be measured (startup-failure)" in crash["message"]["text"]
    (run,) = log["runs"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    # a rule per gate kind, then one per client-lens finding kind
    assert rules == [str(g) for g in Gate] + [f"mcpcost/lens/{k}" for k in FindingKind]
    assert all(r["ruleIndex"] == rules.index(r["ruleId"]) for r in run["results"])


@pytest.mark.slow
def test_without_gates_unmeasured_servers_are_warnings_and_with_the_gate_errors(
    project: Path, tmp_path: Path
) -> None:
    config = project / ".cursor" / "mcp.json"
    sarif = tmp_path / "plain.sarif"
    code, _, _ = audit(
        ["--config", str(config), "--timeout", "10", "--sarif", str(sarif)], project, tmp_path
    )
    assert code == 0
    log = json.loads(sarif.read_text("utf-8"))
    validate(log)
    assert list(results_by_rule(log)) == [("unmeasured", "warning")]
    strict = tmp_path / "strict.sarif"
    argv = [
        "--config",
        str(config),
        "--timeout",
        "10",
        "--fail-on-unmeasured",
        "--sarif",
        str(strict),
    ]
    assert audit(argv, project, tmp_path)[0] == 1
    log = json.loads(strict.read_text("utf-8"))
    validate(log)
    (result,) = log["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("unmeasured", "error")
    assert location(result)[2] == line_of(config, '"crash"')
    # the identity of an alert does not depend on its line or its wording
    plain = json.loads(sarif.read_text("utf-8"))["runs"][0]["results"][0]
    assert result["partialFingerprints"] == plain["partialFingerprints"]


@pytest.mark.slow
def test_an_increase_is_located_at_the_server_that_grew(tmp_path: Path) -> None:
    root = tmp_path / "project"
    config = root / ".mcp.json"
    config.parent.mkdir(parents=True)
    servers = {"good": {"command": fixture_argv("good")[0], "args": fixture_argv("good")[1:]}}
    config.write_text(json.dumps({"mcpServers": servers}, indent=2), "utf-8")
    code, baseline, err = audit(["--config", str(config), "--json"], root, tmp_path)
    assert code == 0, err
    (tmp_path / "before.json").write_text(baseline, "utf-8")
    paged = fixture_argv("paginated")
    servers = {"good": servers["good"], "paged": {"command": paged[0], "args": paged[1:]}}
    config.write_text(json.dumps({"mcpServers": servers}, indent=2), "utf-8")
    sarif = tmp_path / "out.sarif"
    argv = ["--config", str(config), "--baseline", str(tmp_path / "before.json")]
    code, _, err = audit([*argv, "--max-increase", "5", "--sarif", str(sarif)], root, tmp_path)
    assert code == 1, err
    log = json.loads(sarif.read_text("utf-8"))
    validate(log)
    increase = results_by_rule(log)[("increase", "error")]
    assert "over the 5 allowed" in increase["message"]["text"]
    assert location(increase) == (".mcp.json", "%SRCROOT%", line_of(config, '"paged"'))
    assert line_of(config, '"paged"') > 1
