"""servers.yaml validation, shard selection, and the shipped catalog."""

from __future__ import annotations

import datetime as dt

import pytest

from mcpcost.errors import UsageError
from mcpcost.sweep.catalog import CatalogError, load_catalog, read_catalog
from mcpcost.sweep.metric import (
    GITHUB_STARS,
    NPM_WEEKLY,
    PYPI_WEEKLY,
    IncomparableUnits,
    Metric,
)
from mcpcost.sweep.shard import parse_shard, select_shard, shard_index_for_date, week_index
from tests.helpers.paths import ROOT

GOOD = """\
servers:
  - name: neo4j-cypher
    command: uvx mcp-neo4j-cypher@0.3.0
    version: 0.3.0
    package: mcp-neo4j-cypher (PyPI)
    env: [NEO4J_URI, NEO4J_PASSWORD]
    envValues: {NEO4J_URI: 'bolt://localhost:7687'}
    metric: 5914
    metricSource: https://pypistats.org/packages/mcp-neo4j-cypher (PyPI weekly)
    category: vendor-official
    timeoutSeconds: 240
    needsGit: true
  - name: linear
    command: https://mcp.linear.app/sse
    remote: true
  - name: deepwiki
    url: https://mcp.deepwiki.com/mcp
    transport: http
"""


def test_valid_catalog_reads_every_field() -> None:
    cat = load_catalog(GOOD)
    neo, linear, deepwiki = cat.entries
    assert neo.argv == ("uvx", "mcp-neo4j-cypher@0.3.0")
    assert neo.dummy_env() == {"NEO4J_URI": "bolt://localhost:7687", "NEO4J_PASSWORD": "dummy"}
    assert neo.timeout_seconds == 240 and neo.needs_git and neo.line == 2
    assert dict(neo.spec().env) == neo.dummy_env()
    assert not linear.sweepable and deepwiki.sweepable
    assert deepwiki.spec().url == "https://mcp.deepwiki.com/mcp"
    assert deepwiki.spec().transport == "http"
    assert neo.metric == Metric(5914, PYPI_WEEKLY) and linear.metric is None


def _one_metric(block: str) -> Metric | None:
    return load_catalog("servers:\n  - name: a\n    command: x\n" + block).entries[0].metric


def test_metric_carries_its_unit_explicitly_or_from_the_legacy_source() -> None:
    assert _one_metric("    metric: {value: 120, unit: github-stars}\n") == Metric(
        120, GITHUB_STARS
    )
    assert _one_metric(
        "    metric: {value: 81234.5, unit: npm-weekly-downloads}\n"
        "    metricSource: https://pypistats.org/x\n"  # an explicit unit wins over the source
    ) == Metric(81234.5, NPM_WEEKLY)
    legacy = {
        "https://www.npmjs.com/package/@x/y (npm weekly downloads)": NPM_WEEKLY,
        "https://pypistats.org/packages/mcp-neo4j-cypher (PyPI weekly)": PYPI_WEEKLY,
        "GitHub stars of https://github.com/org/repo": GITHUB_STARS,
    }
    for source, unit in legacy.items():
        assert _one_metric(f"    metric: 77\n    metricSource: '{source}'\n") == Metric(77, unit)


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("    metric: 5\n", "is a bare number whose metricSource names no known unit"),
        ("    metric: 5\n    metricSource: PulseMCP est. visitors\n", "names no known unit"),
        ("    metric: {value: 5, unit: visitors}\n", "unit must be one of npm-weekly-downloads"),
        ("    metric: {value: -1, unit: github-stars}\n", "value must be a non-negative"),
        ("    metric: {value: 1, unit: github-stars, per: week}\n", "has unknown key(s) 'per'"),
        ("    metric: true\n", "must be {value, unit} or a non-negative number"),
    ],
)
def test_metric_without_a_known_unit_is_rejected_with_its_line(block: str, message: str) -> None:
    with pytest.raises(CatalogError) as info:
        load_catalog("servers:\n  - name: a\n    command: x\n" + block, "x.yaml")
    (problem,) = info.value.problems
    assert problem.startswith("x.yaml:4: servers[0] (a).metric ") and message in problem


