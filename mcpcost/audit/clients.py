"""Parse one client's MCP config text into a ConfigFile (pure: values in, values out).

Formats per research/anchor-ecosystem.md §4. Every server becomes a ConfigEntry: launchable
(``spec`` set), or ``spec=None`` with ``problem`` saying why (unresolved reference, missing
command, wrong-typed field...). Wrong-typed fields add a line to ``ConfigFile.problems``; nothing
here raises on bad input. Problem and error strings name fields, never values.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import yaml

from mcpcost.audit.jsonc import KeyPath, key_lines_clean, strip_jsonc
from mcpcost.audit.model import ConfigEntry, ConfigFile, ConfigState
from mcpcost.audit.variables import (
    VariableContext,
    VariableSyntax,
    parse_dotenv,
    resolve,
    syntax_for,
)
from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.spec import ServerSpec
from mcpcost.errors import JSONSyntaxError, McpcostError

KNOWN_CLIENTS: tuple[str, ...] = (
    "claude-desktop",
    "claude-code",
    "cursor",
    "vscode",
    "windsurf",
    "codex",
    "gemini",
    "zed",
    "cline",
    "roo",
    "continue",
    "goose",
    "copilot",
    "opencode",
)
EXPLICIT = "explicit"

_HTTP_TYPES = frozenset({"http", "streamable-http", "streamableHttp", "streamable_http"})
_STDIO_TYPES = frozenset({"stdio", "local"})
_REMOTE_TYPES = frozenset({"remote"})  # OpenCode: URL, transport negotiated


@dataclass(frozen=True)
class ParseContext:
    """Everything parsing depends on besides the text. ``project_key`` is the directory whose
    ``projects[...]`` block of ``~/.claude.json`` applies (defaults to ``cwd``); ``realpath``
    resolves symlinks when the caller can look at the file system (None: compare as written)."""

    environ: Mapping[str, str]
    home: str
    cwd: str
    platform: str = "linux"
    project_key: str | None = None
    realpath: Callable[[str], str] | None = None
    # reads an ``envFile`` (raises OSError or ValueError); None: envFiles are not read here
    read_text: Callable[[str], str] | None = None

    def variables(self, inputs: Mapping[str, str | None] | None = None) -> VariableContext:
        return VariableContext(
            environ=self.environ,
            home=self.home,
            workspace=self.cwd,
            platform=self.platform,
            inputs=inputs or {},
        )


# ---------------------------------------------------------------- small typed readers


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


@dataclass
class _Raw:
    """One server's launch fields before variable resolution."""

    name: str
    line: int | None = None
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    transport: str | None = None  # None until inferred
    headers: dict[str, str] = field(default_factory=dict)
    disabled: bool = False
    always_load: bool = False
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()
    env_file: str | None = None  # the envFile field as written
    fatal: str | None = None  # why it cannot be launched regardless of variables
    unresolved: list[str] = field(default_factory=list)  # found before resolution (Codex...)
    unresolved_fields: list[str] = field(default_factory=list)


