"""The client lens reaches every client session of the audit: each known client's session gets
a model view computed from the session's own measured captures; a --config file's does not."""

from __future__ import annotations

from mcpcost.audit.model_view import LoadVerdict
from mcpcost.configs.clients.presentation import ApiShape, FindingKind
from mcpcost.configs.config_file import EXPLICIT
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.tokenizer import count_tokens
from tests.helpers.audit_builders import TABLE, TABLE_TOKENS, config, entry, report_for


def test_every_session_gets_a_model_view_and_an_explicit_file_cannot_be_said() -> None:
    table = {**TABLE, "wide": [{"name": "x" * 70, "inputSchema": {"type": "object"}}]}
    report = report_for(
        [
            config("claude-code", "/home/u/.claude.json", entry("alpha"), entry("wide")),
            config("cursor", "/home/u/.cursor/mcp.json", entry("beta")),
            config("lmstudio", "/home/u/.lmstudio/mcp.json", entry("gamma")),
            config(EXPLICIT, "/tmp/x.json", entry("alpha")),
        ],
        table,
        shell_environ={"ENABLE_TOOL_SEARCH": "false"},
    )
    by_client = {s.client: s for s in report.sessions}
    explicit = by_client[EXPLICIT].model_view  # no client named: its wire definitions
    assert explicit.verdict is LoadVerdict.CANNOT_BE_SAID and not explicit.rules_on_record
    assert explicit.upfront_tokens == explicit.wire_tokens == by_client[EXPLICIT].total_tokens

    claude = by_client["claude-code"].model_view
    assert claude is not None and claude.api_shape is ApiShape.ANTHROPIC
    assert claude.verdict is LoadVerdict.LOADED_UP_FRONT and claude.regime == "tool-search"
    expected = 0
    for key, server in (("alpha", "alpha"), ("wide", "wide")):
        projected = [
            {
                "name": f"mcp__{server}__{t['name']}",
                **({"description": t["description"]} if "description" in t else {}),
                "input_schema": t["inputSchema"],
            }
            for t in table[key]  # type: ignore[union-attr]
        ]
        expected += count_tokens(stringify(projected))
    assert claude.upfront_tokens == expected  # an independent count of the projected payload

    cursor = by_client["cursor"].model_view
    assert cursor is not None and cursor.regime == "dynamic-context-discovery"
    assert cursor.deferred_tokens == TABLE_TOKENS["beta"]

    bare = by_client["lmstudio"].model_view
    assert bare is not None and bare.rules_on_record is False
    assert bare.upfront_tokens == TABLE_TOKENS["gamma"]  # nothing on record: the wire number


def test_findings_land_in_the_session_that_loads_the_server_once_each() -> None:
    table = {**TABLE, "long": [{"name": "n" * 55, "inputSchema": {"type": "object"}}]}
    report = report_for(
        [
            config("cursor", "/home/u/.cursor/mcp.json", entry("thirteen-char", "long")),
            config("codex", "/home/u/.codex/config.toml", entry("beta")),
        ],
        table,
    )
    by_client = {s.client: s for s in report.sessions}
    cursor = by_client["cursor"].model_view
    codex = by_client["codex"].model_view
    assert cursor is not None and codex is not None
    assert [(f.kind, f.server) for f in cursor.findings] == [
        (FindingKind.NAME_TOO_LONG, "thirteen-char")
    ]
    assert codex.findings == ()


def test_the_model_view_is_deterministic() -> None:
    configs = [config("claude-code", "/home/u/.claude.json", entry("alpha"), entry("gamma"))]
    first = report_for(configs, TABLE).sessions[0].model_view
    again = report_for(configs, TABLE).sessions[0].model_view
    assert first == again and first is not None


def test_the_configs_own_tool_filter_keeps_tools_from_the_model_view() -> None:
    from dataclasses import replace

    gamma = [t["name"] for t in TABLE["gamma"]]  # type: ignore[union-attr]
    denied = replace(entry("gamma"), disabled_tools=(gamma[0],))
    allowed = replace(entry("alpha"), enabled_tools=("a_1",))
    report = report_for([config("codex", "/home/u/.codex/config.toml", denied, allowed)], TABLE)
    (session,) = report.sessions
    view = session.model_view
    assert view is not None
    assert sorted(t.tool for t in view.tools) == sorted(["a_1", *gamma[1:]])
    assert session.total_tokens == TABLE_TOKENS["alpha"] + TABLE_TOKENS["gamma"]  # wire unchanged


def test_a_withheld_capture_counts_its_wire_number_where_the_regime_puts_it() -> None:
    """A server whose capture was withheld (it repeated a secret) has a number but no tools the
    lens can see: its wire number is counted up front (or deferred, where the client defers),
    never as zero, so the budget cannot pass on what the lens could not read."""
    from mcpcost.audit.deferral import LoadInputs
    from mcpcost.audit.lens import LensServer, lens
    from mcpcost.configs.clients import presentation_of
    from mcpcost.configs.config_file import ClientName

    unseen = LensServer(name="echo", tools=(), unseen_tokens=1234, wire_tokens=1234)
    up = lens(
        [unseen],
        presentation_of(ClientName("windsurf")),
        LoadInputs(client=ClientName("windsurf"), context_window=200_000),
    )
    assert (up.upfront_tokens, up.deferred_tokens) == (1234, 0)
    names_only = lens(
        [unseen],
        presentation_of(ClientName("cursor")),
        LoadInputs(client=ClientName("cursor"), context_window=200_000),
    )
    assert (names_only.upfront_tokens, names_only.deferred_tokens) == (0, 1234)
