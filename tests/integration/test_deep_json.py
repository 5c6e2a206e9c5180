"""Deep but valid JSON: one depth limit, the same status and note from measure, audit, sweep and
the Action's audit, for a real server answering at once."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpcost.action.measure_sides import default_measure_server
from mcpcost.action.repo_configs import parse_config
from mcpcost.audit.compose import AuditInputs, AuditOptions, run_audit
from mcpcost.core.jsonvalue import MAX_DEPTH, nesting_depth_exceeds, parse_json, stringify
from mcpcost.errors import JSONTooDeep
from tests.helpers.paths import ROOT
from tests.servers.registry import fixture_argv

TOO_DEEP_NOTE = f"valid JSON but nested deeper than {MAX_DEPTH} levels"


def test_the_limit_counts_levels_and_ignores_brackets_in_strings() -> None:
    at = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert stringify(parse_json(at)) == at
    with pytest.raises(JSONTooDeep, match=f"deeper than {MAX_DEPTH} levels"):
        parse_json("[" + at + "]")
    quoted = '["' + "[{" * 2000 + '\\"", {"a": "]]"}]'
    assert not nesting_depth_exceeds(quoted)
    assert parse_json(quoted)[1] == {"a": "]]"}


def depth_of(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    return 0


TEXT = st.text(alphabet=st.sampled_from('[]{}"\\ab\u00e9\n'), max_size=6)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=40,
)


@given(VALUES, st.integers(min_value=0, max_value=8))
def test_the_depth_scan_agrees_with_the_parsed_value(value: Any, limit: int) -> None:
    text = stringify(value)
    assert nesting_depth_exceeds(text, limit) == (depth_of(value) > limit)


def test_the_limit_holds_with_most_of_the_stack_in_use() -> None:
    """Parsing and serialising at the limit work from deep inside a call stack."""
    at = "{" + '"a":{' * (MAX_DEPTH - 1) + "}" * MAX_DEPTH

    def nested(n: int) -> str:
        return nested(n - 1) if n else stringify(parse_json(at))

    assert nested(300) == at


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT))


def cli(*argv: str, cwd: Path) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "mcpcost", *argv],
        env=env(),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def via_measure(argv: list[str], tmp: Path) -> tuple[str, int | None, str]:
    doc = json.loads(cli("measure", "--json", "--timeout", "10", "--", *argv, cwd=tmp))
    return doc["status"], doc["totalTokens"], doc.get("notes") or ""


def via_audit(argv: list[str], tmp: Path) -> tuple[str, int | None, str]:
    config = tmp / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"deep": {"command": argv[0], "args": argv[1:]}}}))
    doc = json.loads(cli("audit", "--config", str(config), "--json", "--timeout", "10", cwd=tmp))
    (config_report,) = doc["configs"]
    (entry,) = [e for e in config_report["servers"] + config_report["skipped"] if e["name"]]
    return entry["status"], entry["tokens"], entry.get("notes") or ""


def via_sweep(argv: list[str], tmp: Path) -> tuple[str, int | None, str]:
    servers = tmp / "servers.yaml"
    servers.write_text(f"servers:\n  - name: deep\n    command: {shlex.join(argv)!r}\n")
    out = tmp / "site"
    cli("sweep", "--servers", str(servers), "--out", str(out), "--timeout", "10", cwd=tmp)
    doc = json.loads((out / "results" / "deep" / "measurement.json").read_text())
    return doc["status"], doc["totalTokens"], doc.get("notes") or ""


def via_action(argv: list[str], tmp: Path) -> tuple[str, int | None, str]:
    text = json.dumps({"mcpServers": {"deep": {"command": argv[0], "args": argv[1:]}}})
    config = parse_config(".mcp.json", text, environ=dict(os.environ), workspace=str(tmp))
    audit = run_audit(
        AuditInputs(configs=(config,)),
        measure=lambda spec: default_measure_server(spec, 10),
        options=AuditOptions(concurrency=2),
    )
    (result,) = audit.report.configs
    (entry,) = (*result.servers, *result.skipped)
    return str(entry.status), entry.tokens, entry.notes or ""


PATHS = {"measure": via_measure, "audit": via_audit, "sweep": via_sweep, "action": via_action}


@pytest.mark.slow
@pytest.mark.parametrize("depth", [MAX_DEPTH, MAX_DEPTH + 1, 995])
def test_every_path_gives_the_same_result_at_and_past_the_limit(tmp_path: Path, depth: int) -> None:
    argv = [*fixture_argv("deep"), "--depth", str(depth)]
    results: dict[str, tuple[str, int | None, str]] = {}
    for name, run in PATHS.items():
        where = tmp_path / name
        where.mkdir()
        results[name] = run(argv, where)
    statuses = {name: r[0] for name, r in results.items()}
    tokens = {name: r[1] for name, r in results.items()}
    if depth <= MAX_DEPTH:
        assert set(statuses.values()) == {"measured"}, results
        assert len(set(tokens.values())) == 1 and None not in tokens.values(), results
    else:
        assert set(statuses.values()) == {"startup-failure"}, results
        assert all(TOO_DEEP_NOTE in r[2] for r in results.values()), results


@pytest.mark.parametrize("kind", ["deep-json", "deep-sse"])
def test_a_deep_answer_over_http_is_the_same_startup_failure(kind: str, tmp_path: Path) -> None:
    from tests.servers.registry import serve_http_fixture

    with serve_http_fixture(kind) as url:
        doc = json.loads(cli("measure", "--url", url, "--json", "--timeout", "10", cwd=tmp_path))
    assert doc["status"] == "startup-failure"
    assert TOO_DEEP_NOTE in doc["notes"]