class _Reader:
    """Reads typed fields from one entry, recording wrong types as file problems."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems

    def note(self, raw: _Raw, text: str, *, fatal: bool) -> None:
        self.problems.append(f"server {raw.name!r}: {text}")
        if fatal and raw.fatal is None:
            raw.fatal = text

    def string(
        self, raw: _Raw, obj: Mapping[str, Any], key: str, *, fatal: bool = True
    ) -> str | None:
        value = obj.get(key)
        if value is None or isinstance(value, str):
            return value
        self.note(raw, f"{key} is {_kind(value)}, expected a string", fatal=fatal)
        return None

    def string_list(
        self, raw: _Raw, obj: Mapping[str, Any], key: str, *, fatal: bool = True
    ) -> list[str] | None:
        value = obj.get(key)
        if value is None:
            return None
        if not isinstance(value, list):
            self.note(raw, f"{key} is {_kind(value)}, expected a list of strings", fatal=fatal)
            return None
        bad = [i for i, v in enumerate(value) if not isinstance(v, str)]
        if bad:
            self.note(
                raw, f"{key}[{bad[0]}] is {_kind(value[bad[0]])}, expected a string", fatal=fatal
            )
            return None
        return list(value)

    def string_map(
        self, raw: _Raw, obj: Mapping[str, Any], key: str, *, fatal: bool = True
    ) -> dict[str, str]:
        """A name -> string map; non-string values are dropped with a problem line."""
        value = obj.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.note(raw, f"{key} is {_kind(value)}, expected an object", fatal=fatal)
            return {}
        out: dict[str, str] = {}
        for name, v in value.items():
            if isinstance(v, str):
                out[str(name)] = v
            else:
                self.note(
                    raw, f"{key} {name} is {_kind(v)}, expected a string (left out)", fatal=False
                )
        return out

    def passed_env(
        self, raw: _Raw, obj: Mapping[str, Any], key: str, vctx: VariableContext, why: str = ""
    ) -> None:
        """``key`` lists variable names whose values the client passes from its own environment
        (Codex ``env_vars``, Goose ``env_keys``): copy the set ones into ``raw.env``."""
        for var in self.string_list(raw, obj, key, fatal=False) or []:
            value = vctx.env(var)
            if value is None:
                self.problems.append(
                    f"server {raw.name!r}: {key} {var} is not set in this environment{why}"
                )
            else:
                raw.env.setdefault(var, value)

    def flag(self, raw: _Raw, obj: Mapping[str, Any], key: str) -> bool | None:
        value = obj.get(key)
        if value is None or isinstance(value, bool):
            return value
        self.note(raw, f"{key} is {_kind(value)}, expected true or false (ignored)", fatal=False)
        return None


def _transport(raw: _Raw, type_value: object, reader: _Reader) -> None:
    """Set raw.transport from an explicit ``type`` (aliases per research §4.2) or the fields."""
    if type_value is not None and not isinstance(type_value, str):
        reader.note(raw, f"type is {_kind(type_value)}, expected a string", fatal=True)
        return
    if type_value is None:
        if raw.command is not None:
            raw.transport = "stdio"
        elif raw.url is not None:
            raw.transport = raw.transport or "auto"
        return
    if type_value in _STDIO_TYPES:
        raw.transport = "stdio"
    elif type_value in _HTTP_TYPES:
        raw.transport = "http"
    elif type_value == "sse":
        raw.transport = "sse"
    elif type_value in _REMOTE_TYPES:
        raw.transport = "auto"
    else:
        reader.note(raw, f"unsupported transport type {type_value!r}", fatal=True)


# ---------------------------------------------------------------- finishing an entry

_FIELD_ORDER = ("command", "args", "env", "cwd", "url", "headers")


@dataclass(frozen=True)
class _EnvFileRead:
    path: str | None  # resolved absolute path, None when the reference cannot be resolved
    values: Mapping[str, str]
    note: str | None  # set when the variables could not be loaded


def _env_file_path(written: str, source: str, platform: str) -> str:
    """``written`` (variables already resolved) relative to the config file's directory."""
    if platform == "win32":
        if ntpath.isabs(written):
            return ntpath.normpath(written)
        return ntpath.normpath(ntpath.join(ntpath.dirname(source), written))
    if posixpath.isabs(written):
        return posixpath.normpath(written)
    return posixpath.normpath(posixpath.join(posixpath.dirname(source), written))


def _read_env_file(
    raw: _Raw, syntax: VariableSyntax, vctx: VariableContext, load: _EnvFileLoader
) -> _EnvFileRead:
    assert raw.env_file is not None
    r = resolve(raw.env_file, syntax, vctx)
    without = "launched without its variables"
    if r.unresolved:
        note = f"envFile holds unresolved {', '.join(r.unresolved)}: {without}"
        return _EnvFileRead(None, {}, note)
    path = _env_file_path(r.value, load.source, vctx.platform)
    if load.read_text is None:
        return _EnvFileRead(path, {}, f"envFile {path} is not read here: {without}")
    try:
        text = load.read_text(path)
    except FileNotFoundError:
        return _EnvFileRead(path, {}, f"envFile {path} does not exist: {without}")
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        return _EnvFileRead(path, {}, f"envFile {path} cannot be read ({reason}): {without}")
    parsed = parse_dotenv(text)
    load.problems.extend(f"server {raw.name!r}: envFile {path} {p}" for p in parsed.problems)
    return _EnvFileRead(path, parsed.values, None)


@dataclass(frozen=True)
class _EnvFileLoader:
    """What reading an envFile needs: the config's path, the reader, the file's problem list."""

    source: str
    read_text: Callable[[str], str] | None
    problems: list[str]


