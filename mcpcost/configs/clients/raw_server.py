"""One server entry from raw fields to a ``ConfigEntry``: the machinery every client shares.

A client's parser reads its own shape into ``RawServer`` values (launch fields before variable
resolution); ``finish_entry`` resolves variables, reads an ``envFile`` and decides whether the
server can be launched. Nothing here raises on bad input: wrong-typed fields become problem lines,
and problem strings name fields, never values.
"""

from __future__ import annotations

import ntpath
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from mcpcost.configs.clients.formats import kind_of
from mcpcost.configs.config_file import (
    ClientName,
    ConfigEntry,
    ConfigFile,
    ConfigState,
    ReadFailure,
    Scope,
)
from mcpcost.configs.variables import VariableContext, VariableSyntax, parse_dotenv, resolve
from mcpcost.core.spec import DeclaredLaunch, ServerSpec, TransportName

_HTTP_TYPES = frozenset({"http", "streamable-http", "streamableHttp", "streamable_http"})
_STDIO_TYPES = frozenset({"stdio", "local"})
_REMOTE_TYPES = frozenset({"remote"})  # a URL whose transport is negotiated (OpenCode)


@dataclass(frozen=True, slots=True)
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


@dataclass(slots=True)
class RawServer:
    """One server's launch fields before variable resolution."""

    name: str
    line: int | None = None
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    transport: TransportName | None = None  # None until inferred
    headers: dict[str, str] = field(default_factory=dict)
    disabled: bool = False
    always_load: bool = False
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()
    env_file: str | None = None  # the envFile field as written
    fatal: str | None = None  # why it cannot be launched regardless of variables
    unresolved: list[str] = field(default_factory=list)  # found before resolution (Codex...)
    unresolved_fields: list[str] = field(default_factory=list)
    scope: Scope | None = None  # when it differs from its file's (a client's local block)


