"""Baseline diff: shape check, config pairing (exact, spelling, sole-config, dropped), per-server
kinds, a baseline from a different machine and the reference project's own report shape."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpcost.audit.baseline import baseline_of_report, parse_baseline
from mcpcost.audit.diff import diff_reports
from mcpcost.core.status import Status
from mcpcost.errors import InputError
from mcpcost.render.json_report import report_to_json
from mcpcost.render.text_report import render_text
from tests.helpers.audit_builders import TABLE, as_baseline, config, entry, report_for, run, tools
from tests.helpers.paths import TEST_FIXTURES

BASELINES = TEST_FIXTURES / "baselines"


# --------------------------------------------------------------------- shape check


@pytest.mark.parametrize(
    ("obj", "needle"),
    [
        ([], "expected a JSON object"),
        ({"configs": []}, "methodologyVersion"),
        ({"methodologyVersion": "1.0", "encoding": "o200k_base"}, "configs must be an array"),
        (
            {"methodologyVersion": "1.0", "encoding": "o200k_base", "configs": [{"source": 3}]},
            "configs[0]",
        ),
        (
            {
                "methodologyVersion": "1.0",
                "encoding": "o200k_base",
                "configs": [{"source": "/a", "servers": [{"name": "x", "tokens": "12"}]}],
            },
            "tokens must be a number",
        ),
        (
            {
                "methodologyVersion": "1.0",
                "encoding": "o200k_base",
                "configs": [{"source": "/a", "servers": {"x": 1}}],
            },
            "servers must be an array",
        ),
    ],
)
def test_wrong_shapes_are_rejected_with_the_problem_named(obj: Any, needle: str) -> None:
    with pytest.raises(InputError, match="baseline") as info:
        parse_baseline(obj)
    assert needle in str(info.value)


@pytest.mark.parametrize(
    ("version", "needle"),
    [
        (3, "reportVersion 3 is newer"),
        ("1", "whole number"),
        (0, "whole number"),
        (True, "whole number"),
    ],
)
def test_baseline_report_version_is_checked(version: Any, needle: str) -> None:
    obj = {
        "reportVersion": version,
        "methodologyVersion": "1.0",
        "encoding": "o200k_base",
        "configs": [],
    }
    with pytest.raises(InputError, match="baseline") as info:
        parse_baseline(obj)
    assert needle in str(info.value)
    obj["reportVersion"] = 1
    assert parse_baseline(obj).configs == ()
    del obj["reportVersion"]  # the reference's reports, and ours before the field
    assert parse_baseline(obj).configs == ()


def test_the_reference_shaped_baseline_loads_and_diffs() -> None:
    data = json.loads((BASELINES / "reference-shaped.json").read_text("utf-8"))
    base = parse_baseline(data)
    (c,) = base.configs
    assert c.total_tokens == 2378
    assert {s.name: s.tokens for s in c.servers} == {"memory": 2378, "linear": None}
    now = run("./.mcp.json", {"memory": tools("m", 3), "linear": tools("l", 1)}, "memory", "linear")
    d = diff_reports(base, now)
    (cd,) = d.configs
    assert cd.matched_by == "path"  # ./.mcp.json is the same file as /home/ci/work/repo/.mcp.json
    kinds = {s.name: s.kind for s in cd.servers}
    assert kinds == {"memory": "changed", "linear": "unmeasured-before"}
    linear = next(s for s in now.configs[0].servers if s.name == "linear")
    assert not cd.exact and cd.overstated_by == linear.tokens


# --------------------------------------------------------------------- pairing


def test_exact_source_pairing_and_unchanged() -> None:
    before = run("/r/.mcp.json", TABLE, "alpha", "beta")
    after = run("/r/.mcp.json", TABLE, "alpha", "beta")
    d = diff_reports(as_baseline(before), after)
    (c,) = d.configs
    assert c.matched_by == "exact" and c.delta == 0 and c.exact
    assert {s.kind for s in c.servers} == {"unchanged"}
    assert d.worst_increase is None and d.comparable and d.warnings == ()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("./.mcp.json", "/home/runner/work/repo/.mcp.json"),
        ("/home/me/repo/.mcp.json", ".mcp.json"),
        ("sub/./cfg/../cfg/mcp.json", "/abs/sub/cfg/mcp.json"),
    ],
)
def test_relative_and_absolute_spellings_pair_by_path(old: str, new: str) -> None:
    before = report_for(
        [config("explicit", old, entry("alpha")), config("explicit", "/other.json", entry("beta"))],
        TABLE,
    )
    after = report_for(
        [
            config("explicit", new, entry("alpha"), entry("gamma")),
            config("explicit", "/other.json", entry("beta")),
        ],
        TABLE,
    )
    d = diff_reports(as_baseline(before), after)
    by = {c.source: c for c in d.configs}
    assert by[new].matched_by == "path" and by[new].baseline_source == old
    assert by["/other.json"].matched_by == "exact"
    assert d.dropped_configs == ()


def test_baseline_from_a_different_machine_pairs_as_sole_config() -> None:
    before = run("/Users/alice/src/app/mcp.json", TABLE, "alpha")
    after = run("/home/runner/work/app/app/config/mcp.json", TABLE, "alpha", "beta")
    d = diff_reports(as_baseline(before), after)
    (c,) = d.configs
    assert c.matched_by == "sole-config"
    assert any("only config on each side" in w for w in d.warnings)
    (added,) = [s for s in c.servers if s.kind == "added"]
    assert added.name == "beta" and c.delta == added.delta and c.exact
    assert d.worst_increase == (c.source, c.delta)


def test_unmatched_and_dropped_configs() -> None:
    before = report_for(
        [
            config("cursor", "/a.json", entry("alpha")),
            config("cursor", "/gone.json", entry("beta")),
        ],
        TABLE,
    )
    after = report_for(
        [
            config("cursor", "/a.json", entry("alpha")),
            config("vscode", "/new.json", entry("gamma")),
        ],
        TABLE,
    )
    d = diff_reports(as_baseline(before), after)
    by = {c.source: c for c in d.configs}
    assert by["/new.json"].matched_by == "unmatched" and by["/new.json"].delta is None
    assert [x.source for x in d.dropped_configs] == ["/gone.json"]
    assert any("not a config that got cheaper" in w for w in d.warnings)


# --------------------------------------------------------------------- kinds


def test_every_server_kind() -> None:
    before_t = {
        "same": tools("s", 2),
        "grow": tools("g", 1),
        "gone": tools("x", 1),
        "dies": tools("d", 2),
        "wakes": Status.AUTH_REQUIRED,
        "never": Status.TIMEOUT,
        "gone-dead": Status.TIMEOUT,
    }
    after_t = {
        "same": tools("s", 2),
        "grow": tools("g", 4),
        "new": tools("n", 1),
        "new-dead": Status.STARTUP_FAILURE,
        "dies": Status.STARTUP_FAILURE,
        "wakes": tools("w", 3),
        "never": Status.TIMEOUT,
    }
    before = run("/c.json", before_t, *before_t)
    after = run("/c.json", after_t, *after_t)
    d = diff_reports(as_baseline(before), after)
    (c,) = d.configs
    kinds = {s.name: s.kind for s in c.servers}
    assert kinds == {
        "same": "unchanged",
        "grow": "changed",
        "gone": "removed",
        "gone-dead": "removed",
        "new": "added",
        "new-dead": "added",
        "dies": "unmeasured-now",
        "wakes": "unmeasured-before",
        "never": "unmeasured-both",
    }
    by = {s.name: s for s in c.servers}
    assert by["new-dead"].delta is None and by["gone-dead"].delta is None
    assert by["gone"].delta is not None and by["gone"].delta < 0
    assert not c.exact
    assert c.understated_by == by["dies"].before
    assert c.overstated_by == by["wakes"].after
    deltas = [abs(s.delta or 0) for s in c.servers]
    assert deltas == sorted(deltas, reverse=True)


def test_a_report_value_is_the_same_baseline_as_its_json_file() -> None:
    """The Action diffs against a report value; ``audit --baseline`` reads the file it wrote."""
    table = {
        "same": tools("s", 2),
        "grow": tools("g", 1),
        "dead": Status.TIMEOUT,
        "walled": Status.AUTH_REQUIRED,
    }
    two = report_for(
        [
            config("cursor", "/a.json", entry("same"), entry("dead")),
            config("explicit", "/b.json", entry("grow"), entry("walled")),
        ],
        table,
    )
    for report in (two, run("/c.json", TABLE, "alpha", "gamma")):
        assert baseline_of_report(report) == as_baseline(report)
    after = run("/a.json", {"same": tools("s", 3), "dead": tools("d", 1)}, "same", "dead")
    assert diff_reports(two, after) == diff_reports(as_baseline(two), after)


def test_a_server_failing_is_never_reported_as_a_saving() -> None:
    before = run("/c.json", TABLE, "alpha", "gamma")
    after = run("/c.json", {**TABLE, "gamma": Status.STARTUP_FAILURE}, "alpha", "gamma")
    d = diff_reports(as_baseline(before), after)
    (c,) = d.configs
    assert c.delta is not None and c.delta < 0 and not c.exact
    text = render_text(after, d)
    assert "Not a clean comparison" in text and "removes" not in text
    assert "true cost is at least" in text


def test_methodology_or_encoding_change_is_not_comparable() -> None:
    before = report_to_json(run("/c.json", TABLE, "alpha"))
    before["methodologyVersion"] = "0.9"
    d = diff_reports(parse_baseline(before), run("/c.json", TABLE, "alpha"))
    assert not d.comparable and any("methodology changed" in w for w in d.warnings)
    before["methodologyVersion"] = "1.0"
    before["encoding"] = "cl100k_base"
    d = diff_reports(parse_baseline(before), run("/c.json", TABLE, "alpha"))
    assert not d.comparable and any("encoding changed" in w for w in d.warnings)


def test_context_window_change_is_only_a_warning() -> None:
    before = report_to_json(run("/c.json", TABLE, "alpha"))
    before["contextWindow"] = 1_000_000
    d = diff_reports(parse_baseline(before), run("/c.json", TABLE, "alpha"))
    assert d.comparable and any("context window changed" in w for w in d.warnings)