def _finish(
    raw: _Raw, syntax: VariableSyntax, vctx: VariableContext, load: _EnvFileLoader | None = None
) -> ConfigEntry:
    common: dict[str, Any] = {
        "name": raw.name,
        "disabled": raw.disabled,
        "always_load": raw.always_load,
        "line": raw.line,
        "enabled_tools": raw.enabled_tools,
        "disabled_tools": raw.disabled_tools,
    }
    if raw.fatal is None and raw.transport is None:
        raw.fatal = "no command or url"
    if raw.fatal is None and raw.transport == "stdio" and not raw.command:
        raw.fatal = "no command" if raw.command is None else "empty command"
    if raw.fatal is None and raw.transport != "stdio" and not raw.url:
        raw.fatal = f"transport {raw.transport} without a url"
    if raw.fatal is not None:
        return ConfigEntry(spec=None, problem=raw.fatal, **common)

    unresolved: list[str] = list(raw.unresolved)
    where: list[str] = list(raw.unresolved_fields)

    def res(text: str, fld: str) -> str:
        r = resolve(text, syntax, vctx)
        if r.unresolved:
            unresolved.extend(r.unresolved)
            where.append(fld)
        return r.value

    notes: list[str] = []
    file_env: Mapping[str, str] = {}
    if raw.env_file is not None and raw.transport == "stdio" and load is not None:
        got = _read_env_file(raw, syntax, vctx, load)
        common["env_file"] = got.path
        file_env = got.values
        if got.note is not None:
            notes.append(got.note)
            load.problems.append(f"server {raw.name!r}: {got.note}")
    common["notes"] = tuple(notes)
    if raw.transport == "stdio":
        assert raw.command is not None
        argv = [res(raw.command, "command")] + [res(a, "args") for a in raw.args]
        # explicit env entries win over the envFile; envFile values are never expanded
        env = {**file_env, **{k: res(v, "env") for k, v in raw.env.items()}}
        cwd = res(raw.cwd, "cwd") if raw.cwd is not None else None
        spec: ServerSpec = ServerSpec.stdio(raw.name, argv, env=env, cwd=cwd)
    else:
        assert raw.url is not None
        url = res(raw.url, "url")
        headers = {k: res(v, "headers") for k, v in raw.headers.items()}
        spec = ServerSpec.remote(raw.name, url, transport=raw.transport or "auto", headers=headers)
        scheme = urlsplit(url).scheme.lower() if not unresolved else "https"
        if scheme not in ("http", "https"):
            problem = f"url scheme {scheme!r} is not supported (http and https only)"
            return ConfigEntry(spec=None, problem=problem, **common)
    if unresolved:
        refs = tuple(dict.fromkeys(unresolved))
        fields = sorted(
            set(where), key=lambda f: _FIELD_ORDER.index(f) if f in _FIELD_ORDER else 99
        )
        problem = f"unresolved {', '.join(refs)} in {', '.join(fields)}"
        return ConfigEntry(spec=None, unresolved=refs, problem=problem, **common)
    return ConfigEntry(spec=spec, **common)


# ---------------------------------------------------------------- entry shapes


@dataclass(frozen=True)
class _Dialect:
    """How one client spells an entry in a ``name -> {...}`` map."""

    client: str
    url_keys: tuple[str, ...] = ("url",)  # in precedence order
    sse_url_keys: frozenset[str] = frozenset()  # url keys that mean SSE when no type is given
    http_url_keys: frozenset[str] = frozenset()  # url keys that mean streamable HTTP
    url_first: bool = False  # a url beats a command when both are present (Gemini)
    remote_allowed: bool = True
    include_key: str | None = None  # per-server tool allowlist field
    exclude_key: str | None = None  # per-server tool denylist field
    env_file: bool = False  # reads a stdio server's ``envFile`` (a dotenv file)


_DIALECTS: dict[str, _Dialect] = {
    "claude-desktop": _Dialect(
        "claude-desktop", url_keys=("url", "serverUrl"), remote_allowed=False
    ),
    "claude-code": _Dialect("claude-code"),
    "cursor": _Dialect("cursor", env_file=True),
    "vscode": _Dialect("vscode", env_file=True),
    "windsurf": _Dialect("windsurf", url_keys=("serverUrl", "url"), exclude_key="disabledTools"),
    "gemini": _Dialect(
        "gemini",
        url_keys=("httpUrl", "url"),
        sse_url_keys=frozenset({"url"}),
        http_url_keys=frozenset({"httpUrl"}),
        url_first=True,
        include_key="includeTools",
        exclude_key="excludeTools",
    ),
    "cline": _Dialect("cline", exclude_key="disabledTools"),
    "roo": _Dialect("roo", exclude_key="disabledTools"),
    "copilot": _Dialect("copilot", include_key="tools"),
    "zed": _Dialect("zed"),
    "opencode": _Dialect("opencode"),
    "continue": _Dialect("continue"),
    EXPLICIT: _Dialect(
        EXPLICIT,
        url_keys=("url", "serverUrl", "httpUrl"),
        http_url_keys=frozenset({"httpUrl"}),
        include_key="includeTools",
        exclude_key="disabledTools",
        env_file=True,
    ),
}


def _tool_list(
    reader: _Reader, raw: _Raw, obj: Mapping[str, Any], key: str | None
) -> list[str] | None:
    if key is None:
        return None
    return reader.string_list(raw, obj, key, fatal=False)


