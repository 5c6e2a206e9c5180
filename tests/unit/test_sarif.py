"""``mcpcost audit --sarif``: gate findings and unmeasured servers as SARIF 2.1.0, located at the
config line of each server, valid against the published schema (tests/fixtures/sarif)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from mcpcost.audit.gates import Gate
from mcpcost.render.sarif_report import Level, LocatedFinding, findings_to_json, render_sarif
from tests.helpers.sarif_checks import (
    audit,
    location,
    project_fixture,  # noqa: F401  (the fixture)
    validate,
)


def test_a_config_outside_the_project_is_a_file_uri(tmp_path: Path) -> None:
    home_config = tmp_path / "home dir" / ".cursor" / "mcp.json"
    finding = LocatedFinding(
        gate=Gate.UNMEASURED,
        source=str(home_config),
        server="x",
        text="x could not be measured",
        line=4,
        level=Level.WARNING,
    )
    whole = LocatedFinding(
        gate=Gate.INCREASE, source=None, server=None, text="baseline methodology differs", line=None
    )
    log = json.loads(
        render_sarif(
            {"findings": findings_to_json([whole, finding])},
            base_dir=tmp_path / "project",
            default_source=".mcp.json",
        )
    )
    validate(log)
    first, second = log["runs"][0]["results"]
    assert location(first) == (".mcp.json", "%SRCROOT%", 1)
    assert location(second) == (home_config.as_uri(), None, 4)
    assert "%20" in location(second)[0]


def test_the_schema_rejects_what_is_not_sarif() -> None:
    finding = LocatedFinding(gate=Gate.BUDGET, source="a.json", server=None, text="t", line=2)
    log = json.loads(render_sarif({"findings": findings_to_json([finding])}))
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


def test_sarif_with_list_configs_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = audit(["--list-configs", "--sarif", "x.sarif"], tmp_path, tmp_path)
    assert code == 2 and "--list-configs" in err
    assert not (tmp_path / "x.sarif").exists()
