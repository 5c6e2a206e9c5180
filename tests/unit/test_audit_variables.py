"""Variable references: each syntax, which clients expand it, and what stays unresolved."""

from __future__ import annotations

import pytest

from mcpcost.configs.clients import CLIENT_SYNTAX, ParseContext, parse_config, syntax_for
from mcpcost.configs.variables import (
    VariableContext,
    VariableSyntax,
    resolve,
)

ENV = {"HOME_DIR": "/home/me", "TOKEN": "tok-123", "EMPTY": ""}
CTX = VariableContext(
    environ=ENV,
    home="/home/me",
    workspace="/work/my-proj",
    platform="linux",
    inputs={"region": "eu-west-1", "api-key": None},
)
ALL = VariableSyntax(
    braces=True,
    defaults=True,
    env_prefix=True,
    bare=True,
    editor=True,
    inputs=True,
    file_refs=True,
    hub_secrets=True,
)


@pytest.mark.parametrize(
    ("text", "value", "unresolved"),
    [
        ("${TOKEN}", "tok-123", ()),
        ("a-${TOKEN}-b", "a-tok-123-b", ()),
        ("${MISSING}", "${MISSING}", ("${MISSING}",)),
        ("${MISSING:-fallback}", "fallback", ()),
        ("${TOKEN:-fallback}", "tok-123", ()),
        ("${EMPTY:-fallback}", "", ()),  # set (even empty) wins over the default
        ("${MISSING:-}", "", ()),
        ("${MISSING:-http://x:1/y}", "http://x:1/y", ()),
        ("${env:TOKEN}", "tok-123", ()),
        ("${env:MISSING}", "${env:MISSING}", ("${env:MISSING}",)),
        ("$TOKEN/x", "tok-123/x", ()),
        ("$MISSING", "$MISSING", ("$MISSING",)),
        ("${userHome}/bin", "/home/me/bin", ()),
        ("${workspaceFolder}/src", "/work/my-proj/src", ()),
        ("${workspaceFolderBasename}", "my-proj", ()),
        ("a${pathSeparator}b", "a/b", ()),
        ("${input:region}", "eu-west-1", ()),
        ("${input:api-key}", "${input:api-key}", ("${input:api-key}",)),
        ("${input:unknown}", "${input:unknown}", ("${input:unknown}",)),
        ("${file:/etc/secret}", "${file:/etc/secret}", ("${file:/etc/secret}",)),
        ("${{ secrets.KEY }}", "${{ secrets.KEY }}", ("${{ secrets.KEY }}",)),
        ("${MISSING} ${MISSING}", "${MISSING} ${MISSING}", ("${MISSING}",)),
        ("plain text", "plain text", ()),
        ("${not a name}", "${not a name}", ()),  # not a reference in any syntax: literal
    ],
)
def test_every_syntax(text: str, value: str, unresolved: tuple[str, ...]) -> None:
    r = resolve(text, ALL, CTX)
    assert (r.value, r.unresolved) == (value, unresolved)


def test_values_are_not_expanded_twice() -> None:
    ctx = VariableContext(environ={"A": "${B}", "B": "no"}, home="/h", workspace="/w")
    assert resolve("${A}", ALL, ctx).value == "${B}"


def test_windows_path_separator_and_case_insensitive_env() -> None:
    ctx = VariableContext(
        environ={"Token": "t"}, home="C:\\Users\\me", workspace="C:\\w\\proj", platform="win32"
    )
    assert resolve("${env:TOKEN}${pathSeparator}", ALL, ctx).value == "t\\"
    assert resolve("${workspaceFolderBasename}", ALL, ctx).value == "proj"


def test_opencode_syntax() -> None:
    syntax = syntax_for("opencode")
    assert resolve("Bearer {env:TOKEN}", syntax, CTX).value == "Bearer tok-123"
    r = resolve("{file:~/.key}", syntax, CTX)
    assert r.unresolved == ("{file:~/.key}",)
    assert resolve("${TOKEN}", syntax, CTX).value == "${TOKEN}"  # not OpenCode's syntax


