"""Unknowns the change did not cause do not fail the change (issue 25, item 3): the gate table.

Configs are written as text and parsed as discovery parses them (so each entry carries the launch
its file writes, ``DeclaredLaunch``); the baseline goes through its JSON file, as ``--baseline``
reads it. A server measured in neither run and launched the same way is a known unknown: carried
over, reported, not failed. One that changed, appeared, crossed the measured line, names no
launch, or whose baseline records none still fails. The Action's verdict over the same audits is
in ``tests/action/test_action_known_unknowns.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpcost.audit.baseline import parse_baseline
from mcpcost.audit.diff import LaunchMatch, diff_reports
from mcpcost.audit.gates import Gate, GateResult, evaluate_gates
from mcpcost.configs.clients import ParseContext
from mcpcost.configs.clients.registry import parse_config
from mcpcost.configs.config_file import ClientName, ConfigFile, Scope
from mcpcost.configs.discovery import consent
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.spec import DeclaredLaunch, TransportName
from mcpcost.core.status import Status
from mcpcost.render.json_report import report_to_json
from mcpcost.render.markdown_report import render_markdown
from mcpcost.render.text_report import render_text
from tests.helpers.audit_builders import report_for, tools

SOURCE = "/work/shop/.mcp.json"
KEY = "sk-live-0123456789abcdefghijklmnop"
# measured by the last argument: "keyed" and "remote" never start without their key here
TABLE: dict[str, Any] = {
    "notes": tools("n", 3, 6),
    "heavy": tools("h", 8, 12),
    "keyed": Status.AUTH_REQUIRED,
    "crashy": Status.STARTUP_FAILURE,
    "https://mcp.example.test/mcp": Status.AUTH_REQUIRED,
}


def servers(**extra: Any) -> dict[str, Any]:
    """The project's servers: one measured, one key-gated by an unset variable, one that fails
    without its key, one remote behind auth; ``extra`` adds or replaces entries."""
    base: dict[str, Any] = {
        "notes": {"command": "node", "args": ["notes"]},
        "brave": {"command": "npx", "args": ["keyed"], "env": {"BRAVE_API_KEY": "${BRAVE_KEY}"}},
        "github": {"command": "npx", "args": ["--token", KEY, "keyed"], "env": {"GH": "x"}},
        "remote": {"type": "http", "url": "https://mcp.example.test/mcp", "headers": {"X": "1"}},
    }
    base.update(extra)
    return {k: v for k, v in base.items() if v is not None}


def parsed(entries: dict[str, Any], environ: dict[str, str] | None = None) -> ConfigFile:
    context = ParseContext(environ=environ or {}, home="/home/ana", cwd="/work/shop")
    text = json.dumps({"mcpServers": entries})
    return parse_config(
        ClientName("claude-code"), SOURCE, text, context=context, scope=Scope.PROJECT
    )


def report(entries: dict[str, Any], environ: dict[str, str] | None = None) -> Any:
    return report_for([parsed(entries, environ)], TABLE)


def from_disk(r: Any) -> Any:
    return parse_baseline(json.loads(stringify(report_to_json(r))))


def judged(before: Any, after: Any, **gates: Any) -> GateResult:
    diff = diff_reports(from_disk(before), after)
    return evaluate_gates(after, diff, **({"max_increase": 1000} | gates))


def carried(g: GateResult) -> list[str]:
    return sorted(f.server or "" for f in g.known_unknowns)


def unknown(g: GateResult) -> list[str]:
    return sorted(f.server or "" for f in g.findings if f.gate is Gate.UNMEASURED)


# --------------------------------------------------------------------- the gate table

UNKNOWNS = ["brave", "github", "remote"]

CASES: list[tuple[str, dict[str, Any], dict[str, Any], bool, list[str], list[str], str]] = [
    # (case, before extra, after extra, passes, carried over, failing unknowns, a reason's words)
    ("unchanged config, three unknowns", {}, {}, True, UNKNOWNS, [], ""),
    (
        "an unknown's arguments changed",
        {},
        {"brave": {"command": "npx", "args": ["keyed", "--v2"], "env": {"BRAVE_API_KEY": "k"}}},
        False,
        ["github", "remote"],
        ["brave"],
        "its launch changed (args)",
    ),
    (
        "an unknown's env names changed",
        {},
        {"github": {"command": "npx", "args": ["--token", KEY, "keyed"], "env": {"GH2": "x"}}},
        False,
        ["brave", "remote"],
        ["github"],
        "its launch changed (env)",
    ),
    (
        "an unknown's env value changed, names the same",
        {},
        {"github": {"command": "npx", "args": ["--token", KEY, "keyed"], "env": {"GH": "y"}}},
        True,
        UNKNOWNS,
        [],
        "",
    ),
    (
        "a remote unknown's header names changed",
        {},
        {"remote": {"type": "http", "url": "https://mcp.example.test/mcp", "headers": {"Y": "1"}}},
        False,
        ["brave", "github"],
        ["remote"],
        "its launch changed (headers)",
    ),
    (
        "an unmeasurable server added",
        {},
        {"crash": {"command": "node", "args": ["crashy"]}},
        False,
        UNKNOWNS,
        ["crash"],
        "was added without a number",
    ),
    (
        "a measured server stopped measuring",
        {"x": {"command": "node", "args": ["heavy"]}},
        {"x": {"command": "node", "args": ["crashy"]}},
        False,
        UNKNOWNS,
        ["x"],
        "in one run and not the other",
    ),
    (
        "an unknown started measuring",
        {"x": {"command": "node", "args": ["crashy"]}},
        {"x": {"command": "node", "args": ["heavy"]}},
        False,
        UNKNOWNS,
        ["x"],
        "in one run and not the other",
    ),
    (
        "an unknown removed",
        {},
        {"brave": None},
        True,
        ["github", "remote"],
        [],
        "",
    ),
]


@pytest.mark.parametrize(
    ("before_x", "after_x", "passes", "carried_over", "failing", "words"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_the_increase_gate_table(
    before_x: dict[str, Any],
    after_x: dict[str, Any],
    passes: bool,
    carried_over: list[str],
    failing: list[str],
    words: str,
) -> None:
    g = judged(report(servers(**before_x)), report(servers(**after_x)))
    assert g.passed is passes, g.reasons
    assert carried(g) == carried_over
    assert unknown(g) == failing
    if words:
        assert any(words in r for r in g.reasons), g.reasons
    # a known unknown is never a reason, and always says what it is
    assert all(f.gate is Gate.KNOWN_UNKNOWN and "known unknown" in f.text for f in g.known_unknowns)
    assert not {f.text for f in g.known_unknowns} & set(g.reasons)


def test_an_increase_over_the_limit_still_fails_beside_known_unknowns() -> None:
    before = report(servers())
    after = report(servers(heavy={"command": "node", "args": ["heavy"]}))
    g = judged(before, after, max_increase=10)
    assert not g.passed and carried(g) == UNKNOWNS
    (cause,) = g.findings
    assert cause.gate is Gate.INCREASE and "over the 10 allowed" in cause.text
    assert "counting only the servers measured in both runs" in cause.text


def test_a_key_given_in_the_environment_moves_the_value_not_the_launch() -> None:
    """The key's value reaches the launch through ${BRAVE_KEY}: set or changed, the declared
    launch is the same, and once set the server is just unresolved no more."""
    before = report(servers(), environ={})
    after = report(servers(), environ={"BRAVE_KEY": "one"})
    (c,) = after.configs
    brave = next(s for s in c.skipped if s.name == "brave")
    assert brave.status == "auth-required"  # launched now; the fixture table refuses it
    g = judged(before, after)
    assert g.passed and carried(g) == UNKNOWNS


def test_an_unapproved_project_file_is_a_known_unknown_while_it_stays_unapproved() -> None:
    cf = consent(parsed(servers()), trusted=False)
    before, after = report_for([cf], TABLE), report_for([cf], TABLE)
    statuses = {s.name: s.status for s in after.configs[0].skipped}
    assert statuses == {
        "brave": "unresolved",  # its key's variable is unset
        "github": "not-launchable",  # kept from launching: not approved here
        "notes": "not-launchable",
        "remote": "not-launchable",
    }
    g = judged(before, after)
    assert g.passed and carried(g) == ["brave", "github", "notes", "remote"]


def test_a_baseline_that_records_no_launch_cannot_carry_an_unknown() -> None:
    """The reference project's report (and ours before ``launch``) names the server and its
    status, not how it was launched: the unknown fails, saying how to fix it."""
    before = report_to_json(report(servers()))
    for c in before["configs"]:
        for s in c["servers"] + c["skipped"]:
            s.pop("launch")
    after = report(servers())
    diff = diff_reports(parse_baseline(before), after)
    g = evaluate_gates(after, diff, max_increase=1000)
    assert not g.passed and carried(g) == [] and unknown(g) == UNKNOWNS
    assert all("record the baseline again" in r for r in g.reasons)
    assert {s.launch for c in diff.configs for s in c.servers} == {LaunchMatch.NOT_RECORDED}


def test_fail_on_unmeasured_fails_known_unknowns_too() -> None:
    before, after = report(servers()), report(servers())
    g = judged(before, after, require_measured=True)
    assert not g.passed and g.known_unknowns == ()
    assert sorted((f.gate, f.server) for f in g.findings) == [
        (Gate.KNOWN_UNKNOWN, n) for n in UNKNOWNS
    ]
    # without an increase gate the diff still tells a carried unknown from a new one (the
    # Action's require-measured run sorts them by kind)
    grown = report(servers(crash={"command": "x", "args": ["crashy"]}))
    strict = evaluate_gates(grown, diff_reports(from_disk(before), grown), require_measured=True)
    assert sorted((f.gate, f.server) for f in strict.findings) == [
        *((Gate.KNOWN_UNKNOWN, n) for n in UNKNOWNS),
        (Gate.UNMEASURED, "crash"),
    ]


def test_a_touched_launch_is_not_carried() -> None:
    """What the Action knows from git: the launch is written the same but names a changed file."""
    before, after = report(servers()), report(servers())
    diff = diff_reports(from_disk(before), after, touched=[(SOURCE, "github")])
    g = evaluate_gates(after, diff, max_increase=1000)
    assert not g.passed and carried(g) == ["brave", "remote"] and unknown(g) == ["github"]
    assert any("names files this change modified" in r for r in g.reasons)


# --------------------------------------------------------------------- the launch identity


def test_the_declared_launch_holds_no_secret_value() -> None:
    cf = parsed(servers(), environ={"BRAVE_KEY": KEY})
    doc = stringify(report_to_json(report_for([cf], TABLE)))
    assert KEY not in doc
    launches = {e.name: e.declared for e in cf.entries}
    assert launches["brave"] == DeclaredLaunch(
        transport=TransportName.STDIO, command="npx", args=("keyed",), env_names=("BRAVE_API_KEY",)
    )
    github = launches["github"]
    assert github is not None and KEY not in github.args and github.env_names == ("GH",)
    remote = launches["remote"]
    assert remote is not None and remote.header_names == ("X",) and remote.command is None


def test_differences_name_each_part_in_config_order() -> None:
    a = DeclaredLaunch.written(TransportName.STDIO, command="npx", args=["a"], env_names=["B", "A"])
    assert a.env_names == ("A", "B") and a.differences(a) == ()
    b = DeclaredLaunch.written(TransportName.STDIO, command="uvx", args=["b"], cwd="/x")
    assert b.differences(a) == ("command", "args", "env", "cwd")


# --------------------------------------------------------------------- what the reader sees


def test_every_output_reports_the_known_unknowns() -> None:
    before, after = report(servers()), report(servers())
    diff = diff_reports(from_disk(before), after)
    g = evaluate_gates(after, diff, max_increase=1000)
    text = render_text(after, diff, g, width=100)
    assert (
        "Increase limit 1,000 tokens: passed; nothing grew; 3 known unknowns carried over." in text
    )
    assert "Carried over, not failed" in text and "FAILED" not in text
    assert "Known unknowns, carried over: brave, github, remote" in text
    md = render_markdown(after, diff, g)
    assert "**Gates passed.**" in md and "Known unknowns, carried over (not failed)" in md
    doc = report_to_json(after, diff, g)
    assert doc["increaseGate"]["pass"] is True
    assert [k["server"] for k in doc["increaseGate"]["knownUnknowns"]] == UNKNOWNS
    assert [k["server"] for k in doc["gates"]["knownUnknowns"]] == UNKNOWNS
    kinds = {s["name"]: s for s in doc["diff"]["configs"][0]["servers"]}
    assert kinds["brave"]["knownUnknown"] is True and kinds["brave"]["launch"] == "same"
    assert "knownUnknown" not in kinds["notes"]