def _entry_from_map(
    name: str, obj: Mapping[str, Any], dialect: _Dialect, reader: _Reader, line: int | None
) -> _Raw:
    """The common ``{command, args, env, cwd, type, url, headers, disabled...}`` object."""
    raw = _Raw(name=name, line=line)
    command_value = obj.get("command")
    if isinstance(command_value, dict):  # Zed's older nested shape {path, args, env}
        raw.command = reader.string(raw, command_value, "path")
        raw.args = reader.string_list(raw, command_value, "args") or []
        raw.env = reader.string_map(raw, command_value, "env")
    elif isinstance(command_value, list) and dialect.client == "opencode":
        argv = reader.string_list(raw, obj, "command") or []
        raw.command, raw.args = (argv[0], argv[1:]) if argv else ("", [])
        raw.env = reader.string_map(raw, obj, "environment")
    else:
        raw.command = reader.string(raw, obj, "command")
        args = reader.string_list(raw, obj, "args")
        raw.args = args or []
        raw.env = reader.string_map(raw, obj, "env")
    raw.cwd = reader.string(raw, obj, "cwd")
    if dialect.env_file:
        raw.env_file = reader.string(raw, obj, "envFile", fatal=False)
    elif "envFile" in obj:
        reader.note(
            raw, f"envFile is not read ({dialect.client} does not document it)", fatal=False
        )
    url_key = None
    for key in dialect.url_keys:
        value = reader.string(raw, obj, key)
        if value is not None:
            raw.url, url_key = value, key
            break
    raw.headers = reader.string_map(raw, obj, "headers")
    disabled = reader.flag(raw, obj, "disabled")
    enabled = reader.flag(raw, obj, "enabled")
    raw.disabled = disabled is True or enabled is False
    raw.always_load = reader.flag(raw, obj, "alwaysLoad") is True
    include = _tool_list(reader, raw, obj, dialect.include_key)
    if include is not None and include != ["*"]:
        raw.enabled_tools = tuple(include)
    exclude = _tool_list(reader, raw, obj, dialect.exclude_key)
    raw.disabled_tools = tuple(exclude or ())

    type_value = obj.get("type", obj.get("transport"))
    use_url = raw.url is not None and (raw.command is None or dialect.url_first)
    if type_value is None and use_url:
        if url_key in dialect.http_url_keys:
            raw.transport = "http"
        elif url_key in dialect.sse_url_keys:
            raw.transport = "sse"
        raw.command = None
    _transport(raw, type_value, reader)
    if raw.transport is not None and raw.transport != "stdio":
        raw.command = None
        if not dialect.remote_allowed and raw.fatal is None:
            raw.fatal = f"remote entry: {dialect.client} does not load url entries from this file"
    return raw


def _line(lines: Mapping[KeyPath, int], path: KeyPath) -> int | None:
    return lines.get(path)


def _map_block(
    block: Mapping[str, Any],
    path: KeyPath,
    dialect: _Dialect,
    problems: list[str],
    lines: Mapping[KeyPath, int],
) -> list[_Raw]:
    reader = _Reader(problems)
    out: list[_Raw] = []
    for name, obj in block.items():
        line = _line(lines, (*path, name))
        if not isinstance(obj, dict):
            raw = _Raw(name=str(name), line=line)
            reader.note(raw, f"entry is {_kind(obj)}, expected an object", fatal=True)
            out.append(raw)
            continue
        out.append(_entry_from_map(str(name), obj, dialect, reader, line))
    return out


# ---------------------------------------------------------------- file result


class _Broken(McpcostError):
    """The file cannot be used: becomes an ERROR ConfigFile with this one-line message."""


def _state(entries: tuple[ConfigEntry, ...]) -> ConfigState:
    if not entries:
        return ConfigState.DECLARES_NOTHING
    if all(e.disabled for e in entries):
        return ConfigState.ALL_DISABLED
    return ConfigState.OK


def _file(
    client: str,
    source: str,
    scope: str,
    raws: list[_Raw],
    problems: list[str],
    syntax: VariableSyntax,
    vctx: VariableContext,
    read_text: Callable[[str], str] | None = None,
) -> ConfigFile:
    load = _EnvFileLoader(source, read_text, problems)
    entries = tuple(_finish(r, syntax, vctx, load) for r in raws)
    return ConfigFile(
        client=client,
        source=source,
        state=_state(entries),
        entries=entries,
        scope=scope,
        problems=tuple(problems),
    )


def _error(client: str, source: str, scope: str, message: str) -> ConfigFile:
    return ConfigFile(
        client=client, source=source, state=ConfigState.ERROR, error=message, scope=scope
    )


# ---------------------------------------------------------------- text formats


def _load_jsonc(text: str) -> tuple[Any, dict[KeyPath, int]]:
    clean = " " + text[1:] if text.startswith("\ufeff") else text
    try:
        data = parse_json(clean)  # plain JSON (most files, and big ~/.claude.json): no stripping
    except JSONSyntaxError:
        try:
            clean = strip_jsonc(clean)
            data = parse_json(clean)
        except JSONSyntaxError as exc:
            raise _Broken(f"not valid JSON: {exc}") from None
    return data, key_lines_clean(clean)


