"""The author's gate file (parsing, unknown keys) and its verdicts on snapshot checks."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpcost.audit.model_view import LensFinding
from mcpcost.author.budget_gates import GateRule, evaluate_gates
from mcpcost.author.gate_file import Gates, parse_gate_file
from mcpcost.author.snapshot import (
    ProfileSnapshot,
    SnapshotFile,
    check_profiles,
    parse_snapshot,
    render_snapshot,
)
from mcpcost.author.snapshot_run import profile_range
from mcpcost.configs.clients.presentation import Confidence, Effect, FindingKind
from mcpcost.core.attribution import tool_entry
from mcpcost.core.badge import compact_thousands as thousands
from mcpcost.core.bands import band_for
from mcpcost.core.measure import measure_tools
from mcpcost.errors import InputError


def _tool(name: str, words: int) -> dict[str, Any]:
    return {
        "name": name,
        "description": "word " * words,
        "inputSchema": {"type": "object", "properties": {}},
    }


def _profile(tools: list[dict[str, Any]], name: str = "default") -> ProfileSnapshot:
    m = measure_tools(tools)
    return ProfileSnapshot(
        profile=name,
        server="srv",
        total_tokens=m.total_tokens,
        tool_count=len(tools),
        canonical_sha256=m.canonical.sha256,
        instructions=None,
        listings={},
        tools=tuple(tool_entry(t) for t in tools),
    )


def _file(*profiles: ProfileSnapshot) -> SnapshotFile:
    return SnapshotFile(
        methodology_version="1.0", encoding="o200k_base", tool_version="t", profiles=profiles
    )


def test_the_gate_file_reads_every_key() -> None:
    gf = parse_gate_file(
        """
