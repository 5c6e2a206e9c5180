"""``mcpcost audit --fail-on-limits``: the flag reaches the limits gate, its reasons go to stderr
one line each, and the exit code follows the gate."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from tests.helpers.audit_builders import measured, tools
from tests.helpers.cli_audit import (
    cli,
    cli_with,
    demo_fixture,  # noqa: F401  (the fixture)
)


def small(spec: ServerSpec) -> Measurement:
    return measured(spec, tools(spec.name, 2))


MEASURE: Callable[[ServerSpec], Measurement] = small


def test_fail_on_limits_is_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["--help"])
    flat = " ".join((out + capsys.readouterr().out).split())
    assert code == 0 and "--fail-on-limits exit 1 when a client would drop, reject or cut" in flat


def test_a_file_without_a_client_cannot_be_judged(demo: Path) -> None:
    code, _, err = cli_with(["--config", str(demo), "--fail-on-limits"], measure=MEASURE)
    assert code == 1, err
    (line,) = [x for x in err.splitlines() if x.startswith("LIMITS FAIL: ")]
    assert "no client is known for these files" in line and "cannot be judged" in line


def test_without_the_flag_the_same_audit_passes(demo: Path) -> None:
    code, _, err = cli_with(["--config", str(demo)], measure=MEASURE)
    assert code == 0 and "LIMITS" not in err, err


def test_the_json_names_the_gate_and_the_sarif_the_rule(demo: Path, tmp_path: Path) -> None:
    sarif = tmp_path / "out.sarif"
    argv = ["--config", str(demo), "--fail-on-limits", "--json", "--sarif", str(sarif)]
    code, out, _ = cli_with(argv, measure=MEASURE, cwd=tmp_path)
    assert code == 1
    report = json.loads(out)
    assert report["gates"]["passed"] is False
    assert any("cannot be judged" in r for r in report["gates"]["reasons"])
    results = json.loads(sarif.read_text("utf-8"))["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("limits", "error")]