def _load_toml(text: str) -> tuple[Any, dict[KeyPath, int]]:
    try:
        data = tomllib.loads(text.lstrip("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        raise _Broken(f"not valid TOML: {str(exc).splitlines()[0]}") from None
    return data, _toml_lines(text, data)


def _toml_lines(text: str, data: Mapping[str, Any]) -> dict[KeyPath, int]:
    """Best effort: the line of ``[mcp_servers.NAME]`` or of ``NAME = {`` in ``[mcp_servers]``."""
    out: dict[KeyPath, int] = {}
    block = data.get("mcp_servers")
    if not isinstance(block, dict):
        return out
    text_lines = text.splitlines()
    for name in block:
        quoted = re.escape(name)
        pattern = re.compile(
            r"^\s*(\[\s*mcp_servers\s*\.\s*(?:"
            + quoted
            + r"|\""
            + quoted
            + r"\"|'"
            + quoted
            + r"')\s*\]"
            r"|(?:mcp_servers\s*\.\s*)?(?:" + quoted + r"|\"" + quoted + r"\")\s*(?:\.|=))"
        )
        for number, line in enumerate(text_lines, 1):
            if pattern.match(line):
                out[("mcp_servers", name)] = number
                break
    return out


def _yaml_error(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or "cannot be parsed"
    if mark is not None:
        return f"not valid YAML: {problem} at line {mark.line + 1} column {mark.column + 1}"
    return f"not valid YAML: {problem}"


def _load_yaml(text: str) -> tuple[Any, dict[KeyPath, int]]:
    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:  # the message may quote the line: build our own
        raise _Broken(_yaml_error(exc)) from None
    lines: dict[KeyPath, int] = {}

    def walk(n: yaml.Node | None, path: KeyPath) -> None:
        if isinstance(n, yaml.MappingNode):
            for key_node, value_node in n.value:
                if isinstance(key_node, yaml.ScalarNode):
                    child = (*path, str(key_node.value))
                    lines[child] = key_node.start_mark.line + 1
                    walk(value_node, child)
        elif isinstance(n, yaml.SequenceNode):
            for i, item in enumerate(n.value):
                lines[(*path, i)] = item.start_mark.line + 1
                walk(item, (*path, i))

    walk(node, ())
    return data, lines


def _object(data: Any, what: str) -> dict[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _Broken(f"{what} is {_kind(data)}, expected an object")
    return data


def _block(
    data: Mapping[str, Any], key: str, problems: list[str], where: str = ""
) -> dict[str, Any] | None:
    """The ``key`` server block of ``data``. A wrong-typed block is a problem line and is left
    out (None), so the rest of the file is still read and the user sees why it declares nothing."""
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        problems.append(f"{where}{key} is {_kind(value)}, expected an object (ignored)")
        return None
    return value


# ---------------------------------------------------------------- per-client parsers


def _norm_path(path: str, ctx: ParseContext) -> str:
    if ctx.realpath is not None:
        try:
            path = ctx.realpath(path)
        except (OSError, ValueError):
            pass
    if ctx.platform == "win32":
        path = ntpath.normpath(path.replace("/", "\\"))
        path = path.rstrip("\\") if len(path) > 3 else path
        return path.casefold()
    path = posixpath.normpath(path) if path else path
    path = path.rstrip("/") or "/"
    return path.casefold() if ctx.platform == "darwin" else path


def claude_project_key(projects: Mapping[str, Any], ctx: ParseContext) -> str | None:
    """The key of ``projects`` that names the current project: exact first, then normalised
    (trailing separators, case on macOS/Windows, symlinks when ``ctx.realpath`` is given)."""
    wanted = ctx.project_key if ctx.project_key is not None else ctx.cwd
    if wanted in projects:
        return wanted
    target = _norm_path(wanted, ctx)
    for key in projects:
        if _norm_path(key, ctx) == target:
            return key
    return None


def _parse_claude_code(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> list[_Raw]:
    root = _object(data, "the file")
    dialect = _DIALECTS["claude-code"]
    raws: dict[str, _Raw] = {}
    block = _block(root, "mcpServers", problems)
    for raw in _map_block(block or {}, ("mcpServers",), dialect, problems, lines):
        raws[raw.name] = raw
    projects = root.get("projects")
    if isinstance(projects, dict):
        key = claude_project_key(projects, ctx)
        project = projects[key] if key is not None else None
        if key is not None and not isinstance(project, dict):
            problems.append(f"projects[<cwd>] is {_kind(project)}, expected an object (ignored)")
        elif key is not None and project is not None:
            local = _block(project, "mcpServers", problems, "projects[<cwd>].")
            path: KeyPath = ("projects", key, "mcpServers")
            for raw in _map_block(local or {}, path, dialect, problems, lines):
                if raw.name in raws:
                    problems.append(
                        f"server {raw.name!r}: the project entry overrides the user entry"
                    )
                raws[raw.name] = raw
    elif projects is not None:
        problems.append(f"projects is {_kind(projects)}, expected an object (ignored)")
    return list(raws.values())


def _top_block(
    data: Any, key: str, client: str, lines: Mapping[KeyPath, int], problems: list[str]
) -> tuple[dict[str, Any], dict[str, Any], list[_Raw]]:
    """(root, block, entries) for a client whose servers are a ``name -> {...}`` map at ``key``."""
    root = _object(data, "the file")
    block = _block(root, key, problems) or {}
    return root, block, _map_block(block, (key,), _DIALECTS[client], problems, lines)


def _parse_map_client(
    client: str, key: str
) -> Callable[[Any, Mapping[KeyPath, int], ParseContext, list[str]], list[_Raw]]:
    def parse(
        data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
    ) -> list[_Raw]:
        return _top_block(data, key, client, lines, problems)[2]

    return parse


def _parse_gemini(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> list[_Raw]:
    root, _, raws = _top_block(data, "mcpServers", "gemini", lines, problems)
    mcp = _block(root, "mcp", problems)
    if mcp is not None:
        allowed = mcp.get("allowed")
        excluded = mcp.get("excluded")
        for raw in raws:
            if isinstance(excluded, list) and raw.name in excluded:
                raw.disabled = True
            if isinstance(allowed, list) and raw.name not in allowed:
                raw.disabled = True
    return raws


def _vscode_servers(
    root: Mapping[str, Any], problems: list[str]
) -> tuple[dict[str, Any], KeyPath, Any]:
    if "servers" in root or "inputs" in root:
        return _block(root, "servers", problems) or {}, ("servers",), root.get("inputs")
    # legacy settings.json: "mcp": {"servers": ..., "inputs": ...}
    mcp = _block(root, "mcp", problems)
    if mcp is None:
        return {}, ("servers",), None
    servers = _block(mcp, "servers", problems, "mcp.") or {}
    return servers, ("mcp", "servers"), mcp.get("inputs")


def _parse_vscode(
    root: Mapping[str, Any], lines: Mapping[KeyPath, int], problems: list[str]
) -> tuple[list[_Raw], dict[str, str | None]]:
    """VS Code's servers and the readable defaults of its ``inputs``."""
    block, path, inputs = _vscode_servers(root, problems)
    input_values = vscode_inputs(inputs, problems)
    return _map_block(block, path, _DIALECTS["vscode"], problems, lines), input_values


def vscode_inputs(inputs: Any, problems: list[str]) -> dict[str, str | None]:
    """Input id -> its readable default; None for a password input or one without a default."""
    out: dict[str, str | None] = {}
    if inputs is None:
        return out
    if not isinstance(inputs, list):
        problems.append(f"inputs is {_kind(inputs)}, expected a list (ignored)")
        return out
    for i, item in enumerate(inputs):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            problems.append(f"inputs[{i}] has no string id (ignored)")
            continue
        default = item.get("default")
        secret = item.get("password") is True
        out[item["id"]] = default if isinstance(default, str) and not secret else None
    return out


def _parse_zed(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> list[_Raw]:
    _, block, raws = _top_block(data, "context_servers", "zed", lines, problems)
    for raw in raws:
        obj = block.get(raw.name)
        extension = isinstance(obj, dict) and obj.get("source") == "extension"
        if extension and raw.fatal is None and raw.command is None and raw.url is None:
            raw.fatal = "provided by a Zed extension: its launch is not in this file"
    return raws


def _own_entries(
    data: Any, key: str, shape: str, lines: Mapping[KeyPath, int], reader: _Reader
) -> tuple[list[_Raw], list[tuple[_Raw, dict[str, Any]]]]:
    """For clients with their own entry fields (Codex, Goose): every entry of the ``key`` block
    as a _Raw (non-objects already marked), and the (raw, object) pairs still to be read."""
    block = _block(_object(data, "the file"), key, reader.problems) or {}
    raws: list[_Raw] = []
    todo: list[tuple[_Raw, dict[str, Any]]] = []
    for name, obj in block.items():
        raw = _Raw(name=str(name), line=lines.get((key, str(name))))
        raws.append(raw)
        if isinstance(obj, dict):
            todo.append((raw, obj))
        else:
            reader.note(raw, f"entry is {_kind(obj)}, expected {shape}", fatal=True)
    return raws, todo


def _parse_codex(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> list[_Raw]:
    reader = _Reader(problems)
    vctx = ctx.variables()
    out, todo = _own_entries(data, "mcp_servers", "a table", lines, reader)
    for raw, obj in todo:
        raw.command = reader.string(raw, obj, "command")
        raw.args = reader.string_list(raw, obj, "args") or []
        raw.env = reader.string_map(raw, obj, "env")
        reader.passed_env(raw, obj, "env_vars", vctx)
        raw.cwd = reader.string(raw, obj, "cwd")
        raw.url = reader.string(raw, obj, "url")
        raw.headers = reader.string_map(raw, obj, "http_headers")
        for header, var in reader.string_map(raw, obj, "env_http_headers").items():
            value = vctx.env(var)
            if value is None:
                raw.unresolved.append("${" + var + "}")
                raw.unresolved_fields.append("headers")
            else:
                raw.headers[header] = value
        bearer = reader.string(raw, obj, "bearer_token_env_var")
        if bearer is not None:
            value = vctx.env(bearer)
            if value is None:
                raw.unresolved.append("${" + bearer + "}")
                raw.unresolved_fields.append("headers")
            else:
                raw.headers["Authorization"] = f"Bearer {value}"
        raw.disabled = reader.flag(raw, obj, "enabled") is False
        enabled_tools = reader.string_list(raw, obj, "enabled_tools", fatal=False)
        raw.enabled_tools = tuple(enabled_tools) if enabled_tools is not None else None
        raw.disabled_tools = tuple(
            reader.string_list(raw, obj, "disabled_tools", fatal=False) or ()
        )
        if raw.command is not None:
            raw.transport = "stdio"
            raw.url = None
        elif raw.url is not None:
            raw.transport = "http"  # Codex speaks streamable HTTP to url entries
    return out


def _parse_continue(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> list[_Raw]:
    root = _object(data, "the file")
    servers = root.get("mcpServers")
    if servers is None:
        return []
    if isinstance(servers, dict):  # a Claude/Cursor-style JSON block file
        return _map_block(servers, ("mcpServers",), _DIALECTS["continue"], problems, lines)
    if not isinstance(servers, list):
        problems.append(f"mcpServers is {_kind(servers)}, expected a list (ignored)")
        return []
    reader = _Reader(problems)
    out: list[_Raw] = []
    for i, item in enumerate(servers):
        line = lines.get(("mcpServers", i))
        if not isinstance(item, dict):
            raw = _Raw(name=f"#{i + 1}", line=line)
            reader.note(raw, f"entry is {_kind(item)}, expected a mapping", fatal=True)
            out.append(raw)
            continue
        name = item.get("name")
        if not isinstance(name, str) or not name:
            name = f"#{i + 1}"
            problems.append(f"mcpServers[{i}] has no name")
        obj = dict(item)
        options = item.get("requestOptions")
        if "headers" not in obj and isinstance(options, dict) and "headers" in options:
            obj["headers"] = options["headers"]
        if any(r.name == name for r in out):
            problems.append(f"mcpServers[{i}]: a second server named {name!r} (left out)")
            continue
        out.append(_entry_from_map(name, obj, _DIALECTS["continue"], reader, line))
    return out


_GOOSE_INTERNAL = frozenset({"builtin", "platform", "frontend", "inline_python"})


def _parse_goose(
    data: Any, lines: Mapping[KeyPath, int], ctx: ParseContext, problems: list[str]
) -> list[_Raw]:
    reader = _Reader(problems)
    vctx = ctx.variables()
    out, todo = _own_entries(data, "extensions", "a mapping", lines, reader)
    for raw, obj in todo:
        raw.disabled = reader.flag(raw, obj, "enabled") is False
        kind = obj.get("type")
        if kind in _GOOSE_INTERNAL:
            raw.fatal = f"{kind} extension: runs inside Goose, nothing to launch"
            continue
        raw.command = reader.string(raw, obj, "cmd")
        raw.args = reader.string_list(raw, obj, "args") or []
        raw.env = reader.string_map(raw, obj, "envs")
        reader.passed_env(raw, obj, "env_keys", vctx, " (keyring not read)")
        raw.cwd = reader.string(raw, obj, "cwd")
        raw.url = reader.string(raw, obj, "uri")
        raw.headers = reader.string_map(raw, obj, "headers")
        _transport(raw, kind, reader)
        if raw.transport is not None and raw.transport != "stdio":
            raw.command = None
    return out


_Parser = Callable[[Any, Mapping[KeyPath, int], ParseContext, list[str]], list[_Raw]]

_PARSERS: dict[str, _Parser] = {
    "claude-desktop": _parse_map_client("claude-desktop", "mcpServers"),
    "claude-code": _parse_claude_code,
    "cursor": _parse_map_client("cursor", "mcpServers"),
    "windsurf": _parse_map_client("windsurf", "mcpServers"),
    "gemini": _parse_gemini,
    "zed": _parse_zed,
    "cline": _parse_map_client("cline", "mcpServers"),
    "roo": _parse_map_client("roo", "mcpServers"),
    "continue": _parse_continue,
    "goose": _parse_goose,
    "copilot": _parse_map_client("copilot", "mcpServers"),
    "codex": _parse_codex,
    "opencode": _parse_map_client("opencode", "mcp"),
}


def _format_of(client: str, source: str) -> str:
    if client == "codex":
        return "toml"
    if client in ("goose",):
        return "yaml"
    if client == "continue" and not source.lower().endswith(".json"):
        return "yaml"
    return "json"


_LOADERS = {"json": _load_jsonc, "toml": _load_toml, "yaml": _load_yaml}


def parse_config(
    client: str, source: str, text: str, *, context: ParseContext, scope: str = "user"
) -> ConfigFile:
    """Parse one config file of ``client`` (a KNOWN_CLIENTS name, or ``explicit``: detected)."""
    if client == EXPLICIT:
        return parse_detected(source, text, context=context, client=EXPLICIT, scope=scope)
    if client not in _PARSERS and client != "vscode":
        raise ValueError(f"unknown client {client!r}")
    problems: list[str] = []
    try:
        data, lines = _LOADERS[_format_of(client, source)](text)
        if client == "vscode":
            raws, input_values = _parse_vscode(_object(data, "the file"), lines, problems)
            vctx = context.variables(input_values)
        else:
            raws = _PARSERS[client](data, lines, context, problems)
            vctx = context.variables()
    except _Broken as exc:
        return _error(client, source, scope, str(exc))
    return _file(client, source, scope, raws, problems, syntax_for(client), vctx, context.read_text)


# ---------------------------------------------------------------- format by content

_DETECT_ORDER = ("mcpServers", "servers", "context_servers", "mcp_servers", "extensions", "mcp")


_CONTINUE_MARKERS = ("name", "version", "schema")


def _continue_list(data: Mapping[str, Any], text_format: str | None) -> bool:
    """A list ``mcpServers`` is Continue's form in YAML, or in JSON that carries a Continue block
    file's ``name``/``version``/``schema``; elsewhere it is a wrong-typed server block."""
    if not isinstance(data.get("mcpServers"), list):
        return False
    return text_format != "json" or any(k in data for k in _CONTINUE_MARKERS)


def detect_dialect(data: Mapping[str, Any], text_format: str | None = None) -> str | None:
    """Which client's shape a parsed config has, from its top-level key (``text_format``:
    json/toml/yaml, when known)."""
    if isinstance(data.get("projects"), dict) and any(
        isinstance(p, dict) and "mcpServers" in p for p in data["projects"].values()
    ):
        return "claude-code"
    for key in _DETECT_ORDER:
        value = data.get(key)
        if value is None:
            continue
        if key == "mcpServers":
            return "continue" if _continue_list(data, text_format) else EXPLICIT
        if key == "servers":
            return "vscode"
        if key == "context_servers":
            return "zed"
        if key == "mcp_servers":
            return "codex"
        if key == "extensions":
            return "goose"
        if isinstance(value, dict) and ("servers" in value or "inputs" in value):
            return "vscode"
        return "opencode"
    return None


def _sniff(text: str) -> tuple[str, Any, dict[KeyPath, int]]:
    body = text.lstrip("\ufeff \t\r\n")
    if body.startswith(("{", "[", "//", "/*")):
        data, lines = _load_jsonc(text)
        return "json", data, lines
    try:
        data, lines = _load_toml(text)
        if isinstance(data, dict) and data:
            return "toml", data, lines
    except _Broken:
        pass
    try:
        data, lines = _load_yaml(text)
    except _Broken as exc:
        raise _Broken(f"not JSON, TOML or YAML ({exc})") from None
    return "yaml", data, lines


def parse_detected(
    source: str,
    text: str,
    *,
    context: ParseContext,
    client: str = EXPLICIT,
    scope: str = "explicit",
) -> ConfigFile:
    """A config of unknown client: format by content, shape by top-level key; labelled ``client``."""
    problems: list[str] = []
    try:
        text_format, data, lines = _sniff(text)
        root = _object(data, "the file")
        dialect = detect_dialect(root, text_format)
        vctx = context.variables()
        if dialect is None:
            raws: list[_Raw] = []
        elif dialect == "vscode":
            raws, input_values = _parse_vscode(root, lines, problems)
            vctx = context.variables(input_values)
        elif dialect == EXPLICIT:
            raws = _map_block(
                _block(root, "mcpServers", problems) or {},
                ("mcpServers",),
                _DIALECTS[EXPLICIT],
                problems,
                lines,
            )
        else:
            raws = _PARSERS[dialect](root, lines, context, problems)
    except _Broken as exc:
        return _error(client, source, scope, str(exc))
    syntax = syntax_for(EXPLICIT if dialect in (None, EXPLICIT) else dialect)
    return _file(client, source, scope, raws, problems, syntax, vctx, context.read_text)
