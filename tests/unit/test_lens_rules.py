"""Every client-lens rule on record, one test each: a capture that crosses the rule, and the
finding (or the renamed, cut, projected or deferred definition) the lens then gives."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

from mcpcost.audit.deferral import LoadInputs, load_inputs
from mcpcost.audit.lens import LensServer, lens
from mcpcost.audit.model_view import LoadVerdict, ModelView
from mcpcost.configs.clients.presentation import (
    ApiShape,
    DeferralMode,
    Effect,
    FindingKind,
    Presentation,
)
from mcpcost.configs.clients.registry import presentation_of
from mcpcost.configs.config_file import ClientName
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.tokenizer import count_tokens

SERVER13 = "thirteen-char"  # 13 characters, as in the fixtures
assert len(SERVER13) == 13


def tool(name: str, description: str = "Does one thing.", **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
        **extra,
    }


def many(count: int, prefix: str = "t") -> tuple[dict[str, Any], ...]:
    return tuple(tool(f"{prefix}{i}") for i in range(count))


def view(client: str, *servers: LensServer, shell: dict[str, str] | None = None) -> ModelView:
    """The lens over ``servers`` with the client's own deferral verdict (Claude Code's from
    ``shell``; the default shell defers everything)."""
    verdict = load_inputs(
        unmeasured=[],
        client=ClientName(client),
        sources=["cfg"],
        servers=[],
        context_window=200_000,
        shell_environ=shell or {},
        settings=(),
    )
    return lens(list(servers), presentation_of(client), verdict)


def one(name: str, *tools: dict[str, Any], instructions: str | None = None) -> LensServer:
    return LensServer(name=name, tools=tools, instructions=instructions)


def kinds(v: ModelView) -> list[tuple[FindingKind, Effect, str | None]]:
    return [(f.kind, f.effect, f.tool) for f in v.findings]


UPFRONT = {"ENABLE_TOOL_SEARCH": "false"}  # Claude Code with tool search off


# --------------------------------------------------------------------------- Claude Code


def test_claude_code_cuts_a_description_at_2048_characters_with_its_marker() -> None:
    v = view("claude-code", one("s", tool("long", "d" * 2100)), shell=UPFRONT)
    (f,) = v.findings
    assert (f.kind, f.effect, f.limit, f.actual) == (
        FindingKind.DESCRIPTION_TRUNCATED,
        Effect.CUTS,
        2048,
        2100,
    )
    assert v.tools[0].definition["description"] == "d" * 2048 + "… [truncated]"
    assert f.confidence == "documented" and f.source.startswith("https://code.claude.com/")


def test_claude_code_cuts_instructions_and_counts_them_up_front() -> None:
    v = view("claude-code", one("s", tool("a"), instructions="i" * 3000), shell=UPFRONT)
    assert kinds(v) == [(FindingKind.INSTRUCTIONS_TRUNCATED, Effect.CUTS, None)]
    definition = {
        "name": "mcp__s__a",
        "description": "Does one thing.",
        "input_schema": tool("a")["inputSchema"],
    }
    expected = count_tokens(stringify([definition])) + count_tokens("i" * 2048 + "… [truncated]")
    assert v.upfront_tokens == expected and v.deferred_tokens == 0


def test_claude_code_projects_onto_the_anthropic_shape_and_drops_the_rest() -> None:
    full = tool(
        "a",
        title="A",
        outputSchema={"type": "object"},
        annotations={"readOnlyHint": True},
        icons=[{"src": "https://example.test/i.png"}],
        _meta={"k": 1},
    )
    v = view("claude-code", one("s", full), shell=UPFRONT)
    assert v.api_shape is ApiShape.ANTHROPIC
    assert sorted(v.tools[0].definition) == ["description", "input_schema", "name"]
    assert v.findings == ()


def test_claude_code_rewrites_the_server_part_of_the_name() -> None:
    v = view("claude-code", one("my.server", tool("a")), shell=UPFRONT)
    assert v.tools[0].model_name == "mcp__my_server__a"
    assert kinds(v) == [(FindingKind.NAME_INVALID, Effect.RENAMES, "a")]


def test_claude_code_rejects_a_dotted_tool_name() -> None:
    v = view("claude-code", one("s", tool("get.item")), shell=UPFRONT)
    (f,) = v.findings
    assert (f.kind, f.effect, f.actual) == (
        FindingKind.NAME_INVALID,
        Effect.REJECTS,
        "mcp__s__get.item",
    )


def test_claude_code_tool_search_cannot_load_names_over_64_characters() -> None:
    server = one(SERVER13, tool("a" * 55), tool("b" * 40))
    deferred = view("claude-code", server)  # tool search defers everything
    assert deferred.regime == "tool-search"
    (f,) = deferred.findings
    assert (f.kind, f.effect, f.tool, f.limit, f.actual) == (
        FindingKind.NAME_TOO_LONG,
        Effect.DROPS,
        "a" * 55,
        64,
        len(f"mcp__{SERVER13}__" + "a" * 55),
    )
    assert [t.tool for t in deferred.tools] == ["b" * 40]
    assert view("claude-code", server, shell=UPFRONT).findings == ()  # loaded up front: fine


def test_claude_code_leaves_out_a_name_over_128_characters() -> None:
    v = view("claude-code", one("s", tool("x" * 130), tool("ok")), shell=UPFRONT)
    assert kinds(v) == [(FindingKind.NAME_TOO_LONG, Effect.DROPS, "x" * 130)]
    assert [t.tool for t in v.tools] == ["ok"]


def test_claude_code_deferred_tools_leave_their_names_and_the_instructions() -> None:
    v = view("claude-code", one("s", tool("a"), tool("b"), instructions="use me"))
    assert v.regime == "tool-search" and all(t.deferred for t in v.tools)
    names = [{"name": "mcp__s__a"}, {"name": "mcp__s__b"}]
    assert v.upfront_tokens == count_tokens(stringify(names)) + count_tokens("use me")
    assert v.deferred_tokens == count_tokens(stringify([t.definition for t in v.tools]))


def test_claude_code_keeps_an_always_load_server_up_front_when_deferring() -> None:
    pinned = LensServer(name="p", tools=(tool("a"),), always_load=True)
    v = view("claude-code", pinned, one("s", tool("b")))
    assert {t.tool: t.deferred for t in v.tools} == {"a": False, "b": True}


def test_claude_code_names_that_collide_across_two_servers() -> None:
    v = view("claude-code", one("a.b", tool("x")), one("a_b", tool("x")), shell=UPFRONT)
    collisions = [f for f in v.findings if f.kind is FindingKind.NAME_COLLISION]
    assert len(collisions) == 1
    assert (collisions[0].server, collisions[0].tool, collisions[0].actual) == (
        "a_b",
        "x",
        "a.b, a_b",
    )


# --------------------------------------------------------------------------- Cursor


def test_cursor_filters_a_tool_whose_server_and_tool_name_pass_60() -> None:
    v = view("cursor", one(SERVER13, tool("a" * 55), tool("b" * 47)))
    (f,) = v.findings
    assert (f.kind, f.effect, f.limit, f.actual) == (
        FindingKind.NAME_TOO_LONG,
        Effect.DROPS,
        60,
        68,
    )
    assert f.confidence == "reported"
    assert [t.tool for t in v.tools] == ["b" * 47]  # 13 + 47 = 60: kept


def test_cursor_sends_names_only_and_defers_the_definitions() -> None:
    v = view("cursor", one("s", tool("a"), tool("b")))
    assert v.regime == "dynamic-context-discovery" and v.api_shape is None
    assert v.upfront_tokens == count_tokens(stringify([{"name": "a"}, {"name": "b"}]))
    assert v.deferred_tokens == count_tokens(stringify([tool("a"), tool("b")]))


def test_cursor_hides_app_only_tools() -> None:
    app = tool("app", _meta={"ui": {"visibility": ["app"]}})
    both = tool("both", _meta={"ui": {"visibility": ["model", "app"]}})
    v = view("cursor", one("s", app, both))
    assert kinds(v) == [(FindingKind.HIDDEN_FROM_MODEL, Effect.HIDES, "app")]
    assert [t.tool for t in v.tools] == ["both"]


# --------------------------------------------------------------------------- VS Code


def test_vscode_refuses_more_than_128_tools_per_request() -> None:
    v = view("vscode", one("a", *many(70, "a")), one("b", *many(70, "b")))
    (f,) = v.findings
    assert (f.kind, f.effect, f.server, f.limit, f.actual) == (
        FindingKind.TOO_MANY_TOOLS,
        Effect.REJECTS,
        None,
        128,
        140,
    )
    assert "tools picker" in f.fix  # the remedy names VS Code's own tool filter
    assert view("vscode", one("a", *many(128))).findings == ()


def test_vscode_core_set_depends_on_the_model_and_counts_up_front() -> None:
    v = view("vscode", one("s", *many(3)))
    assert (v.regime, v.verdict, v.deferred_tokens) == ("core-set", LoadVerdict.CANNOT_BE_SAID, 0)
    assert v.upfront_tokens == count_tokens(stringify(list(many(3))))


def test_vscode_hides_app_only_tools() -> None:
    v = view("vscode", one("s", tool("app", _meta={"ui": {"visibility": ["app"]}})))
    assert kinds(v) == [(FindingKind.HIDDEN_FROM_MODEL, Effect.HIDES, "app")]


# --------------------------------------------------------------------------- Codex


def test_codex_projects_onto_openai_functions() -> None:
    v = view("codex", one("s", tool("a", outputSchema={"type": "object"})))
    assert v.api_shape is ApiShape.OPENAI_FUNCTION
    assert v.tools[0].definition == {
        "type": "function",
        "name": "mcp__s__a",
        "description": "Does one thing.",
        "strict": False,
        "parameters": tool("a")["inputSchema"],
    }
    assert list(v.tools[0].definition) == ["type", "name", "description", "strict", "parameters"]


def test_codex_defers_at_100_mcp_tools() -> None:
    below = view("codex", one("s", *many(99)))
    at = view("codex", one("s", *many(100)))
    assert (below.verdict, below.deferred_tokens > 0) == (LoadVerdict.LOADED_UP_FRONT, False)
    assert at.verdict is LoadVerdict.DEFERRED and at.regime == "tool-search"
    assert at.upfront_tokens == 0 and at.deferred_tokens > 0


def test_codex_rewrites_characters_and_renames_long_names_itself() -> None:
    v = view("codex", one("thirteenchars", tool("get.item"), tool("a" * 55)))
    assert [(f.kind, f.effect, f.tool) for f in v.findings] == [
        (FindingKind.NAME_TOO_LONG, Effect.RENAMES, "a" * 55),
        (FindingKind.NAME_INVALID, Effect.RENAMES, "get.item"),
    ]
    assert "mcp__thirteenchars__get_item" in [t.model_name for t in v.tools]
    dashed = view("codex", one("my-server", tool("a")))  # '-' is rewritten too
    assert dashed.tools[0].model_name == "mcp__my_server__a"


def test_codex_makes_colliding_names_unique_itself() -> None:
    v = view("codex", one("a.b", tool("x")), one("a_b", tool("x")))
    assert FindingKind.NAME_COLLISION not in [f.kind for f in v.findings]


# --------------------------------------------------------------------------- Gemini CLI


def test_gemini_projects_onto_function_declarations_with_json_schema() -> None:
    v = view("gemini", one("s", tool("a", annotations={"x": 1})))
    assert v.api_shape is ApiShape.GEMINI
    assert v.tools[0].definition == {
        "name": "mcp_s_a",
        "description": "Does one thing.",
        "parametersJsonSchema": tool("a")["inputSchema"],
    }


def test_gemini_keeps_dots_and_rewrites_other_characters() -> None:
    v = view("gemini", one("my server", tool("get.item")))
    assert v.tools[0].model_name == "mcp_my_server_get.item"
    assert kinds(v) == [(FindingKind.NAME_INVALID, Effect.RENAMES, "get.item")]


def test_gemini_shortens_a_name_over_63_with_an_ellipsis() -> None:
    v = view("gemini", one(SERVER13, tool("a" * 55)))
    (f,) = v.findings
    assert (f.kind, f.effect, f.limit) == (FindingKind.NAME_TOO_LONG, Effect.RENAMES, 63)
    name = v.tools[0].model_name
    assert len(name) == 63 and name[30:33] == "..." and name.startswith("mcp_thirteen-char_")


def test_gemini_api_refuses_more_than_512_declarations() -> None:
    v = view("gemini", one("s", *many(513)))
    assert kinds(v) == [(FindingKind.TOO_MANY_TOOLS, Effect.REJECTS, None)]
    assert "excludeTools" in v.findings[0].fix


# --------------------------------------------------------------------------- Windsurf, Copilot CLI


def test_windsurf_caps_a_session_at_100_tools() -> None:
    v = view("windsurf", one("a", *many(60, "a")), one("b", *many(41, "b")))
    (f,) = v.findings
    assert (f.kind, f.effect, f.limit, f.actual) == (
        FindingKind.TOO_MANY_TOOLS,
        Effect.DROPS,
        100,
        101,
    )
    assert view("windsurf", one("a", *many(100))).findings == ()


def test_copilot_cli_defers_at_30_tools() -> None:
    assert view("copilot", one("s", *many(29))).verdict is LoadVerdict.LOADED_UP_FRONT
    v = view("copilot", one("s", *many(30)))
    assert v.verdict is LoadVerdict.DEFERRED and v.upfront_tokens == 0


# --------------------------------------------------------------------------- Claude Desktop, Roo


def test_claude_desktop_projects_onto_anthropic_and_hides_app_only_tools() -> None:
    v = view("claude-desktop", one("s", tool("a"), tool("app", _meta={"ui": {"visibility": []}})))
    assert v.api_shape is ApiShape.ANTHROPIC
    assert kinds(v) == [(FindingKind.HIDDEN_FROM_MODEL, Effect.HIDES, "app")]
    assert v.tools[0].definition == {
        "name": "a",
        "description": "Does one thing.",
        "input_schema": tool("a")["inputSchema"],
    }


def test_roo_builds_its_double_dash_name_and_cuts_it_at_64() -> None:
    v = view("roo", one("my server", tool("get.item")), one(SERVER13, tool("a" * 55)))
    names = {t.tool: t.model_name for t in v.tools}
    assert names["get.item"] == "mcp--my_server--getitem"
    assert names["a" * 55] == f"mcp--{SERVER13}--{'a' * 55}"[:64]
    assert sorted((f.kind, f.effect) for f in v.findings) == [
        (FindingKind.NAME_INVALID, Effect.RENAMES),
        (FindingKind.NAME_TOO_LONG, Effect.RENAMES),
    ]


# --------------------------------------------------------------------------- nothing on record


def test_a_client_with_nothing_on_record_gets_the_wire_definitions() -> None:
    array = (tool("a", outputSchema={"type": "object"}), tool("b"))
    v = view("lmstudio", one("s", *array))
    assert v.rules_on_record is False and v.findings == () and v.api_shape is None
    assert v.regime == DeferralMode.NONE_ON_RECORD
    assert v.upfront_tokens == count_tokens(stringify(list(array)))  # the wire number


# --------------------------------------------------------------------------- Zed, OpenCode (source)


def test_zed_sends_names_as_written_and_cuts_past_64() -> None:
    v = view("zed", one("My.Server", tool("get.item"), tool("c" * 65)))
    assert [t.model_name for t in v.tools] == ["get.item", "c" * 64]
    assert kinds(v) == [(FindingKind.NAME_TOO_LONG, Effect.RENAMES, "c" * 65)]
    twice = view("zed", one("a", tool("echo")), one("b", tool("echo")))
    assert not any(f.kind is FindingKind.NAME_COLLISION for f in twice.findings)


def test_opencode_joins_and_sanitizes_and_hashes_a_long_name() -> None:
    v = view("opencode", one("my.db server", tool("query-all"), tool("q" * 70)))
    short, long = (t.model_name for t in v.tools)
    assert short == "my_db_server_query-all"
    assert len(long) == 64 and long.startswith("my_db_server_" + "q" * 42 + "_")
    clash = view("opencode", one("a.b", tool("t")), one("a b", tool("t")))
    assert any(f.kind is FindingKind.NAME_COLLISION for f in clash.findings)


def test_a_tools_own_always_load_meta_does_not_keep_it_up_front_in_claude_code() -> None:
    pinned_tool = tool("t", _meta={"anthropic/alwaysLoad": True})
    v = view("claude-code", one("s", pinned_tool))
    assert all(t.deferred for t in v.tools)
    server = replace(one("s", tool("t")), always_load=True)
    assert not any(t.deferred for t in view("claude-code", server).tools)


# --------------------------------------------------------------------------- Cline, Continue, Goose


def test_cline_names_server__tool_and_hashes_rewritten_names() -> None:
    plain = view("cline", one("files", tool("read")))
    assert plain.tools[0].model_name == "files__read" and plain.findings == ()
    raw = "my.server__get.item"
    digest = hashlib.sha1(raw.encode(), usedforsecurity=False).hexdigest()[:8]
    v = view("cline", one("my.server", tool("get.item")))
    assert v.tools[0].model_name == f"my_server__get_item_{digest}"
    assert kinds(v) == [(FindingKind.NAME_INVALID, Effect.RENAMES, "get.item")]


def test_cline_cuts_a_long_name_to_64_with_a_hash() -> None:
    v = view("cline", one(SERVER13, tool("a" * 55)))
    (f,) = v.findings
    assert (f.kind, f.effect, f.limit, f.actual) == (
        FindingKind.NAME_TOO_LONG,
        Effect.RENAMES,
        64,
        13 + 2 + 55,
    )
    assert len(v.tools[0].model_name) == 64


def test_continue_prefixes_a_lowercased_server_name_unless_the_tool_has_it() -> None:
    v = view("continue", one("My Server!", tool("read"), tool("my_server_write")))
    assert [t.model_name for t in v.tools] == ["my_server_read", "my_server_write"]
    (f,) = v.findings  # one per server: both names differ from the plain template
    assert (f.kind, f.effect, f.tool, f.actual) == (
        FindingKind.NAME_INVALID,
        Effect.RENAMES,
        None,
        2,
    )
    assert "2 tools" in f.rule


def test_goose_normalizes_the_extension_name_and_hides_app_only_tools() -> None:
    v = view(
        "goose", one("My Ext.v2", tool("run"), tool("ui", _meta={"ui": {"visibility": ["app"]}}))
    )
    assert [t.model_name for t in v.tools] == ["myext_v2__run"]
    assert kinds(v) == [
        (FindingKind.NAME_INVALID, Effect.RENAMES, "run"),
        (FindingKind.HIDDEN_FROM_MODEL, Effect.HIDES, "ui"),
    ]


def test_a_filter_that_leaves_the_definition_in_context_is_not_offered_as_a_remedy() -> None:
    claude = presentation_of("claude-code").tool_filter
    assert claude is not None and claude.removes_definition is False
    cap = presentation_of("vscode").tool_limits[0]
    with_claude_filter = Presentation(tool_limits=(cap,), tool_filter=claude)
    v = lens(
        [one("s", *many(129))],
        with_claude_filter,
        LoadInputs(client=ClientName("x"), context_window=200_000),
    )
    assert claude.how not in v.findings[0].fix


def test_the_measured_wire_number_is_reused_only_for_unchanged_tools() -> None:
    array = (tool("a", outputSchema={"type": "object"}), tool("b"))
    wire = count_tokens(stringify(list(array)))
    server = LensServer(name="s", tools=array, wire_tokens=wire)
    assert view("lmstudio", server).upfront_tokens == wire
    desktop = view("claude-desktop", server)
    projected = [t.definition for t in desktop.tools]
    assert desktop.upfront_tokens == count_tokens(stringify(projected)) != wire


def test_claude_desktop_refuses_a_dotted_or_long_tool_name() -> None:
    v = view("claude-desktop", one("s", tool("get.item"), tool("m" * 65), tool("ok")))
    assert sorted((f.kind, f.effect, f.tool) for f in v.findings) == [
        (FindingKind.NAME_INVALID, Effect.REJECTS, "get.item"),
        (FindingKind.NAME_INVALID, Effect.REJECTS, "m" * 65),
    ]
    assert all(f.confidence == "reported" for f in v.findings)


# --------------------------------------------------------------------------- every client


def test_every_client_reports_a_tool_name_with_invisible_characters() -> None:
    from mcpcost.configs.clients.registry import KNOWN_CLIENTS

    tagged = "read_file" + "".join(chr(0xE0000 + ord(c)) for c in "rm")
    names = ["read\u200bfile", "read_file\u2060", tagged, "list\u202eelif", "plain_name"]
    for client in KNOWN_CLIENTS:
        v = view(client, one("files", *(tool(n) for n in names)), shell=UPFRONT)
        found = [f for f in v.findings if f.kind is FindingKind.NAME_INVISIBLE]
        assert sorted(str(f.tool) for f in found) == sorted(names[:4]), client
        assert {f.effect for f in found} == {Effect.DISGUISES}
        shown = {f.tool: f.actual for f in found}
        assert shown[tagged] == "read_file\\udb40\\udc72\\udb40\\udc6d"
        assert shown["read\u200bfile"] == "read\\u200bfile"