@pytest.mark.parametrize(
    ("client", "text", "value"),
    [
        ("codex", "${TOKEN}", "${TOKEN}"),  # Codex expands nothing
        ("claude-desktop", "${TOKEN}", "${TOKEN}"),
        ("zed", "$TOKEN", "$TOKEN"),
        ("claude-code", "${TOKEN}", "tok-123"),
        ("claude-code", "$TOKEN", "$TOKEN"),  # bare form is Gemini's, not Claude Code's
        ("claude-code", "${env:TOKEN}", "${env:TOKEN}"),
        ("cursor", "${env:TOKEN}", "tok-123"),
        ("cursor", "${TOKEN}", "${TOKEN}"),
        ("vscode", "${input:region}", "eu-west-1"),
        ("cursor", "${input:region}", "${input:region}"),
        ("windsurf", "${env:TOKEN}", "tok-123"),
        ("gemini", "$TOKEN", "tok-123"),
        ("gemini", "${TOKEN}", "tok-123"),
    ],
)
def test_per_client_applicability(client: str, text: str, value: str) -> None:
    assert resolve(text, syntax_for(client), CTX).value == value


def test_every_known_client_has_a_syntax_entry() -> None:
    from mcpcost.configs.clients import KNOWN_CLIENTS

    assert set(KNOWN_CLIENTS) <= set(CLIENT_SYNTAX)
    assert not syntax_for("codex").expands


def _ctx(environ: dict[str, str]) -> ParseContext:
    return ParseContext(environ=environ, home="/home/me", cwd="/work/proj")


@pytest.mark.parametrize(
    ("field_json", "where"),
    [
        ('"command": "${BIN}"', "command"),
        ('"command": "x", "args": ["--k", "${BIN}"]', "args"),
        ('"command": "x", "env": {"K": "${BIN}"}', "env"),
        ('"command": "x", "cwd": "${BIN}"', "cwd"),
        ('"url": "https://h/${BIN}"', "url"),
        ('"url": "https://h/", "headers": {"Authorization": "Bearer ${BIN}"}', "headers"),
    ],
)
def test_unresolved_in_any_launch_field_blocks_launch(field_json: str, where: str) -> None:
    text = '{"mcpServers": {"s": {%s}}}' % field_json  # noqa: UP031
    cf = parse_config("claude-code", ".mcp.json", text, context=_ctx({}))
    (entry,) = cf.entries
    assert entry.spec is None
    assert entry.unresolved == ("${BIN}",)
    assert entry.problem == f"unresolved ${{BIN}} in {where}"
    # and with the variable set, the same entry launches with the value in place
    cf = parse_config("claude-code", ".mcp.json", text, context=_ctx({"BIN": "v"}))
    assert cf.entries[0].spec is not None


def test_resolved_values_reach_the_spec() -> None:
    text = """{"servers": {"s": {"command": "${userHome}/bin/srv",
      "args": ["${workspaceFolder}", "${input:region}"], "env": {"T": "${env:TOKEN}"},
      "cwd": "${workspaceFolder}"}},
      "inputs": [{"type": "promptString", "id": "region", "default": "us"}]}"""
    cf = parse_config("vscode", ".vscode/mcp.json", text, context=_ctx({"TOKEN": "tv"}))
    spec = cf.entries[0].spec
    assert spec is not None
    assert spec.argv == ("/home/me/bin/srv", "/work/proj", "us")
    assert dict(spec.env) == {"T": "tv"}
    assert spec.cwd == "/work/proj"


def test_password_input_with_default_stays_unresolved() -> None:
    text = """{"servers": {"s": {"command": "x", "env": {"K": "${input:key}"}}},
      "inputs": [{"type": "promptString", "id": "key", "password": true, "default": "d"}]}"""
    cf = parse_config("vscode", "mcp.json", text, context=_ctx({}))
    assert cf.entries[0].problem == "unresolved ${input:key} in env"


def test_problem_names_references_never_values() -> None:
    text = '{"mcpServers": {"s": {"command": "x", "env": {"A": "${SET}", "B": "${UNSET}"}}}}'
    cf = parse_config("claude-code", ".mcp.json", text, context=_ctx({"SET": "s3cr3t-value"}))
    entry = cf.entries[0]
    assert entry.problem == "unresolved ${UNSET} in env"
    assert "s3cr3t-value" not in repr(cf)


def test_codex_missing_token_env_is_unresolved() -> None:
    text = '[mcp_servers.r]\nurl = "https://x/mcp"\nbearer_token_env_var = "MY_TOKEN"\n'
    cf = parse_config("codex", "config.toml", text, context=_ctx({}))
    assert cf.entries[0].problem == "unresolved ${MY_TOKEN} in headers"
    cf = parse_config("codex", "config.toml", text, context=_ctx({"MY_TOKEN": "abc"}))
    spec = cf.entries[0].spec
    assert spec is not None and dict(spec.headers) == {"Authorization": "Bearer abc"}
