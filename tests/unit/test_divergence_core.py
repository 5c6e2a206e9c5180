"""Divergence files, projections, the calibration fit and the session estimate (pure parts)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mcpcost.core.calibration import (
    calibration_document,
    estimate_request,
    fit_calibration,
    parse_calibrations,
)
from mcpcost.core.divergence import (
    CLAUDE,
    OPENAI,
    CountApi,
    DivergenceRow,
    DivergenceRun,
    RowState,
    anthropic_tools,
    openai_tools,
    parse_divergence,
    probe_tool,
    projection_text,
    render_divergence,
)
from mcpcost.core.jsonvalue import parse_json, stringify_pretty
from mcpcost.core.model import Measurement
from mcpcost.core.status import Status
from mcpcost.core.tokenizer import get_tokenizer
from tests.helpers.paths import REFERENCE_CAPTURES
from tests.helpers.sweep_sites import measured

REFERENCE_RUN = REFERENCE_CAPTURES / "divergence.json"


def capture(n: int, words: str = "reads a thing from the store") -> list[Any]:
    return [
        {
            "name": f"t{i}",
            "title": f"Tool {i}",
            "description": f"{words} {i}",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
            "annotations": {"readOnlyHint": True},
        }
        for i in range(n)
    ]


# -- projections --------------------------------------------------------------------------------
def test_anthropic_projection_keeps_three_fields_in_order_and_drops_nameless() -> None:
    raw = [
        {"name": "a", "title": "A", "description": "d", "inputSchema": {"type": "object"}},
        {"name": "", "description": "nameless"},
        {"description": "no name"},
        "not a tool",
        {"name": "b", "description": 7, "inputSchema": None, "outputSchema": {}},
        {"name": "c"},
    ]
    assert anthropic_tools(raw) == [
        {"name": "a", "description": "d", "input_schema": {"type": "object"}},
        {"name": "b", "description": "", "input_schema": {"type": "object", "properties": {}}},
        {"name": "c", "description": "", "input_schema": {"type": "object", "properties": {}}},
    ]
    assert list(anthropic_tools(raw)[0]) == ["name", "description", "input_schema"]
    assert anthropic_tools("not a list") == []


def test_openai_projection_is_a_function_tool_without_mcp_fields() -> None:
    raw = [
        {"name": "a", "title": "A", "description": "d", "inputSchema": {"type": "object"}},
        {"name": "b", "annotations": {"x": 1}},
    ]
    assert openai_tools(raw) == [
        {
            "type": "function",
            "name": "a",
            "description": "d",
            "parameters": {"type": "object"},
            "strict": False,
        },
        {
            "type": "function",
            "name": "b",
            "parameters": {"type": "object", "properties": {}},
            "strict": False,
        },
    ]
    assert probe_tool(CountApi.OPENAI) == {
        "type": "function",
        "name": "probe",
        "description": "x",
        "parameters": {"type": "object", "properties": {}},
        "strict": False,
    }
    assert probe_tool(CountApi.ANTHROPIC) == {
        "name": "probe",
        "description": "x",
        "input_schema": {"type": "object", "properties": {}},
    }


def test_projection_of_the_reference_captures_reproduces_the_published_mapped_counts(
    reference_captures: list[Path],
) -> None:
    # the reference's run (recorded in ../shared/research/anchor-research-turn3.md section 3.4)
    # gives github 10,535 and notion 17,163 o200k tokens of the Anthropic projection
    published = {"github": 10535, "notion": 17163}
    tk = get_tokenizer()
    seen = 0
    for path in reference_captures:
        name = path.name.split(".")[0]
        if name in published:
            m = json.loads(path.read_text("utf-8"))
            text = projection_text(CountApi.ANTHROPIC, m["rawToolsCapture"])
            assert tk.count(text) == published[name]
            assert tk.count(text) < m["totalTokens"]
            seen += 1
    assert seen == len(published)


# -- the file ------------------------------------------------------------------------------------
SAMPLE = {
    "method": "tools-delta/v1",
    "model": "claude-opus-5",
    "measuredAt": "2026-08-19",
    "baselineTokens": 7,
    "probeDelta": 328,
    "servers": {
        "alpha": {
            "o200kFull": 900,
            "o200kMapped": 500,
            "claudeDelta": 1200,
            "toolCount": 3,
            "capturedSha256": "a" * 64,
        },
        "alpha-two": {
            "o200kFull": 90,
            "o200kMapped": 50,
            "claudeDelta": 0,
            "toolCount": 1,
            "capturedSha256": "b" * 64,
            "error": "400 invalid schema",
        },
        "beta": {
            "o200kFull": 1,
            "o200kMapped": 1,
            "claudeDelta": 330,
            "toolCount": 1,
            "capturedSha256": "c" * 64,
            "note": "a field this reader does not know",
        },
    },
}


def test_a_run_in_the_reference_shape_round_trips_byte_for_byte() -> None:
    text = stringify_pretty(SAMPLE) + "\n"
    run = parse_divergence(parse_json(text))
    assert render_divergence(run) == text
    assert [r.name for r in run.rows] == ["alpha", "alpha-two", "beta"]
    assert run.baseline_tokens == 7 and run.probe_delta == 328
    assert run.by_name()["alpha-two"].state_for(None) is RowState.ERROR
    assert run.by_name()["beta"].extras == {"note": "a field this reader does not know"}


def test_the_published_reference_run_round_trips_byte_for_byte() -> None:
    if not REFERENCE_RUN.is_file():
        pytest.skip(f"the reference's divergence.json is not in {REFERENCE_CAPTURES}")
    text = REFERENCE_RUN.read_text("utf-8")
    run = parse_divergence(parse_json(text))
    assert render_divergence(run) == text
    assert run.method == CLAUDE.method and run.probe_delta is not None


def test_rows_are_written_in_the_reference_name_order() -> None:
    # the reference sorts with localeCompare (ICU root collation): punctuation before digits
    # before letters, letters compared without case first
    names = ["b", "a-b", "a_b", "aB", "ab", "a1", "github", "github-legacy", "githubx"]
    rows = tuple(
        DivergenceRow(
            name=n, delta=1, o200k_full=1, o200k_mapped=1, captured_sha256="x", error=None
        )
        for n in names
    )
    run = DivergenceRun(method=CLAUDE.method, model="m", measured_at="d", rows=rows)
    assert list(run.to_dict()["servers"]) == [
        "a_b",
        "a-b",
        "a1",
        "ab",
        "aB",
        "b",
        "github",
        "github-legacy",
        "githubx",
    ]


def test_row_state_is_current_only_for_the_capture_on_disk() -> None:
    m = measured("alpha", capture(2))
    row = DivergenceRow(
        name="alpha",
        delta=500,
        o200k_full=m.total_tokens,
        o200k_mapped=10,
        captured_sha256=m.canonical_sha256,
        error=None,
    )
    assert row.state_for(m) is RowState.CURRENT
    remeasured = measured("alpha", capture(3))
    assert row.state_for(remeasured) is RowState.STALE
    assert row.state_for(None) is RowState.STALE
    assert row.state_for(m.with_(status=Status.TIMEOUT, total_tokens=None)) is RowState.STALE
    assert replace(row, error="429").state_for(m) is RowState.ERROR


def test_an_openai_run_uses_its_own_delta_key() -> None:
    doc = {
        "method": OPENAI.method,
        "model": "gpt-5.5",
        "measuredAt": "2026-12-01",
        "baselineTokens": 5,
        "probeDelta": 40,
        "servers": {"a": {"o200kFull": 9, "o200kMapped": 8, "openaiDelta": 70}},
    }
    run = parse_divergence(doc)
    assert run.column is OPENAI and run.rows[0].delta == 70
    assert run.to_dict() == doc
    assert parse_divergence(doc | {"method": CLAUDE.method}).rows[0].delta is None


# -- the fit --------------------------------------------------------------------------------------
def synthetic_run(points: dict[str, tuple[int, int]], fixed: int = 300) -> DivergenceRun:
    rows = tuple(
        DivergenceRow(
            name=n,
            delta=d,
            o200k_full=x * 2,
            o200k_mapped=x,
            captured_sha256=n * 4,
            error=None,
        )
        for n, (x, d) in points.items()
    )
    return DivergenceRun(
        method=CLAUDE.method,
        model="claude-opus-5",
        measured_at="2026-12-01",
        rows=rows,
        baseline_tokens=7,
        probe_delta=fixed,
    )


def test_the_fit_recovers_an_exact_factor_and_reports_zero_error() -> None:
    run = synthetic_run({"a": (1000, 300 + 1750), "b": (4000, 300 + 7000), "c": (10, 300 + 18)})
    fit = fit_calibration(run)
    assert fit is not None
    assert fit.factor == pytest.approx(1.75, abs=1e-3)
    assert fit.n == 3 and fit.max_relative_error < 0.03
    assert [r.name for r in fit.rows] == ["a", "b", "c"]


def test_the_fit_statistics_are_those_of_least_squares_through_the_origin() -> None:
    points = {"a": (1000, 300 + 1600), "b": (2000, 300 + 4000), "c": (3000, 300 + 5100)}
    fit = fit_calibration(synthetic_run(points))
    assert fit is not None
    xs, ys = [1000, 2000, 3000], [1600, 4000, 5100]
    k = sum(x * y for x, y in zip(xs, ys, strict=True)) / sum(x * x for x in xs)
    errors = [abs(k * x - y) / y for x, y in zip(xs, ys, strict=True)]
    assert fit.factor == pytest.approx(k)
    assert fit.mean_relative_error == pytest.approx(sum(errors) / 3)
    assert fit.max_relative_error == pytest.approx(max(errors))
    assert fit.band_pct == int(-(-max(errors) * 100 // 1))
    doc = calibration_document([fit])
    back = parse_calibrations(parse_json(stringify_pretty(doc)))
    assert back[0].factor == pytest.approx(k, abs=1e-4) and back[0].n == 3
    assert back[0].rows[1].captured_sha256 == "bbbb"


def test_the_fit_leaves_out_errored_stale_and_degenerate_rows() -> None:
    run = synthetic_run({"a": (1000, 2050), "b": (2000, 3800), "c": (500, 200), "d": (0, 900)})
    run = replace(run, rows=(*run.rows, replace(run.rows[0], name="e", error="rate limited")))
    fit = fit_calibration(run)
    assert fit is not None and [r.name for r in fit.rows] == ["a", "b"]
    only_a = fit_calibration(run, {"a": "aaaa", "b": "another capture"})
    assert only_a is not None and [r.name for r in only_a.rows] == ["a"]
    assert fit_calibration(replace(run, probe_delta=None)) is None
    assert fit_calibration(run, {}) is None


def test_the_fit_on_the_published_reference_run() -> None:
    if not REFERENCE_RUN.is_file():
        pytest.skip(f"the reference's divergence.json is not in {REFERENCE_CAPTURES}")
    run = parse_divergence(parse_json(REFERENCE_RUN.read_bytes()))
    fit = fit_calibration(run)
    assert fit is not None
    # the public check (anchor-research-turn3.md section 3.4): a factor near 1.7-1.8 with about
    # 5% mean and 12% maximum error
    assert 1.70 < fit.factor < 1.80
    assert fit.mean_relative_error < 0.06 and fit.max_relative_error < 0.13


# -- the estimate ---------------------------------------------------------------------------------
def test_the_estimate_is_exact_where_a_row_was_computed_from_that_capture() -> None:
    a, b = measured("a", capture(3)), measured("b", capture(5, "writes"))
    tk = get_tokenizer()
    mapped_a = tk.count(projection_text(CountApi.ANTHROPIC, a.raw_tools_capture))
    row = DivergenceRow(
        name="a",
        delta=328 + 400,
        o200k_full=a.total_tokens,
        o200k_mapped=mapped_a,
        captured_sha256=a.canonical_sha256,
        error=None,
    )
    others = synthetic_run({"x": (1000, 328 + 1800), "y": (3000, 328 + 5100)}, fixed=328)
    run = replace(others, rows=(*others.rows, row))
    fit = fit_calibration(run)
    assert fit is not None
    one = estimate_request([a], fit, run)
    assert one is not None and one.exact and one.tokens == 728 and one.band_pct == 0
    assert "728 Claude tokens" in one.describe() and "about" not in one.describe()

    both = estimate_request([a, b], fit, run)
    assert both is not None and not both.exact
    mapped_b = tk.count(projection_text(CountApi.ANTHROPIC, b.raw_tools_capture))
    share = fit.factor * mapped_b
    assert both.tokens == 328 + 400 + round(share)  # the fixed overhead once
    assert both.band_tokens == -(-share * fit.max_relative_error // 1)
    assert both.describe().startswith(f"about {both.tokens:,} Claude tokens (estimate, ±")
    assert [p.exact for p in both.parts] == [True, False]

    # a re-measured server whose capture changed is estimated, never joined by name
    changed = measured("a", capture(4))
    again = estimate_request([changed], fit, run)
    assert again is not None and not again.exact


def test_no_estimate_without_a_number_or_without_a_calibration() -> None:
    a = measured("a", capture(2))
    failed = a.with_(status=Status.TIMEOUT, total_tokens=None, raw_tools_capture=None)
    fit = fit_calibration(synthetic_run({"x": (1000, 2100)}))
    assert estimate_request([failed], fit) is None
    assert estimate_request([a], None) is None
    assert estimate_request([a], None, synthetic_run({"x": (1000, 2100)})) is None
    est = estimate_request([a, failed], fit)
    assert est is not None and [p.server for p in est.parts] == ["a"]


def test_the_four_reference_servers_get_an_estimate_with_its_band_and_github_its_row(
    reference_captures: list[Path],
) -> None:
    if not REFERENCE_RUN.is_file():
        pytest.skip(f"the reference's divergence.json is not in {REFERENCE_CAPTURES}")
    run = parse_divergence(parse_json(REFERENCE_RUN.read_bytes()))
    by_name = {p.name.split(".")[0]: p for p in reference_captures}
    current = {
        name: json.loads(by_name[name].read_text("utf-8"))["canonicalSha256"]
        for name in run.by_name()
        if name in by_name
    }
    fit = fit_calibration(run)
    assert fit is not None
    four = [
        Measurement.from_dict(json.loads(by_name[n].read_text("utf-8")))
        for n in ("memory", "filesystem", "everything", "sequential-thinking")
    ]
    est = estimate_request(four, fit, run)
    assert est is not None and not est.exact and 0 < est.band_pct <= fit.band_pct
    assert est.describe().startswith(f"about {est.tokens:,} Claude tokens (estimate, ±")
    assert est.tokens == run.probe_delta + sum(p.tokens for p in est.parts)
    github = Measurement.from_dict(json.loads(by_name["github"].read_text("utf-8")))
    exact = estimate_request([github], fit, run)
    assert exact is not None and exact.exact
    assert exact.tokens == run.by_name()["github"].delta
    assert run.by_name()["github"].current_for(current["github"])