class FieldReader:
    """Reads typed fields from one entry, recording wrong types as file problems."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems

    def note(self, raw: RawServer, text: str, *, fatal: bool) -> None:
        self.problems.append(f"server {raw.name!r}: {text}")
        if fatal and raw.fatal is None:
            raw.fatal = text

    def string(
        self, raw: RawServer, obj: Mapping[str, Any], key: str, *, fatal: bool = True
    ) -> str | None:
        value = obj.get(key)
        if value is None or isinstance(value, str):
            return value
        self.note(raw, f"{key} is {kind_of(value)}, expected a string", fatal=fatal)
        return None

    def string_list(
        self, raw: RawServer, obj: Mapping[str, Any], key: str, *, fatal: bool = True
    ) -> list[str] | None:
        value = obj.get(key)
        if value is None:
            return None
        if not isinstance(value, list):
            self.note(raw, f"{key} is {kind_of(value)}, expected a list of strings", fatal=fatal)
            return None
        bad = [i for i, v in enumerate(value) if not isinstance(v, str)]
        if bad:
            self.note(
                raw, f"{key}[{bad[0]}] is {kind_of(value[bad[0]])}, expected a string", fatal=fatal
            )
            return None
        return list(value)

    def string_map(
        self, raw: RawServer, obj: Mapping[str, Any], key: str, *, fatal: bool = True
    ) -> dict[str, str]:
        """A name -> string map; non-string values are dropped with a problem line."""
        value = obj.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.note(raw, f"{key} is {kind_of(value)}, expected an object", fatal=fatal)
            return {}
        out: dict[str, str] = {}
        for name, v in value.items():
            if isinstance(v, str):
                out[str(name)] = v
            else:
                self.note(
                    raw, f"{key} {name} is {kind_of(v)}, expected a string (left out)", fatal=False
                )
        return out

    def passed_env(
        self, raw: RawServer, obj: Mapping[str, Any], key: str, vctx: VariableContext, why: str = ""
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

    def flag(self, raw: RawServer, obj: Mapping[str, Any], key: str) -> bool | None:
        value = obj.get(key)
        if value is None or isinstance(value, bool):
            return value
        self.note(raw, f"{key} is {kind_of(value)}, expected true or false (ignored)", fatal=False)
        return None


def set_transport(raw: RawServer, type_value: object, reader: FieldReader) -> None:
    """Set raw.transport from an explicit ``type`` (or one of its aliases) or from the fields."""
    if type_value is not None and not isinstance(type_value, str):
        reader.note(raw, f"type is {kind_of(type_value)}, expected a string", fatal=True)
        return
    if type_value is None:
        if raw.command is not None:
            raw.transport = TransportName.STDIO
        elif raw.url is not None:
            raw.transport = raw.transport or TransportName.AUTO
        return
    if type_value in _STDIO_TYPES:
        raw.transport = TransportName.STDIO
    elif type_value in _HTTP_TYPES:
        raw.transport = TransportName.HTTP
    elif type_value == "sse":
        raw.transport = TransportName.SSE
    elif type_value in _REMOTE_TYPES:
        raw.transport = TransportName.AUTO
    else:
        reader.note(raw, f"unsupported transport type {type_value!r}", fatal=True)


# ---------------------------------------------------------------- finishing an entry

_FIELD_ORDER = ("command", "args", "env", "cwd", "url", "headers")


@dataclass(frozen=True, slots=True)
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
    raw: RawServer, syntax: VariableSyntax, vctx: VariableContext, load: _EnvFileLoader
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


@dataclass(frozen=True, slots=True)
class _EnvFileLoader:
    """What reading an envFile needs: the config's path, the reader, the file's problem list."""

    source: str
    read_text: Callable[[str], str] | None
    problems: list[str]


def _declared(raw: RawServer) -> DeclaredLaunch:
    """The entry's launch as written: what stays the same when only a variable's value moves."""
    assert raw.transport is not None
    if raw.transport is TransportName.STDIO:
        return DeclaredLaunch.written(
            raw.transport,
            command=raw.command,
            args=raw.args,
            cwd=raw.cwd,
            env_names=list(raw.env),
            env_file=raw.env_file,
        )
    return DeclaredLaunch.written(raw.transport, url=raw.url, header_names=list(raw.headers))


def finish_entry(
    raw: RawServer,
    syntax: VariableSyntax,
    vctx: VariableContext,
    load: _EnvFileLoader | None = None,
) -> ConfigEntry:
    base = ConfigEntry(
        name=raw.name,
        spec=None,
        disabled=raw.disabled,
        always_load=raw.always_load,
        line=raw.line,
        enabled_tools=raw.enabled_tools,
        disabled_tools=raw.disabled_tools,
        scope=raw.scope,
    )
    if raw.fatal is None and raw.transport is None:
        raw.fatal = "no command or url"
    if raw.fatal is None and raw.transport is TransportName.STDIO and not raw.command:
        raw.fatal = "no command" if raw.command is None else "empty command"
    if raw.fatal is None and raw.transport is not TransportName.STDIO and not raw.url:
        raw.fatal = f"transport {raw.transport} without a url"
    if raw.fatal is not None:
        return replace(base, problem=raw.fatal)
    assert raw.transport is not None
    base = replace(base, declared=_declared(raw))

    unresolved: list[str] = list(raw.unresolved)
    where: list[str] = list(raw.unresolved_fields)

    secrets: list[str] = []

    def res(text: str, fld: str) -> str:
        r = resolve(text, syntax, vctx)
        secrets.extend(r.secrets)
        if r.unresolved:
            unresolved.extend(r.unresolved)
            where.append(fld)
        return r.value

    notes: list[str] = []
    file_env: Mapping[str, str] = {}
    if raw.env_file is not None and raw.transport is TransportName.STDIO and load is not None:
        got = _read_env_file(raw, syntax, vctx, load)
        base = replace(base, env_file=got.path)
        file_env = got.values
        secrets.extend(v for v in file_env.values() if v)  # an envFile's values are secrets
        if got.note is not None:
            notes.append(got.note)
            load.problems.append(f"server {raw.name!r}: {got.note}")
    base = replace(base, notes=tuple(notes))
    if raw.transport is TransportName.STDIO:
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
        spec = ServerSpec.remote(
            raw.name, url, transport=raw.transport or TransportName.AUTO, headers=headers
        )
        scheme = urlsplit(url).scheme.lower() if not unresolved else "https"
        if scheme not in ("http", "https"):
            problem = f"url scheme {scheme!r} is not supported (http and https only)"
            return replace(base, problem=problem)
    spec = replace(spec, secrets=tuple(dict.fromkeys(secrets)))
    if unresolved:
        refs = tuple(dict.fromkeys(unresolved))
        fields = sorted(
            set(where), key=lambda f: _FIELD_ORDER.index(f) if f in _FIELD_ORDER else 99
        )
        problem = f"unresolved {', '.join(refs)} in {', '.join(fields)}"
        return replace(base, unresolved=refs, problem=problem)
    return replace(base, spec=spec)


def _state(entries: tuple[ConfigEntry, ...]) -> ConfigState:
    if not entries:
        return ConfigState.DECLARES_NOTHING
    if all(e.disabled for e in entries):
        return ConfigState.ALL_DISABLED
    return ConfigState.OK


def build_file(
    client: ClientName,
    source: str,
    scope: Scope,
    raws: list[RawServer],
    problems: list[str],
    syntax: VariableSyntax,
    vctx: VariableContext,
    read_text: Callable[[str], str] | None = None,
) -> ConfigFile:
    """The parsed file: every raw entry finished against ``syntax`` and ``vctx``."""
    load = _EnvFileLoader(source, read_text, problems)
    entries = tuple(finish_entry(r, syntax, vctx, load) for r in raws)
    return ConfigFile(
        client=client,
        source=source,
        state=_state(entries),
        entries=entries,
        scope=scope,
        problems=tuple(problems),
    )


def error_file(client: ClientName, source: str, scope: Scope, message: str) -> ConfigFile:
    return ConfigFile(
        client=client,
        source=source,
        state=ConfigState.ERROR,
        error=message,
        scope=scope,
        failure=ReadFailure.UNPARSABLE,
    )
