"""``mcpcost audit --sarif``: gate findings and unmeasured servers as SARIF 2.1.0, located at the
config line of each server, valid against the published schema (tests/fixtures/sarif)."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpcost.audit.gates import Gate
from mcpcost.cli import audit_cmd
from mcpcost.errors import InputError, OutputError, UsageError
from mcpcost.render.sarif_report import LocatedFinding, render_sarif
from tests.helpers.paths import TEST_FIXTURES
from tests.servers.registry import fixture_argv

SCHEMA = json.loads((TEST_FIXTURES / "sarif" / "sarif-2.1.0-rtm.5.json").read_text("utf-8"))


def validate(log: Any) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(log)


def audit(argv: list[str], cwd: Path, home: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        code = audit_cmd.run(argv, out, err, cwd=cwd, home=home, environ={"PATH": "/usr/bin"})
    except (UsageError, InputError, OutputError) as exc:
        err.write(f"{exc}\n")
        code = 2
    return code, out.getvalue(), err.getvalue()


def line_of(path: Path, needle: str) -> int:
    lines = path.read_text("utf-8").splitlines()
    return next(i for i, text in enumerate(lines, 1) if needle in text)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with one config: a good server, a paginated one and one that crashes."""
    root = tmp_path / "project"
    servers = {
        name: {"command": argv[0], "args": argv[1:]}
        for name, argv in (
            ("good", fixture_argv("good")),
            ("paged", fixture_argv("paginated")),
            ("crash", fixture_argv("crash")),
        )
    }
    path = root / ".cursor" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": servers}, indent=2), "utf-8")
    return root


def results_by_rule(log: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    (run,) = log["runs"]
    return {(r["ruleId"], r["level"]): r for r in run["results"]}


def location(result: dict[str, Any]) -> tuple[str, str | None, int]:
    (loc,) = result["locations"]
    physical = loc["physicalLocation"]
    artifact = physical["artifactLocation"]
    return artifact["uri"], artifact.get("uriBaseId"), physical["region"]["startLine"]


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
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [str(g) for g in Gate]
    assert all(r["ruleIndex"] == [str(g) for g in Gate].index(r["ruleId"]) for r in run["results"])


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


def test_a_config_outside_the_project_is_a_file_uri(tmp_path: Path) -> None:
    home_config = tmp_path / "home dir" / ".cursor" / "mcp.json"
    finding = LocatedFinding(
        gate=Gate.UNMEASURED,
        source=str(home_config),
        server="x",
        text="x could not be measured",
        line=4,
    )
    whole = LocatedFinding(
        gate=Gate.INCREASE, source=None, server=None, text="baseline methodology differs", line=None
    )
    log = json.loads(
        render_sarif([whole], [finding], base_dir=tmp_path / "project", default_source=".mcp.json")
    )
    validate(log)
    first, second = log["runs"][0]["results"]
    assert location(first) == (".mcp.json", "%SRCROOT%", 1)
    assert location(second) == (home_config.as_uri(), None, 4)
    assert "%20" in location(second)[0]


def test_the_schema_rejects_what_is_not_sarif() -> None:
    finding = LocatedFinding(gate=Gate.BUDGET, source="a.json", server=None, text="t", line=2)
    log = json.loads(render_sarif([finding]))
    validate(log)
    for breaks in ("version", "level", "region"):
        broken = copy.deepcopy(log)
        result = broken["runs"][0]["results"][0]
        if breaks == "version":
            broken["version"] = "2.0"
        elif breaks == "level":
            result["level"] = "fatal"
        else:
            result["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
        with pytest.raises(jsonschema.ValidationError):
            validate(broken)


def test_an_unwritable_sarif_path_exits_2(project: Path, tmp_path: Path) -> None:
    config = project / ".cursor" / "mcp.json"
    config.write_text('{"mcpServers": {}}', "utf-8")
    blocker = tmp_path / "file"
    blocker.write_text("x", "utf-8")
    code, _, err = audit(
        ["--config", str(config), "--sarif", str(blocker / "out.sarif")], project, tmp_path
    )
    assert code == 2 and "--sarif" in err


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


def test_sarif_with_list_configs_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = audit(["--list-configs", "--sarif", "x.sarif"], tmp_path, tmp_path)
    assert code == 2 and "--list-configs" in err
    assert not (tmp_path / "x.sarif").exists()
