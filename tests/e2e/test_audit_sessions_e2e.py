"""Issue 12's end-to-end proof: a temporary home and project holding user and project files of
several clients, pointing at real pinned servers, audited with real launches. Each client
session is the union of the files that client loads; its total is the sum of the servers it
loads; the client's precedence decides a name declared twice; every session over the budget is
named; a known increase is reported beside the servers whose change is unknown."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpcost.cli import audit_cmd
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring import MeasureOptions, measure_server
from tests.helpers.report_schema import SCHEMA
from tests.servers.registry import real_server_argv

SERVERS = ("memory", "sequential-thinking", "time")
ENV = {"PATH": "/usr/bin:/bin"}


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), "utf-8")


def _stdio(argv: list[str], marker: str) -> dict[str, Any]:
    """An entry whose env marks which file it comes from (so two files' entries of one name are
    two different launches, and the winner is visible in the report)."""
    return {"command": argv[0], "args": argv[1:], "env": {"FROM_FILE": marker}}


def populate(home: Path, cwd: Path, argv: dict[str, list[str]]) -> None:
    mem, seq, time = argv["memory"], argv["sequential-thinking"], argv["time"]
    # Claude Code: user scope and the project's local block in ~/.claude.json, the approvals
    # recorded there, and the project's .mcp.json
    _write(
        home / ".claude.json",
        {
            "mcpServers": {"memory": _stdio(mem, "cc-user"), "time": _stdio(time, "cc-user")},
            "projects": {
                str(cwd): {
                    "mcpServers": {"time": _stdio(time, "cc-local")},
                    "enabledMcpjsonServers": ["thinking"],
                    "disabledMcpjsonServers": ["memory"],
                }
            },
        },
    )
    _write(
        cwd / ".mcp.json",
        {
            "mcpServers": {
                "thinking": _stdio(seq, "cc-project"),
                "time": _stdio(time, "cc-project"),  # local > project: not loaded
                "memory": _stdio(mem, "cc-project"),  # disabled in ~/.claude.json's project block
            }
        },
    )
    # Cursor: global and project; the project entry of a shared name wins
    _write(
        home / ".cursor" / "mcp.json",
        {
            "mcpServers": {
                "memory": _stdio(mem, "cursor-global"),
                "time": _stdio(time, "cursor-global"),
            }
        },
    )
    _write(cwd / ".cursor" / "mcp.json", {"mcpServers": {"time": _stdio(time, "cursor-project")}})
    # Gemini CLI: user and project settings; project > user
    _write(
        home / ".gemini" / "settings.json",
        {
            "theme": "x",
            "mcpServers": {
                "thinking": _stdio(seq, "gemini-user"),
                "time": _stdio(time, "gemini-user"),
            },
        },
    )
    _write(
        cwd / ".gemini" / "settings.json",
        {"mcpServers": {"thinking": _stdio(seq, "gemini-project")}},
    )
    # VS Code: the user profile's mcp.json and the workspace's
    _write(
        home / ".config" / "Code" / "User" / "mcp.json",
        {"servers": {"memory": {"type": "stdio", **_stdio(mem, "vscode-user")}}},
    )
    _write(
        cwd / ".vscode" / "mcp.json",
        {"servers": {"thinking": {"type": "stdio", **_stdio(seq, "vscode-workspace")}}},
    )


@pytest.fixture(scope="module")
def argvs() -> dict[str, list[str]]:
    found = {name: real_server_argv(name) for name in SERVERS}
    missing = [name for name, argv in found.items() if argv is None]
    if missing:
        pytest.skip(f"pinned servers not installed ({missing}); run scripts/setup-test-env.sh")
    return {name: list(argv) for name, argv in found.items() if argv is not None}


@pytest.fixture(scope="module")
def own(argvs: dict[str, list[str]]) -> dict[str, int]:
    """Each server measured on its own, outside the audit."""
    out = {}
    for name, argv in argvs.items():
        m = measure_server(ServerSpec.stdio(name, argv), MeasureOptions(timeout_s=60))
        assert m.total_tokens is not None, m.notes
        out[name] = m.total_tokens
    return out


def audit(home: Path, cwd: Path, *args: str) -> tuple[int, str, str]:
    # the project files are the subject here, so the user consents to running them
    out, err = io.StringIO(), io.StringIO()
    code = audit_cmd.run(
        ["--trust-project", "--concurrency", "3", "--timeout", "60", *args],
        out,
        err,
        environ=ENV,
        home=home,
        cwd=cwd,
        platform="linux",
    )
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory, argvs: dict[str, list[str]]) -> Any:
    root = tmp_path_factory.mktemp("sessions")
    home, cwd = root / "home", root / "shop"
    cwd.mkdir()
    populate(home, cwd, argvs)
    code, out, err = audit(home, cwd, "--json")
    assert code == 0, err
    report = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    return home, cwd, report


KIND = {"memory": "memory", "thinking": "sequential-thinking", "time": "time"}


def _session(report: dict[str, Any], client: str) -> dict[str, Any]:
    (found,) = [s for s in report["sessions"] if s["client"] == client]
    return found


@pytest.mark.slow
def test_each_session_is_the_union_of_its_files_and_totals_its_servers(
    place: Any, own: dict[str, int]
) -> None:
    home, cwd, report = place
    assert {s["client"] for s in report["sessions"]} == {
        "claude-code",
        "cursor",
        "gemini",
        "vscode",
    }
    for s in report["sessions"]:
        assert s["complete"], s["skipped"]
        assert s["totalTokens"] == sum(x["tokens"] for x in s["servers"])
        for x in s["servers"]:  # every member's number is the server's own
            assert x["tokens"] == own[KIND[x["name"]]], (s["client"], x["name"])
        names = [x["name"] for x in s["servers"]]
        assert len(names) == len(set(names)), "a name is loaded once per session"
    cc = _session(report, "claude-code")
    assert set(cc["sources"]) == {str(home / ".claude.json"), str(cwd / ".mcp.json")}
    assert cc["totalTokens"] == own["memory"] + own["time"] + own["sequential-thinking"]
    # the per-file view stays: each config file with its own total
    by_file = {c["source"]: c["totalTokens"] for c in report["configs"]}
    assert by_file[str(home / ".cursor" / "mcp.json")] == own["memory"] + own["time"]
    assert by_file[str(cwd / ".cursor" / "mcp.json")] == own["time"]
    assert _session(report, "cursor")["totalTokens"] == own["memory"] + own["time"]
    vs = _session(report, "vscode")
    assert vs["totalTokens"] == own["memory"] + own["sequential-thinking"] and not vs["overridden"]


@pytest.mark.slow
def test_each_client_decides_a_shared_name_by_its_own_precedence(place: Any) -> None:
    home, cwd, report = place
    claude_json, mcp_json = str(home / ".claude.json"), str(cwd / ".mcp.json")

    def winners(client: str) -> dict[str, str]:
        return {x["name"]: x["source"] for x in _session(report, client)["servers"]}

    def losers(client: str) -> set[tuple[str, str, str]]:
        return {(o["name"], o["source"], o["by"]) for o in _session(report, client)["overridden"]}

    # Claude Code: local (the project block of ~/.claude.json) > project > user
    assert winners("claude-code") == {
        "time": claude_json,
        "memory": claude_json,
        "thinking": mcp_json,
    }
    assert losers("claude-code") == {("time", mcp_json, claude_json)}
    # approvals recorded in ~/.claude.json's project block count like a settings file's
    (mcp,) = [c for c in report["configs"] if c["source"] == mcp_json]
    assert mcp["disabledReasons"] == {"memory": f"disabled in {claude_json}"}
    notes = {x["name"]: x.get("configNotes") for x in mcp["servers"]}
    assert notes["thinking"] is None, "approved in ~/.claude.json's project block"
    assert notes["time"] == [
        "not approved in any settings file: Claude Code asks before loading it"
    ]
    # Cursor: project > global
    cursor_global, cursor_project = (
        str(home / ".cursor" / "mcp.json"),
        str(cwd / ".cursor" / "mcp.json"),
    )
    assert winners("cursor") == {"time": cursor_project, "memory": cursor_global}
    assert losers("cursor") == {("time", cursor_global, cursor_project)}
    # Gemini CLI: project > user
    g_user, g_project = (
        str(home / ".gemini" / "settings.json"),
        str(cwd / ".gemini" / "settings.json"),
    )
    assert winners("gemini") == {"thinking": g_project, "time": g_user}
    assert losers("gemini") == {("thinking", g_user, g_project)}
    for client in ("claude-code", "cursor", "gemini"):
        assert _session(report, client)["precedence"]["documented"] is True
        assert _session(report, client)["precedence"]["source"].startswith("https://")


@pytest.mark.slow
def test_every_session_over_the_budget_is_named_with_its_own_plan(
    place: Any, own: dict[str, int]
) -> None:
    home, cwd, report = place
    totals = sorted(s["totalTokens"] for s in report["sessions"])
    limit = totals[0]  # every session but the lightest is over
    # every definition, deferred or not, as each session's model gets them (the default judges
    # what it loads up front, and Claude Code and Cursor defer theirs)
    code, out, _ = audit(home, cwd, "--budget", str(limit), "--budget-full", "--json")
    assert code == 1
    obj = json.loads(out)
    budget = obj["budget"]
    views = {s["key"]: s["modelView"] for s in obj["sessions"]}
    for s in budget["sessions"]:
        mv = views[s["key"]]
        assert s["judgedTokens"] == mv["upfrontTokens"] + mv["deferredTokens"]
    over = {s["label"] for s in budget["sessions"] if s["over"]}
    assert len(over) == len([s for s in budget["sessions"] if s["judgedTokens"] > limit]) >= 3
    for s in budget["sessions"]:
        if s["over"]:
            assert s["fit"]["feasible"] and s["fit"]["drop"]
    code, text, _ = audit(home, cwd, "--budget", str(limit), "--budget-full")
    assert code == 1
    flat = " ".join(text.split())
    for label in over:
        total = next(s["judgedTokens"] for s in budget["sessions"] if s["label"] == label)
        assert (
            f"{label}'s tool definitions total {total:,} tokens as its model gets them, "
            f"{total - limit:,} over the " in flat
        )
    assert flat.count("Dropping the heaviest servers first") == len(over)


@pytest.mark.slow
def test_a_known_increase_is_the_cause_and_unknowns_follow(
    place: Any, argvs: dict[str, list[str]], own: dict[str, int], tmp_path: Path
) -> None:
    home, cwd, report = place
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(report), "utf-8")
    cursor_project = cwd / ".cursor" / "mcp.json"
    before = cursor_project.read_text("utf-8")
    try:
        _write(
            cursor_project,
            {
                "mcpServers": {
                    "time": _stdio(argvs["time"], "cursor-project"),
                    "thinking": _stdio(argvs["sequential-thinking"], "cursor-project"),
                    "broken": {"command": str(tmp_path / "no-such-server")},
                }
            },
        )
        code, text, err = audit(home, cwd, "--baseline", str(baseline), "--max-increase", "500")
    finally:
        cursor_project.write_text(before, "utf-8")
    assert code == 1, err
    lines = text.splitlines()
    verdicts = [
        i
        for i, x in enumerate(lines)
        if x.removeprefix("  - ").startswith("Increase limit 500 tokens: FAILED")
    ]
    assert len(verdicts) == 2  # once among the things to act on, once before the reasons
    start = verdicts[-1]
    block = " ".join(" ".join(lines[start : start + 12]).split())
    cause = (
        f"{cursor_project}: +{own['sequential-thinking']:,} tokens per request (counting only the "
        "servers measured in both runs), over the 500 allowed."
    )
    assert cause in block
    assert block.index(cause) < block.index("Also unknown, each a reason of its own:")
    assert f"{cursor_project}: broken was added without a number" in block
