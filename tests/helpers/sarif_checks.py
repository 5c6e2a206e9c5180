"""What the SARIF tests share: the published SARIF 2.1.0 schema (tests/fixtures/sarif) and a
validator, ``mcpcost audit`` run in this process, a result's location, and a project whose config
names a good, a paginated and a crashing stdio server."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpcost.cli import audit_cmd
from mcpcost.errors import InputError, OutputError, UsageError
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


def location(result: dict[str, Any]) -> tuple[str, str | None, int]:
    (loc,) = result["locations"]
    physical = loc["physicalLocation"]
    artifact = physical["artifactLocation"]
    return artifact["uri"], artifact.get("uriBaseId"), physical["region"]["startLine"]


@pytest.fixture(name="project")
def project_fixture(tmp_path: Path) -> Path:
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
