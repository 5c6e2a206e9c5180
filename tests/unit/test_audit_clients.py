"""Parsing each client's config format: entries, transports, filters, JSONC, wrong types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpcost.configs.clients import ParseContext, detect_dialect, parse_config
from mcpcost.configs.config_file import ConfigEntry, ConfigFile, ConfigState
from mcpcost.configs.jsonc import key_lines, parse_jsonc, strip_jsonc
from mcpcost.core.spec import ServerSpec
from mcpcost.errors import JSONSyntaxError
from tests.helpers.client_homes import CONFIGS

ENV = {
    "API_KEY": "api-key-value",
    "FIGMA_TOKEN": "figma-value",
    "FIGMA_OAUTH_TOKEN": "figma-oauth",
    "DB_CONNECTION_STRING": "postgres://db",
    "EXTERNAL_API_KEY": "ext",
    "GEMINI_MCP_TOKEN": "gm",
    "NOTES_TOKEN": "nt",
    "CONTEXT7_API_KEY": "c7",
    "FS_MODE": "ro",
    "CTX_TOKEN": "ctx",
}
CTX = ParseContext(environ=ENV, home="/home/me", cwd="/work/proj")


def parse(client: str, fixture: str, ctx: ParseContext = CTX) -> ConfigFile:
    text = (CONFIGS / fixture).read_text(encoding="utf-8").replace("__PROJECT__", ctx.cwd)
    return parse_config(client, str(CONFIGS / fixture), text, context=ctx)


def entry(cf: ConfigFile, name: str) -> ConfigEntry:
    (found,) = [e for e in cf.entries if e.name == name]
    return found


def spec(cf: ConfigFile, name: str) -> ServerSpec:
    s = entry(cf, name).spec
    assert s is not None, entry(cf, name).problem
    return s


# ---------------------------------------------------------------- per client


def test_claude_desktop_exact_argv_env_and_remote_rejected() -> None:
    cf = parse("claude-desktop", "claude_desktop_config.json")
    fs = spec(cf, "filesystem")
    assert fs.argv == (
        "npx",
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/Users/me/Desktop",
        "/Users/me/My Documents",
    )
    assert spec(cf, "github").env_names == ("GITHUB_PERSONAL_ACCESS_TOKEN",)
    linear = entry(cf, "linear")
    assert linear.spec is None and "does not load url entries" in (linear.problem or "")
    assert [e.line for e in cf.entries] == [3, 7, 12]


def test_claude_code_user_and_project_blocks_with_always_load() -> None:
    cf = parse("claude-code", "claude.json")
    assert [e.name for e in cf.entries] == ["memory", "sentry", "postgres"]
    assert spec(cf, "memory").transport == "stdio"
    sentry = spec(cf, "sentry")
    assert (sentry.transport, sentry.url) == ("http", "https://mcp.sentry.dev/mcp")
    assert entry(cf, "postgres").always_load
    assert not entry(cf, "memory").always_load
    assert entry(cf, "postgres").line == 24  # line of the key inside projects[<cwd>]


def test_claude_code_project_file_defaults_and_headers() -> None:
    cf = parse("claude-code", "dot-mcp.json")
    api = spec(cf, "api-server")
    assert (api.transport, api.url) == ("sse", "https://api.example.com/sse")
    assert dict(api.headers) == {"Authorization": "Bearer api-key-value"}
    assert entry(cf, "everything").always_load


def test_claude_code_local_entry_overrides_user_entry() -> None:
    text = (
        '{"mcpServers": {"a": {"command": "user"}},'
        ' "projects": {"/work/proj": {"mcpServers": {"a": {"command": "local"}}}}}'
    )
    cf = parse_config("claude-code", "~/.claude.json", text, context=CTX)
    assert [s.argv for s in (e.spec for e in cf.entries) if s] == [("local",)]
    assert cf.problems == ("server 'a': the project entry overrides the user entry",)


@pytest.mark.parametrize(
    ("platform", "key", "matches"),
    [
        ("linux", "/work/proj/", True),
        ("linux", "/Work/Proj", False),  # case matters on Linux
        ("darwin", "/Work/Proj", True),
        ("win32", "C:/Work/Proj/", True),
    ],
)
def test_claude_code_project_key_normalisation(platform: str, key: str, matches: bool) -> None:
    cwd = "C:\\work\\proj" if platform == "win32" else "/work/proj"
    ctx = ParseContext(environ={}, home="/h", cwd=cwd, platform=platform)
    text = '{"projects": {"%s": {"mcpServers": {"a": {"command": "x"}}}}}' % key  # noqa: UP031
    cf = parse_config("claude-code", "c.json", text, context=ctx)
    assert bool(cf.entries) is matches


def test_cursor_editor_variables() -> None:
    cf = parse("cursor", "cursor-mcp.json")
    notes = spec(cf, "notes")
    assert notes.argv == ("node", "/home/me/mcp/notes/index.js", "--root", "/work/proj")
    assert dict(notes.env) == {"NOTES_TOKEN": "nt"}
    c7 = spec(cf, "context7")
    assert c7.transport == "auto" and c7.header_names == ("CONTEXT7_API_KEY",)


def test_vscode_inputs_servers_and_jsonc() -> None:
    cf = parse("vscode", "vscode-mcp.jsonc")
    assert entry(cf, "perplexity").unresolved == ("${input:perplexity-key}",)
    aws = spec(cf, "aws-docs")
    assert aws.argv[-1] == "eu-west-1" and aws.cwd == "/work/proj"
    gh = spec(cf, "github")
    assert (gh.transport, gh.url) == ("http", "https://api.githubcopilot.com/mcp/")
    assert entry(cf, "perplexity").line == 9


def test_vscode_legacy_settings_block() -> None:
    cf = parse("vscode", "vscode-settings.json")
    assert spec(cf, "legacy-time").argv == ("uvx", "mcp-server-time")


def test_windsurf_server_url_disabled_and_tools() -> None:
    cf = parse("windsurf", "windsurf-mcp_config.json")
    figma = spec(cf, "figma")
    assert (figma.url, figma.transport) == ("https://mcp.figma.com/mcp", "auto")
    assert dict(figma.headers) == {"X-Figma-Token": "figma-value"}
    pup = entry(cf, "puppeteer")
    assert pup.disabled and pup.disabled_tools == ("puppeteer_evaluate",)
    assert entry(cf, "brave-search").spec is None


def test_codex_toml_fields() -> None:
    cf = parse("codex", "codex-config.toml")
    docs = spec(cf, "docs")
    assert docs.argv == ("npx", "-y", "mcp-server-docs", "${NOT_EXPANDED}")  # no expansion
    assert dict(docs.env) == {"DOCS_MODE": "offline"} and docs.cwd == "/srv/docs"
    assert entry(cf, "docs").enabled_tools == ("search", "fetch")
    figma = spec(cf, "figma")
    assert figma.transport == "http"
    assert dict(figma.headers) == {
        "X-Figma-Region": "us-east-1",
        "Authorization": "Bearer figma-oauth",
    }
    assert entry(cf, "linear").unresolved == ("${LINEAR_KEY_NOT_SET}",)
    old = entry(cf, "old")
    assert old.disabled and old.disabled_tools == ("drop_all",)
    assert [e.line for e in cf.entries] == [3, 10, 15, 19]


def test_codex_env_vars_pass_through() -> None:
    text = '[mcp_servers.s]\ncommand = "x"\nenv_vars = ["API_KEY", "ABSENT"]\n'
    cf = parse_config("codex", "config.toml", text, context=CTX)
    assert dict(spec(cf, "s").env) == {"API_KEY": "api-key-value"}
    assert cf.problems == ("server 's': env_vars ABSENT is not set in this environment",)


def test_gemini_transports_filters_and_excluded() -> None:
    cf = parse("gemini", "gemini-settings.json")
    py = spec(cf, "pythonTools")
    assert dict(py.env) == {"DATABASE_URL": "postgres://db", "API_KEY": "ext"}
    assert py.cwd == "./mcp-servers/python"
    assert entry(cf, "pythonTools").disabled_tools == ("drop_table",)
    http = spec(cf, "httpServer")
    assert http.transport == "http" and dict(http.headers) == {"Authorization": "Bearer gm"}
    assert entry(cf, "httpServer").enabled_tools == ("safe_tool",)
    assert spec(cf, "sseServer").transport == "sse"
    assert entry(cf, "excluded").disabled


def test_zed_flat_nested_remote_and_extension() -> None:
    cf = parse("zed", "zed-settings.json")
    assert spec(cf, "flat-server").argv == ("some-command", "arg-1", "arg-2")
    nested = spec(cf, "nested-server")
    assert nested.argv == ("/usr/local/bin/nested-mcp", "--stdio")
    assert dict(nested.env) == {"NESTED_MODE": "1"}
    assert spec(cf, "remote-server").url == "https://mcp.example.com/mcp"
    ext = entry(cf, "mcp-server-github")
    assert ext.spec is None and "Zed extension" in (ext.problem or "")
    assert "ghp_" not in repr(cf)


def test_cline_and_roo() -> None:
    cline = parse("cline", "cline_mcp_settings.json")
    assert spec(cline, "weather").argv[0] == "node"
    remote = entry(cline, "remote-docs")
    assert remote.disabled and remote.spec is not None and remote.spec.transport == "http"
    assert cline.state is ConfigState.OK
    roo = parse("roo", "roo-mcp.json")
    assert entry(roo, "sqlite").disabled_tools == ("write_query", "create_table")
    assert spec(roo, "remote").transport == "http"


def test_continue_yaml_list_and_block() -> None:
    cf = parse("continue", "continue-config.yaml")
    assert [e.name for e in cf.entries] == ["SQLite MCP", "Remote SSE", "Hub Secret"]
    assert spec(cf, "Remote SSE").transport == "sse"
    assert entry(cf, "Hub Secret").unresolved == ("${{ secrets.HUB_API_KEY }}",)
    assert [e.line for e in cf.entries] == [6, 12, 15]
    block = parse("continue", "continue-block.yaml")
    assert spec(block, "Browser search").argv == ("npx", "@playwright/mcp@latest")


def test_continue_json_block_file() -> None:
    text = '{"mcpServers": {"j": {"command": "x", "args": ["1"]}}}'
    cf = parse_config("continue", ".continue/mcpServers/j.json", text, context=CTX)
    assert spec(cf, "j").argv == ("x", "1")


def test_goose_extensions() -> None:
    cf = parse("goose", "goose-config.yaml")
    assert "runs inside Goose" in (entry(cf, "developer").problem or "")
    gh = spec(cf, "github")
    assert gh.argv == ("npx", "-y", "@modelcontextprotocol/server-github")
    assert gh.env_names == ("GITHUB_PERSONAL_ACCESS_TOKEN",)
    remote = spec(cf, "remote")
    assert (remote.transport, remote.url) == ("http", "https://goose.example.com/mcp")
    assert entry(cf, "fetch").disabled
    assert entry(cf, "github").line == 9


def test_copilot_tools_allowlist() -> None:
    cf = parse("copilot", "copilot-mcp-config.json")
    assert spec(cf, "playwright").transport == "stdio"
    assert entry(cf, "playwright").enabled_tools is None  # "*" means all
    assert entry(cf, "github").enabled_tools == ("get_issue", "list_issues")


def test_opencode_local_command_array_and_remote() -> None:
    cf = parse("opencode", "opencode.json")
    fs = spec(cf, "local-fs")
    assert fs.argv == ("npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp")
    assert dict(fs.env) == {"FS_MODE": "ro"}
    remote = entry(cf, "remote-ctx")
    assert remote.disabled and remote.spec is not None and remote.spec.transport == "auto"
    assert dict(remote.spec.headers) == {"Authorization": "Bearer ctx"}


@pytest.mark.parametrize(
    ("type_value", "transport"),
    [
        ("http", "http"),
        ("streamable-http", "http"),
        ("streamableHttp", "http"),
        ("streamable_http", "http"),
        ("sse", "sse"),
        (None, "auto"),
    ],
)
def test_transport_aliases(type_value: str | None, transport: str) -> None:
    type_json = "" if type_value is None else f'"type": "{type_value}", '
    text = '{"mcpServers": {"r": {%s"url": "https://x/mcp"}}}' % type_json  # noqa: UP031
    cf = parse_config("cursor", "mcp.json", text, context=CTX)
    assert spec(cf, "r").transport == transport


def test_unknown_transport_type_is_a_problem() -> None:
    text = '{"mcpServers": {"r": {"type": "websocket", "url": "wss://x"}}}'
    cf = parse_config("cursor", "mcp.json", text, context=CTX)
    assert entry(cf, "r").problem == "unsupported transport type 'websocket'"


# ---------------------------------------------------------------- states


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("{}", ConfigState.DECLARES_NOTHING),
        ('{"mcpServers": {}}', ConfigState.DECLARES_NOTHING),
        ('{"mcpServers": {"a": {"command": "x", "disabled": true}}}', ConfigState.ALL_DISABLED),
        (
            '{"mcpServers": {"a": {"command": "x", "disabled": true}, "b": {"command": "y"}}}',
            ConfigState.OK,
        ),
        ('{"mcpServers": []}', ConfigState.DECLARES_NOTHING),  # a problem line, not an error
        ("[]", ConfigState.ERROR),
        ("", ConfigState.ERROR),
    ],
)
def test_file_states(text: str, state: ConfigState) -> None:
    assert parse_config("cursor", "mcp.json", text, context=CTX).state is state


def test_disabled_entries_are_kept_with_their_spec() -> None:
    text = '{"mcpServers": {"a": {"command": "x", "disabled": true}}}'
    cf = parse_config("cline", "s.json", text, context=CTX)
    assert cf.disabled_names == ("a",) and cf.live_entries == ()
    assert cf.entries[0].spec is not None


# ---------------------------------------------------------------- wrong types


@pytest.mark.parametrize(
    ("body", "problem", "launchable"),
    [
        ('"command": "x", "args": "--flag"', "args is a string, expected a list of strings", False),
        ('"command": "x", "args": ["ok", 3]', "args[1] is a number, expected a string", False),
        ('"command": 7', "command is a number, expected a string", False),
        ('"command": "x", "env": ["A=1"]', "env is a list, expected an object", False),
        (
            '"command": "x", "env": {"A": 1, "B": "b"}',
            "env A is a number, expected a string (left out)",
            True,
        ),
        (
            '"command": "x", "disabled": "yes"',
            "disabled is a string, expected true or false (ignored)",
            True,
        ),
        ('"args": ["a"]', None, False),
    ],
)
def test_wrong_types_become_problem_lines(body: str, problem: str | None, launchable: bool) -> None:
    text = '{"mcpServers": {"s": {%s}}}' % body  # noqa: UP031
    cf = parse_config("claude-code", ".mcp.json", text, context=CTX)
    (e,) = cf.entries
    assert (e.spec is not None) is launchable
    if problem is not None:
        assert cf.problems == (f"server 's': {problem}",)
    else:
        assert e.problem == "no command or url"
    if not launchable:
        assert e.problem


def test_entry_not_an_object() -> None:
    cf = parse_config("cursor", "mcp.json", '{"mcpServers": {"s": "npx foo"}}', context=CTX)
    assert cf.entries[0].problem == "entry is a string, expected an object"
    assert cf.state is ConfigState.OK  # declared, just not launchable


def test_env_value_wrong_type_drops_only_that_variable() -> None:
    text = '{"mcpServers": {"s": {"command": "x", "env": {"A": 1, "B": "b"}}}}'
    cf = parse_config("cursor", "mcp.json", text, context=CTX)
    assert dict(spec(cf, "s").env) == {"B": "b"}


def test_codex_wrong_types() -> None:
    text = '[mcp_servers.s]\ncommand = "x"\nargs = "a b"\nenabled = "no"\n'
    cf = parse_config("codex", "config.toml", text, context=CTX)
    assert cf.entries[0].spec is None
    assert "server 's': args is a string, expected a list of strings" in cf.problems


# ---------------------------------------------------------------- JSONC


def test_jsonc_comment_like_text_inside_strings() -> None:
    text = '{"url": "http://x//y", "s": "/* no */", "q": "a\\"//b", "z": "\\\\"} // tail'
    assert parse_jsonc(text) == {"url": "http://x//y", "s": "/* no */", "q": 'a"//b', "z": "\\"}


def test_jsonc_trailing_commas_and_crlf() -> None:
    text = '{\r\n  "a": [1, 2,],\r\n  // c\r\n  "b": {"c": 3,},\r\n}\r\n'
    assert parse_jsonc(text) == {"a": [1, 2], "b": {"c": 3}}
    assert key_lines(text)[("b", "c")] == 4


def test_jsonc_strip_keeps_length_and_lines() -> None:
    text = '{\n/* multi\nline */ "a": 1, // x\n}'
    out = strip_jsonc(text)
    assert len(out) == len(text) and out.count("\n") == text.count("\n")


def test_jsonc_comma_inside_string_before_brace_is_kept() -> None:
    assert parse_jsonc('{"a": ",}"}') == {"a": ",}"}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{\n  "a": 1\n  "b": 2\n}', "line 3 column 3"),
        ('// header\n{\n  "a": /* x */ ,\n}', "line 3 column 16"),
        ('{\n  "a": 1 /* never closed\n}', "unterminated comment at line 2 column 10"),
        ("{\n  [,]\n}", "line 2 column 3"),
        ('{"a": [1,,]}', "line 1 column 10"),
    ],
)
def test_jsonc_errors_point_into_the_original(text: str, where: str) -> None:
    with pytest.raises(JSONSyntaxError, match=where):
        parse_jsonc(text)


def test_broken_jsonc_file_is_error_state_with_position() -> None:
    cf = parse_config(
        "zed", "settings.json", '{\n  "context_servers": {\n    "a": }\n}', context=CTX
    )
    assert cf.state is ConfigState.ERROR
    assert cf.error is not None and "line 3 column 10" in cf.error


def test_bom_is_tolerated_in_config_files() -> None:
    cf = parse_config(
        "cursor", "mcp.json", '\ufeff{"mcpServers": {"a": {"command": "x"}}}', context=CTX
    )
    assert cf.state is ConfigState.OK


# ---------------------------------------------------------------- YAML / TOML errors


def test_yaml_error_never_quotes_the_file() -> None:
    text = "extensions:\n  gh:\n    envs: {TOKEN: ghp_secretsecretsecretsecret01\n"
    cf = parse_config("goose", "config.yaml", text, context=CTX)
    assert cf.state is ConfigState.ERROR
    assert "ghp_" not in (cf.error or "") and "line" in (cf.error or "")


def test_toml_error_has_position() -> None:
    cf = parse_config("codex", "config.toml", "[mcp_servers.a]\ncommand = \n", context=CTX)
    assert cf.state is ConfigState.ERROR
    assert "line 2" in (cf.error or "")


def test_detect_dialect() -> None:
    assert detect_dialect({"mcpServers": {}}) == "explicit"
    assert detect_dialect({"mcpServers": []}) == "continue"
    assert detect_dialect({"servers": {}}) == "vscode"
    assert detect_dialect({"mcp": {"servers": {}}}) == "vscode"
    assert detect_dialect({"mcp": {"x": {"type": "local"}}}) == "opencode"
    assert detect_dialect({"context_servers": {}}) == "zed"
    assert detect_dialect({"mcp_servers": {}}) == "codex"
    assert detect_dialect({"extensions": {}}) == "goose"
    assert detect_dialect({"projects": {"/p": {"mcpServers": {}}}}) == "claude-code"
    assert detect_dialect({"theme": "x"}) is None


def test_detect_dialect_list_block_depends_on_the_format() -> None:
    assert detect_dialect({"mcpServers": []}, "yaml") == "continue"
    assert detect_dialect({"mcpServers": []}, "json") == "explicit"
    block_file = {"name": "b", "version": "1", "mcpServers": []}
    assert detect_dialect(block_file, "json") == "continue"


# Each client parser, given its server block with the wrong type (and, where it has one, a second
# valid block that must still be read).
_WRONG_BLOCKS: list[tuple[str, str, str, str]] = [
    ("claude-desktop", "c.json", '{"mcpServers": []}', "mcpServers is a list"),
    ("claude-code", ".mcp.json", '{"mcpServers": "x"}', "mcpServers is a string"),
    ("cursor", "mcp.json", '{"mcpServers": 3}', "mcpServers is a number"),
    ("windsurf", "mcp_config.json", '{"mcpServers": true}', "mcpServers is a boolean"),
    ("vscode", "mcp.json", '{"servers": []}', "servers is a list"),
    ("vscode", "settings.json", '{"mcp": {"servers": 1}}', "mcp.servers is a number"),
    ("vscode", "settings.json", '{"mcp": []}', "mcp is a list"),
    ("gemini", "settings.json", '{"mcpServers": []}', "mcpServers is a list"),
    ("gemini", "settings.json", '{"mcp": "x", "mcpServers": {}}', "mcp is a string"),
    ("zed", "settings.json", '{"context_servers": []}', "context_servers is a list"),
    ("cline", "s.json", '{"mcpServers": []}', "mcpServers is a list"),
    ("roo", "mcp.json", '{"mcpServers": "a"}', "mcpServers is a string"),
    ("copilot", "mcp-config.json", '{"mcpServers": []}', "mcpServers is a list"),
    ("opencode", "opencode.json", '{"mcp": []}', "mcp is a list"),
    ("codex", "config.toml", 'mcp_servers = "x"\n', "mcp_servers is a string"),
    ("codex", "config.toml", "mcp_servers = [1]\n", "mcp_servers is a list"),
    ("goose", "config.yaml", "extensions: [a]\n", "extensions is a list"),
    ("continue", "config.yaml", "mcpServers: 3\n", "mcpServers is a number"),
    ("continue", "config.yaml", "mcpServers: {a: 1}\nx: 1\n", "entry is a number"),
    ("explicit", "any.json", '{"mcpServers": []}', "mcpServers is a list"),
    ("explicit", "any.json", '{"servers": "x"}', "servers is a string"),
    ("explicit", "any.yaml", "mcp_servers: 5\n", "mcp_servers is a number"),
]


@pytest.mark.parametrize(("client", "source", "text", "problem"), _WRONG_BLOCKS)
def test_wrong_typed_server_block_is_a_problem_line(
    client: str, source: str, text: str, problem: str
) -> None:
    cf = parse_config(client, source, text, context=CTX)
    assert cf.state is not ConfigState.ERROR, cf.error
    assert any(problem in p for p in cf.problems), cf.problems


def test_wrong_typed_user_block_keeps_the_project_servers() -> None:
    text = json.dumps(
        {"mcpServers": [], "projects": {"/work/proj": {"mcpServers": {"p": {"command": "x"}}}}}
    )
    cf = parse_config("claude-code", "/home/me/.claude.json", text, context=CTX)
    assert [e.name for e in cf.entries] == ["p"] and cf.state is ConfigState.OK
    assert cf.problems == ("mcpServers is a list, expected an object (ignored)",)
    text = json.dumps({"projects": {"/work/proj": []}})
    cf = parse_config("claude-code", "/home/me/.claude.json", text, context=CTX)
    assert cf.problems == ("projects[<cwd>] is a list, expected an object (ignored)",)


def test_unknown_client_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown client"):
        parse_config("notepad", "x", "{}", context=CTX)


# ---------------------------------------------------------------- properties

_TRICKY = st.text(alphabet='ab/*",\\:{}[] \t\u00e9', max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | _TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TRICKY, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(value=_JSON, comment=_TRICKY.filter(lambda s: "*/" not in s), crlf=st.booleans())
def test_jsonc_decorated_json_parses_to_the_same_value(
    value: object, comment: str, crlf: bool
) -> None:
    """Comments on every line and a trailing comma before every closing bracket change nothing."""
    lines = json.dumps(value, indent=1, ensure_ascii=False).split("\n")
    out = []
    for i, line in enumerate(lines):
        closes_next = i + 1 < len(lines) and lines[i + 1].lstrip().startswith(("]", "}"))
        out.append(f"/*{comment}*/ {line}{',' if closes_next else ''} //{comment}")
    text = ("\r\n" if crlf else "\n").join(out)
    assert parse_jsonc(text) == value


@settings(max_examples=100, deadline=None)
@given(
    names=st.lists(
        st.from_regex(r"[A-Z][A-Z0-9_]{0,8}", fullmatch=True), min_size=1, max_size=4, unique=True
    ),
    data=st.data(),
)
def test_env_and_header_values_never_reach_problems_or_repr(
    names: list[str], data: st.DataObject
) -> None:
    secret = data.draw(st.from_regex(r"S3CRET[a-z0-9]{8,16}", fullmatch=True))
    env_json = json.dumps({n: f"{secret}{i}" for i, n in enumerate(names)} | {"NUM": 5})
    unresolved = data.draw(st.sampled_from(["${UNSET_ONE}", "${env:UNSET_TWO}", "plain"]))
    bad_type = data.draw(st.sampled_from(['"args": 3', '"args": ["a", 1]', '"cwd": 5', '"x": 0']))
    text = (
        '{"mcpServers": {'
        f'"ok": {{"command": "srv", "env": {env_json}, "args": ["{unresolved}"]}},'
        f'"bad": {{"command": "srv", "env": {env_json}, {bad_type}}},'
        f'"rem": {{"url": "https://h/mcp", "headers": {{"Authorization": "Bearer {secret}X", '
        f'"X-Key": "{unresolved}", "X-Num": 1}}}}'
        "}}"
    )
    for client in ("claude-code", "cursor", "explicit"):
        cf = parse_config(client, "c.json", text, context=CTX)
        assert cf.problems, "the wrong-typed fields were noticed"
        shown = repr(cf) + " ".join(cf.problems) + (cf.error or "")
        assert secret not in shown


ENV_FIXTURE = CONFIGS / "envfile" / "secrets.env"
ENV_FIXTURE_SECRETS = (
    "ghp_EnvFileSecret0123456789abcdefABCDEF",
    "sk-envfile-single-quoted",
    "envfile-db-pass",
    "envfile-plain-value",
    "from-envfile-loses",
)


def _reader(path: str) -> str:
    return Path(path).read_text(encoding="utf-8")


def _envfile_ctx(cwd: str = "/work/proj") -> ParseContext:
    return ParseContext(environ=ENV, home="/home/me", cwd=cwd, read_text=_reader)


def test_env_file_without_a_reader_is_noted_and_the_server_still_launches() -> None:
    text = '{"servers": {"s": {"command": "x", "envFile": "${workspaceFolder}/.env"}}}'
    cf = parse_config("vscode", "mcp.json", text, context=CTX)
    e = cf.entries[0]
    assert e.spec is not None and dict(e.spec.env) == {}
    note = "envFile /work/proj/.env is not read here: launched without its variables"
    assert e.notes == (note,)
    assert cf.problems == (f"server 's': {note}",)


@pytest.mark.parametrize("client", ["cursor", "vscode", "explicit"])
def test_env_file_variables_reach_the_env_and_explicit_env_wins(client: str) -> None:
    key = "servers" if client == "vscode" else "mcpServers"
    text = json.dumps(
        {key: {"s": {"command": "x", "envFile": "envfile/secrets.env", "env": {"SHARED": "mine"}}}}
    )
    source = str(CONFIGS / "mcp.json")
    cf = parse_config(client, source, text, context=_envfile_ctx())
    e = cf.entries[0]
    assert e.spec is not None
    assert e.env_file == str(ENV_FIXTURE)
    assert dict(e.spec.env) == {
        "GITHUB_TOKEN": "ghp_EnvFileSecret0123456789abcdefABCDEF",
        "API_KEY": "sk-envfile-single-quoted-$NOT_EXPANDED",
        "DB_URL": "postgres://admin:envfile-db-pass@db.internal/app\nline2",
        "PLAIN": "envfile-plain-value",
        "SHARED": "mine",
        "EMPTY": "",
    }
    assert e.notes == ()
    # the malformed line is a problem named by its number, never quoted
    assert cf.problems == (
        f"server 's': envFile {ENV_FIXTURE} line 7: not a KEY=value line (ignored)",
    )
    shown = " ".join(cf.problems) + " ".join(e.notes)
    for secret in ENV_FIXTURE_SECRETS:
        assert secret not in shown


def test_env_file_path_resolves_workspace_folder_and_user_home(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("A=1\n", encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    (home / "h.env").write_text("B=2\n", encoding="utf-8")
    ctx = ParseContext(environ={}, home=str(home), cwd=str(tmp_path), read_text=_reader)
    text = json.dumps(
        {
            "servers": {
                "w": {"command": "x", "envFile": "${workspaceFolder}/.env"},
                "h": {"command": "x", "envFile": "${userHome}/h.env"},
                "u": {"command": "x", "envFile": "${input:where}/.env"},
            }
        }
    )
    cf = parse_config("vscode", str(tmp_path / ".vscode" / "mcp.json"), text, context=ctx)
    w, h, u = cf.entries
    assert w.spec is not None and dict(w.spec.env) == {"A": "1"}
    assert h.spec is not None and dict(h.spec.env) == {"B": "2"}
    assert u.spec is not None and dict(u.spec.env) == {}
    assert u.notes == ("envFile holds unresolved ${input:where}: launched without its variables",)


def test_missing_and_unreadable_env_files_are_problems_not_failures(tmp_path: Path) -> None:
    (tmp_path / "adir.env").mkdir()
    (tmp_path / "latin.env").write_bytes(b"K=\xff\n")
    text = json.dumps(
        {
            "mcpServers": {
                "gone": {"command": "x", "envFile": "missing.env", "env": {"K": "v"}},
                "dir": {"command": "x", "envFile": "adir.env"},
                "bytes": {"command": "x", "envFile": "latin.env"},
            }
        }
    )
    from mcpcost.configs.discovery import read_env_file

    ctx = ParseContext(environ={}, home="/h", cwd=str(tmp_path), read_text=read_env_file)
    cf = parse_config("cursor", str(tmp_path / "mcp.json"), text, context=ctx)
    gone, adir, latin = cf.entries
    assert gone.spec is not None and dict(gone.spec.env) == {"K": "v"}
    assert gone.notes == (
        f"envFile {tmp_path / 'missing.env'} does not exist: launched without its variables",
    )
    assert adir.spec is not None and "cannot be read" in adir.notes[0]
    assert latin.spec is not None and "cannot be read (UnicodeDecodeError)" in latin.notes[0]
    assert len(cf.problems) == 3
    assert cf.state is ConfigState.OK


def test_env_file_is_not_read_for_clients_that_do_not_document_it() -> None:
    text = json.dumps({"mcpServers": {"s": {"command": "x", "envFile": "envfile/secrets.env"}}})
    cf = parse_config("claude-desktop", str(CONFIGS / "c.json"), text, context=_envfile_ctx())
    e = cf.entries[0]
    assert e.spec is not None and dict(e.spec.env) == {}
    assert cf.problems == ("server 's': envFile is not read (claude-desktop does not document it)",)


def test_env_file_of_a_remote_entry_is_ignored() -> None:
    text = json.dumps({"mcpServers": {"r": {"url": "https://h/mcp", "envFile": "nope.env"}}})
    cf = parse_config("cursor", str(CONFIGS / "c.json"), text, context=_envfile_ctx())
    assert cf.entries[0].spec is not None and cf.entries[0].notes == ()


@pytest.mark.parametrize("url", ["unix:///tmp/mcp.sock", "pipe:///pipe/mcp", "ftp://x/"])
def test_non_http_urls_are_not_launchable(url: str) -> None:
    text = '{"servers": {"s": {"type": "http", "url": "%s"}}}' % url  # noqa: UP031
    cf = parse_config("vscode", "mcp.json", text, context=CTX)
    assert cf.entries[0].spec is None
    assert "is not supported" in (cf.entries[0].problem or "")


def test_continue_duplicate_names_keep_the_first() -> None:
    text = "mcpServers:\n  - name: a\n    command: one\n  - name: a\n    command: two\n"
    cf = parse_config("continue", "config.yaml", text, context=CTX)
    assert [s.argv for s in (e.spec for e in cf.entries) if s] == [("one",)]
    assert cf.problems == ("mcpServers[1]: a second server named 'a' (left out)",)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1, // c\n}', {"a": 1}),
        ('{"a": [1, /* c */\n /* d */ ], // e\n /* f */ }', {"a": [1]}),
        ('{"a": "x,", }', {"a": "x,"}),
        ('{"a": "\\\\", }', {"a": "\\"}),
    ],
)
def test_jsonc_trailing_comma_then_comments(text: str, value: object) -> None:
    assert parse_jsonc(text) == value
    assert len(strip_jsonc(text)) == len(text)


@pytest.mark.parametrize(
    ("text", "values", "problems"),
    [
        ("A=1\nB = two \n", {"A": "1", "B": "two"}, ()),
        ("# c\n\n  # indented\nexport A=x\n", {"A": "x"}, ()),
        ("A='$B and \\n stay'\n", {"A": "$B and \\n stay"}, ()),
        ('A="x\\ty\\"z\\\\"\n', {"A": 'x\ty"z\\'}, ()),
        ('A="multi\nline"\nB=2\n', {"A": "multi\nline", "B": "2"}, ()),
        ("A=v # comment\nB=v#not-a-comment\n", {"A": "v", "B": "v#not-a-comment"}, ()),
        ("A=1\nA=2\n", {"A": "2"}, ()),
        ("\ufeffA=1\r\nB=2\r\n", {"A": "1", "B": "2"}, ()),
        (
            "noequals\n1BAD=x\n",
            {},
            ("line 1: not a KEY=value line (ignored)", "line 2: not a KEY=value line (ignored)"),
        ),
        ("A='open\n", {}, ("line 1: A: unterminated quote (ignored)",)),
    ],
)
def test_parse_dotenv(text: str, values: dict[str, str], problems: tuple[str, ...]) -> None:
    from mcpcost.configs.variables import parse_dotenv

    got = parse_dotenv(text)
    assert dict(got.values) == values
    assert got.problems == problems


@given(
    st.dictionaries(
        st.from_regex(r"[A-Z_][A-Z0-9_]{0,8}", fullmatch=True),
        st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=20),
        max_size=6,
    )
)
@settings(max_examples=80, deadline=None)
def test_parse_dotenv_round_trips_single_quoted_values(values: dict[str, str]) -> None:
    from mcpcost.configs.variables import parse_dotenv

    values = {k: v.replace("'", "") for k, v in values.items()}
    text = "".join(f"{k}='{v}'\n" for k, v in values.items())
    got = parse_dotenv(text)
    assert dict(got.values) == values and got.problems == ()


_DOTENV_SECRET = st.from_regex(r"[A-Za-z0-9]{16,28}", fullmatch=True).map(lambda s: "Ev" + s)
_DOTENV_FORM = st.sampled_from(
    ["{k}={v}", "export {k}={v}", "{k}='{v}'", '{k}="{v}"', "{k} = {v} # note"]
)


@given(
    st.dictionaries(
        st.from_regex(r"[A-Z][A-Z0-9_]{0,10}", fullmatch=True),
        st.tuples(_DOTENV_SECRET, _DOTENV_FORM),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
)
@settings(max_examples=40, deadline=None)
def test_env_file_values_never_reach_any_report_output(
    entries: dict[str, tuple[str, str]], fail: bool
) -> None:
    """Generated dotenv files with secret values; the server's failure notes echo them back."""
    import tempfile

    from mcpcost.audit.compose import AuditInputs, AuditOptions, run_audit
    from mcpcost.core.model import Measurement
    from mcpcost.core.status import Status
    from mcpcost.render.json_report import render_json
    from mcpcost.render.markdown_report import render_markdown
    from mcpcost.render.text_report import render_text
    from tests.helpers.audit_builders import measured, tools

    secrets = [v for v, _ in entries.values()]
    with tempfile.TemporaryDirectory() as tmp:
        env_path = Path(tmp) / "app.env"
        env_path.write_text("".join(f.format(k=k, v=v) + "\n" for k, (v, f) in entries.items()))
        text = json.dumps({"mcpServers": {"s": {"command": "srv", "envFile": "app.env"}}})
        ctx = ParseContext(environ={}, home=tmp, cwd=tmp, read_text=_reader)
        cf = parse_config("cursor", str(Path(tmp) / "mcp.json"), text, context=ctx)
    spec = cf.entries[0].spec
    assert spec is not None and dict(spec.env) == {k: v for k, (v, _) in entries.items()}

    def measure(s: ServerSpec) -> Measurement:
        if fail:
            return Measurement(
                status=Status.STARTUP_FAILURE,
                server_name=s.name,
                notes="env was " + " ".join(secrets),
            )
        return measured(s, tools(s.name, 2))

    options = AuditOptions(concurrency=1, generated_at="t")
    report = run_audit(AuditInputs(configs=(cf,)), measure=measure, options=options).report
    for out in (render_text(report), render_json(report), render_markdown(report)):
        for secret in secrets:
            assert secret not in out
    assert set(entries) <= set(
        json.loads(render_json(report))["configs"][0]["skipped" if fail else "servers"][0][
            "envVarNames"
        ]
    )