snapshot = "cost.json"
floor = 5
[server]
command = ["python", "server.py"]
env = { MODE = "demo" }
[profiles.small]
args = ["--read-only"]
[profiles.all]
env = { TOOLSETS = "all" }
[gates]
max-total-tokens = 8000
max-tool-count = 40
no-new-tools = true
no-removed-tools = true
max-growth-tokens = 500
max-growth-percent = 10
max-tool-growth-tokens = 200
limit-drops = true
clients = ["claude-code"]
[gates.tool-budgets]
"search_*" = 600
"*" = 1500
""",
        "mcpcost.toml",
    )
    assert gf is not None
    assert gf.snapshot == "cost.json" and gf.floor == 5
    assert gf.server is not None and gf.server.command == ("python", "server.py")
    assert [p.name for p in gf.profiles] == ["small", "all"]
    assert gf.gates.tool_budgets == (("search_*", 600), ("*", 1500))
    assert gf.gates.needs_snapshot and gf.gates.limit_drops
    assert gf.gates.clients == ("claude-code",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("budget = 1\n", "mcpcost.toml: unknown key 'budget'"),
        ("[gates]\nmax-tokens = 1\n", "mcpcost.toml: gates: unknown key 'max-tokens'"),
        ("[server]\ncommand = ['x']\nshell = true\n", "mcpcost.toml: server: unknown key 'shell'"),
        ("[profiles.a]\nargs = 'x'\n", "mcpcost.toml: profiles.a.args: must be an array"),
        ("[gates]\nmax-tool-count = -1\n", "mcpcost.toml: gates.max-tool-count: must be a whole"),
        ("[server]\n", "mcpcost.toml: server: give either command"),
        ("[gates\n", "mcpcost.toml: not TOML"),
    ],
)
def test_a_wrong_gate_file_is_one_line_naming_the_key(text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_gate_file(text, "mcpcost.toml")
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_pyproject_is_read_from_its_tool_table_only() -> None:
    assert parse_gate_file('[project]\nname = "x"\n', "pyproject.toml", pyproject=True) is None
    gf = parse_gate_file(
        "[tool.mcpcost.gates]\nmax-tool-count = 3\n", "pyproject.toml", pyproject=True
    )
    assert gf is not None and gf.gates.max_tool_count == 3
    with pytest.raises(InputError, match=r"^pyproject.toml: tool.mcpcost.gates: unknown key"):
        parse_gate_file("[tool.mcpcost.gates]\nnope = 3\n", "pyproject.toml", pyproject=True)


def test_the_snapshot_text_reads_back_to_the_same_value_and_bytes() -> None:
    s = _file(_profile([_tool("a", 3), _tool("b", 9)]), _profile([_tool("a", 3)], "small"))
    text = render_snapshot(s)
    again = parse_snapshot(text, "f")
    assert render_snapshot(again) == text
    assert again.to_dict() == s.to_dict()
    with pytest.raises(InputError, match="unknown key 'extra'"):
        parse_snapshot(text.replace('{"name":"b",', '{"extra":1,"name":"b",'), "f")


def _verdict(gates: Gates, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> set[Any]:
    checks = check_profiles(_file(_profile(before)), [_profile(after)], floor=10)
    return {(f.rule, f.tool) for f in evaluate_gates(gates, checks, {})}


def test_each_rule_says_no_for_its_own_reason_and_passes_otherwise() -> None:
    before = [_tool("search_a", 10), _tool("gone", 5)]
    after = [_tool("search_a", 300), _tool("fresh", 6)]  # not "gone" renamed
    said = _verdict(
        Gates(
            max_total_tokens=100,
            max_tool_count=1,
            no_new_tools=True,
            no_removed_tools=True,
            max_growth_tokens=50,
            max_growth_percent=10,
            max_tool_growth_tokens=100,
            tool_budgets=(("search_*", 200), ("*", 10_000)),
        ),
        before,
        after,
    )
    assert said == {
        (GateRule.MAX_TOTAL_TOKENS, None),
        (GateRule.MAX_TOOL_COUNT, None),
        (GateRule.NO_NEW_TOOLS, "fresh"),
        (GateRule.NO_REMOVED_TOOLS, "gone"),
        (GateRule.MAX_GROWTH_TOKENS, None),
        (GateRule.MAX_GROWTH_PERCENT, None),
        (GateRule.MAX_TOOL_GROWTH_TOKENS, "search_a"),
        (GateRule.TOOL_BUDGETS, "search_a"),
    }
    loose = Gates(max_total_tokens=10_000, max_growth_tokens=10_000, tool_budgets=(("*", 9999),))
    assert _verdict(loose, before, after) == set()


def test_drops_pass_the_growth_limits_unless_limit_drops() -> None:
    before, after = [_tool("t", 400)], [_tool("t", 10)]
    assert _verdict(Gates(max_growth_tokens=50, max_tool_growth_tokens=50), before, after) == set()
    assert _verdict(
        Gates(max_growth_tokens=50, max_tool_growth_tokens=50, limit_drops=True), before, after
    ) == {(GateRule.MAX_GROWTH_TOKENS, None), (GateRule.MAX_TOOL_GROWTH_TOKENS, "t")}


def _finding(effect: Effect) -> LensFinding:
    return LensFinding(
        kind=FindingKind.DESCRIPTION_TRUNCATED,
        effect=effect,
        server="srv",
        tool="t",
        limit=2048,
        actual=3000,
        rule="cut at 2,048",
        fix="trim",
        source="https://example.invalid/doc",
        date="2026-12-01",
        confidence=Confidence.DOCUMENTED,
    )


def test_client_findings_fail_only_when_the_client_cuts_drops_or_rejects() -> None:
    checks = check_profiles(_file(), [_profile([_tool("t", 3)])], floor=10)
    found = {"default": [("Claude Code", _finding(Effect.CUTS)), ("X", _finding(Effect.RENAMES))]}
    [failure] = evaluate_gates(Gates(clients=("claude-code",)), checks, found)
    assert failure.rule is GateRule.CLIENTS and failure.tool == "t"
    assert failure.message.startswith("Claude Code cuts t: cut at 2,048")


def test_the_range_names_the_profile_at_each_end() -> None:
    small = _profile([_tool("a", 3)], "read-only")
    big = _profile([_tool("a", 3), _tool("b", 3000)], "all")
    r = profile_range([big, small])
    assert r is not None
    assert (r.low.profile, r.high.profile) == ("read-only", "all")
    assert r.words == (
        f"{thousands(small.total_tokens)}-{thousands(big.total_tokens)} tokens (read-only - all)"
    )
    assert profile_range([small]) is None
    badge = json.loads(r.badge)
    assert badge["message"] == r.words.split(" (")[0]  # "42-3.1k tokens"
    assert badge["color"] == band_for(big.total_tokens).color
    assert (thousands(842), thousands(1940), thousands(8449), thousands(12_400)) == (
        "842",
        "1.9k",
        "8.4k",
        "12k",
    )
