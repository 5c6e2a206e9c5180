"""The overview's lines to act on (issue 25 items 1 and 5): each ends with its fix in the
client's own terms, a deferring session gets none, a consent note is whole at any width, and a
server several clients load is listed once with them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcpcost.configs.clients import presentation_of
from mcpcost.configs.discovery import UNTRUSTED_PROJECT
from mcpcost.render.session_lines import shared_servers
from mcpcost.render.text_overview import act_on, remedy
from mcpcost.render.text_report import render_text
from tests.helpers.audit_builders import TABLE, config, entry, report_for, tools

T: dict[str, Any] = {**TABLE, "big": tools("g", 12, 9), "small": tools("s", 1, 1)}


def _session(report: Any, label: str) -> Any:
    return next(s for s in report.sessions if s.label == label)


def test_one_server_most_of_a_session_is_the_server_to_drop() -> None:
    report = report_for(
        [config("gemini", "/home/ana/.gemini/settings.json", entry("big"), entry("small"))],
        T,
        shell_environ={},
        settings={},
    )
    line = remedy(_session(report, "Gemini CLI"))
    assert line is not None and line.startswith("Gemini CLI: big is ")
    assert line.endswith("fix: drop server big from its config if you do not use it.")


def test_a_few_heavy_tools_are_switched_off_the_clients_own_way() -> None:
    report = report_for(
        [config("gemini", "/home/ana/.gemini/settings.json", entry("alpha"))],
        T,
        shell_environ={},
        settings={},
    )
    rule = presentation_of("gemini").tool_filter
    assert rule is not None
    line = remedy(_session(report, "Gemini CLI"))
    assert line is not None and line.endswith(f"fix: switch them off with {rule.how}.")


def test_claude_codes_remedy_offers_only_what_saves_tokens() -> None:
    """Claude Code's deny rules leave a tool's definition in context: the one sentence offers
    dropping the server, not the rule."""
    report = report_for(
        [config("claude-code", "/home/ana/.claude.json", entry("alpha"))],
        T,
        shell_environ={"ENABLE_TOOL_SEARCH": "false"},
        settings={},
    )
    line = remedy(_session(report, "Claude Code"))
    assert line is not None and line.startswith("Claude Code: ")
    fix = line.split("fix: ", 1)[1]
    assert fix.startswith("drop server alpha (") and fix.endswith(".")
    assert "deny" not in line and "permission" not in line and "." not in fix[:-1]


def test_a_session_that_defers_its_definitions_gets_no_advice() -> None:
    report = report_for(
        [config("claude-code", "/home/ana/.claude.json", entry("big"), entry("small"))],
        T,
        shell_environ={},
        settings={},
    )
    assert remedy(_session(report, "Claude Code")) is None


def test_the_consent_note_is_whole_at_the_narrowest_width() -> None:
    project = replace(
        config("cursor", "/work/shop/.cursor/mcp.json", entry("alpha")), scope="project"
    )
    held = replace(
        project,
        entries=tuple(replace(e, spec=None, problem=UNTRUSTED_PROJECT) for e in project.entries),
    )
    report = report_for([held], T, shell_environ={}, settings={})
    assert any(UNTRUSTED_PROJECT in line for line in act_on(report, None))
    text = render_text(report, width=60)
    flat = " ".join(text.split())
    assert flat.count(UNTRUSTED_PROJECT) == 2  # to act on, and in the session's block
    assert "…" not in text
    assert all(len(line) <= 60 or " " not in line.strip() for line in text.splitlines())


def test_a_server_several_clients_load_is_listed_once_with_them() -> None:
    report = report_for(
        [
            config("cursor", "/home/ana/.cursor/mcp.json", entry("alpha"), entry("beta")),
            config("gemini", "/home/ana/.gemini/settings.json", entry("alpha")),
            config("codex", "/home/ana/.codex/config.toml", entry("alpha")),
        ],
        T,
        shell_environ={},
        settings={},
    )
    lines = shared_servers(report)
    assert lines[0].startswith("servers loaded by more than one client")
    (alpha,) = lines[1:]
    assert alpha.startswith("  alpha (") and alpha.endswith(
        ": Codex, Gemini CLI, Cursor"
    )  # heaviest up front first