def test_figures_in_different_units_are_never_ranked_together() -> None:
    stars = [Metric(5, GITHUB_STARS), Metric(900, GITHUB_STARS), Metric(40, GITHUB_STARS)]
    assert [m.value for m in sorted(stars)] == [5, 40, 900]
    with pytest.raises(IncomparableUnits):
        sorted([Metric(5, GITHUB_STARS), Metric(7, NPM_WEEKLY)])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "servers:\n  - name: a\n    command: x\n    timeoutSeconds: -1\n",
            "x.yaml:4: servers[0] (a).timeoutSeconds",
        ),
        (
            "servers:\n  - name: a\n    command: x\n  - name: a\n    command: y\n",
            "x.yaml:4: servers[1] (a): duplicate name 'a' (first on line 2)",
        ),
        (
            "servers:\n  - name: Bad/Name\n    command: x\n",
            "x.yaml:2: servers[0].name 'Bad/Name' cannot name a results directory",
        ),
        (
            "servers:\n  - name: a\n    comand: x\n",
            "x.yaml:3: servers[0]: unknown field 'comand' (did you mean 'command'?)",
        ),
        ("servers:\n  - name: a\n", "x.yaml:2: servers[0] (a): missing required field 'command'"),
        (
            "servers:\n  - name: a\n    command: npx pkg@1.0.0\n    version: 1.2.0\n",
            "x.yaml:4: servers[0] (a).version pin '1.2.0' does not appear",
        ),
        (
            "servers:\n  - name: a\n    command: x\n    envValues: {B: c}\n",
            "x.yaml:4: servers[0] (a).envValues names 'B'",
        ),
        (
            "servers:\n  - name: a\n    command: 'x \"unterminated'\n",
            "x.yaml:3: servers[0] (a).command cannot be split",
        ),
        (
            "servers:\n  - name: history.csv\n    command: x\n",
            "x.yaml:2: servers[0].name 'history.csv' cannot name a results directory: it is",
        ),
        ("servers: [\n", "x.yaml:2:"),
        ("other: 1\n", "x.yaml:1: missing top-level 'servers:' list"),
        ("", "x.yaml:1: empty file"),
    ],
)
def test_problems_are_reported_with_line_numbers(text: str, expected: str) -> None:
    with pytest.raises(CatalogError) as info:
        load_catalog(text, "x.yaml")
    assert any(p.startswith(expected) for p in info.value.problems), info.value.problems


def test_every_problem_is_collected() -> None:
    text = "servers:\n  - name: a\n    command: x\n    metric: many\n  - name: b\n    category: nope\n    command: y\n"
    with pytest.raises(CatalogError) as info:
        load_catalog(text, "x.yaml")
    assert [p.split(" ")[0] for p in info.value.problems] == ["x.yaml:4:", "x.yaml:6:"]
    assert "(and 1 more)" in str(info.value)


def test_shipped_catalog_is_valid_and_pinned() -> None:
    cat = read_catalog(str(ROOT / "servers.yaml"))
    assert len(cat.entries) >= 30
    refs = [e for e in cat.entries if e.category == "official-reference"]
    assert refs and all(e.version and e.version in e.command for e in refs)
    assert any(e.remote for e in cat.entries)


def test_week_index_and_date_shard_match_the_reference_rule() -> None:
    assert week_index(dt.date(1970, 1, 1)) == 0
    assert week_index(dt.date(1970, 1, 7)) == 0
    assert week_index(dt.date(1970, 1, 8)) == 1  # blocks start on Thursdays
    day = dt.date(2026, 8, 19)
    assert shard_index_for_date(day, 6) == ((day - dt.date(1970, 1, 1)).days // 7) % 6
    assert (
        shard_index_for_date(day + dt.timedelta(days=7), 6)
        == (shard_index_for_date(day, 6) + 1) % 6
    )


def test_round_robin_slices_cover_the_list_once() -> None:
    items = list(range(79))
    slices = [select_shard(items, 6, k) for k in range(6)]
    assert [len(s) for s in slices] == [14, 13, 13, 13, 13, 13]
    assert sorted(x for s in slices for x in s) == items
    assert slices[1][:3] == [1, 7, 13]


@pytest.mark.parametrize("text", ["7/6", "x/2", "1/0", "-1/3", "a"])
def test_bad_shard_flags_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        parse_shard(text)


def test_shard_flag_forms() -> None:
    assert parse_shard("2/6").index == 2
    assert parse_shard("6").index is None and parse_shard("auto/6").count == 6
