"""Grouping config files into client sessions (pure): who loads what, and who wins a name."""

from __future__ import annotations

from mcpcost.audit.client_sessions import ClientSessionFile, plan_client_sessions


def f(
    client: str, source: str, scope: str, *names: str, local: tuple[str, ...] = ()
) -> ClientSessionFile:
    entries = tuple((n, scope) for n in names) + tuple((n, "local") for n in local)
    return ClientSessionFile(client=client, source=source, scope=scope, entries=entries)


def test_claude_code_local_beats_project_beats_user() -> None:
    (plan,) = plan_client_sessions(
        [
            f("claude-code", "/h/.claude.json", "user", "a", "b", local=("c",)),
            f("claude-code", "/p/.mcp.json", "project", "a", "c", "d"),
        ]
    )
    assert {name: src for src, name in plan.members} == {
        "a": "/p/.mcp.json",
        "b": "/h/.claude.json",
        "c": "/h/.claude.json",
        "d": "/p/.mcp.json",
    }
    assert {(o.name, o.source, o.by) for o in plan.overridden} == {
        ("a", "/h/.claude.json", "/p/.mcp.json"),
        ("c", "/p/.mcp.json", "/h/.claude.json"),
    }
    assert plan.documented and plan.rule_source and plan.label == "Claude Code"


def test_a_managed_claude_file_with_servers_is_exclusive() -> None:
    (plan,) = plan_client_sessions(
        [
            f("claude-code", "/h/.claude.json", "user", "a"),
            f("claude-code", "/p/.mcp.json", "project", "b"),
            f("claude-code", "/etc/claude-code/managed-mcp.json", "managed", "m"),
        ]
    )
    assert plan.members == (("/etc/claude-code/managed-mcp.json", "m"),)
    assert {o.name for o in plan.overridden} == {"a", "b"}
    assert all("only the managed file" in o.why for o in plan.overridden)


def test_vscode_installations_and_profiles_are_separate_sessions_sharing_the_workspace() -> None:
    plans = plan_client_sessions(
        [
            f("vscode", "/c/Code/User/mcp.json", "user", "a"),
            f("vscode", "/c/Code/User/profiles/p1/mcp.json", "user", "b"),
            f("vscode", "/c/Code - Insiders/User/mcp.json", "user", "c"),
            f("vscode", "/w/.vscode/mcp.json", "project", "w"),
        ]
    )
    assert len(plans) == 3 and len({p.key for p in plans}) == 3
    for p in plans:
        assert "/w/.vscode/mcp.json" in p.sources and ("/w/.vscode/mcp.json", "w") in p.members
        assert len(p.sources) == 2
    assert not plans[0].documented  # VS Code documents no order for a shared name


def test_one_vscode_installation_is_one_session() -> None:
    (plan,) = plan_client_sessions(
        [
            f("vscode", "/c/Code/User/mcp.json", "user", "a"),
            f("vscode", "/c/Code/User/settings.json", "user", "b"),
            f("vscode", "/w/.vscode/mcp.json", "project", "a"),
        ]
    )
    assert plan.label == "VS Code" and {n: s for s, n in plan.members}["a"] == "/w/.vscode/mcp.json"
    (lost,) = plan.overridden
    assert "assumed" in lost.why


def test_clients_never_share_a_session_and_unknown_files_stand_alone() -> None:
    plans = plan_client_sessions(
        [
            f("cursor", "/h/.cursor/mcp.json", "user", "a"),
            f("gemini", "/h/.gemini/settings.json", "user", "a"),
            f("explicit", "/x.json", "explicit", "a"),
            f("explicit", "/y.json", "explicit", "a"),
        ]
    )
    assert [p.sources for p in plans] == [
        ("/h/.cursor/mcp.json",),
        ("/h/.gemini/settings.json",),
        ("/x.json",),
        ("/y.json",),
    ]
    assert all(not p.overridden for p in plans)


def test_one_path_read_for_two_clients_joins_each_clients_session() -> None:
    from tests.helpers.audit_builders import TABLE, config, entry, report_for

    shared = "/h/.config/Code/User/settings.json"
    report = report_for(
        [config("vscode", shared, entry("alpha")), config("cline", shared, entry("beta"))], TABLE
    )
    by_client = {s.client: s for s in report.sessions}
    assert [e.server.name for e in by_client["vscode"].servers] == ["alpha"]
    assert [e.server.name for e in by_client["cline"].servers] == ["beta"]
    assert all(c.deferral is not None and c.deferral.client == c.client for c in report.configs)
