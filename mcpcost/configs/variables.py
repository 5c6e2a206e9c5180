"""Variable references in client configs, resolved per client's documented syntax (pure).

Each client documents its own syntax (or none: Codex, Claude Desktop, Zed, Cline...); the client's
module in ``mcpcost.configs.clients`` names it as a ``VariableSyntax``. A reference
that cannot be resolved here (an unset variable, a password input, a file reference, a hub
secret) is returned in ``unresolved`` and its text is left in place; the caller must then refuse
to launch the server rather than launch it with the literal text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NAME_DEFAULT = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*):-(?P<default>.*)\Z", re.DOTALL)


@dataclass(frozen=True, slots=True)
class VariableSyntax:
    """Which reference forms a client expands."""

    braces: bool = False  # ${VAR}
    defaults: bool = False  # ${VAR:-default}
    env_prefix: bool = False  # ${env:VAR}
    bare: bool = False  # $VAR
    # ${userHome} ${workspaceFolder} ${workspaceFolderBasename} ${pathSeparator}
    editor: bool = False
    inputs: bool = False  # ${input:id}
    file_refs: bool = False  # ${file:/path}: recognised, never resolved
    opencode: bool = False  # {env:VAR}, {file:path} (file never resolved)
    hub_secrets: bool = False  # ${{ secrets.X }} / ${{ inputs.X }}: never resolved

    @property
    def expands(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


NONE = VariableSyntax()  # a client that expands no references


@dataclass(frozen=True, slots=True)
class VariableContext:
    """What references resolve against. ``inputs`` maps an input id to its readable default
    (None when it has none or is a password)."""

    environ: Mapping[str, str]
    home: str
    workspace: str
    platform: str = "linux"
    inputs: Mapping[str, str | None] = field(default_factory=dict)

    def env(self, name: str) -> str | None:
        if self.platform == "win32":
            upper = name.upper()
            for key, value in self.environ.items():
                if key.upper() == upper:
                    return value
            return None
        return self.environ.get(name)


@dataclass(frozen=True, slots=True)
class Resolution:
    value: str
    unresolved: tuple[str, ...] = ()
    # the values taken from the environment: secrets wherever they land (editor variables and
    # defaults written in the config itself are not)
    secrets: tuple[str, ...] = ()


_BRACE = re.compile(
    r"\$\{\{\s*(?P<hub>[^}]*?)\s*\}\}|\$\{(?P<body>[^{}]*)\}|\$(?P<bare>[A-Za-z_][A-Za-z0-9_]*)"
)
_OPENCODE = re.compile(r"(?<!\$)\{(?P<kind>env|file):(?P<arg>[^{}]*)\}")


def _basename(path: str) -> str:
    trimmed = path.rstrip("/\\")
    cut = max(trimmed.rfind("/"), trimmed.rfind("\\"))
    return trimmed[cut + 1 :] if trimmed else path


def _editor_value(body: str, ctx: VariableContext) -> str | None:
    if body == "userHome":
        return ctx.home
    if body == "workspaceFolder":
        return ctx.workspace
    if body == "workspaceFolderBasename":
        return _basename(ctx.workspace)
    if body in ("pathSeparator", "/"):
        return "\\" if ctx.platform == "win32" else "/"
    return None


_UNRESOLVED = object()
_LITERAL = object()


def _brace(
    body: str, syntax: VariableSyntax, ctx: VariableContext, env: Callable[[str], str | None]
) -> str | object:
    """The value for ``${body}``, _UNRESOLVED, or _LITERAL when this client does not expand it.
    Environment variables are read through ``env`` (which records the secrets it hands out)."""
    if syntax.env_prefix and body.startswith("env:"):
        value = env(body[4:])
        return _UNRESOLVED if value is None else value
    if syntax.inputs and body.startswith("input:"):
        default = ctx.inputs.get(body[6:])
        return _UNRESOLVED if default is None else default
    if syntax.file_refs and body.startswith("file:"):
        return _UNRESOLVED
    if syntax.editor:
        editor = _editor_value(body, ctx)
        if editor is not None:
            return editor
    if syntax.defaults:
        m = _NAME_DEFAULT.match(body)
        if m:
            value = env(m["name"])
            return m["default"] if value is None else value
    if syntax.braces and _NAME.match(body):
        value = env(body)
        return _UNRESOLVED if value is None else value
    return _LITERAL


def resolve(text: str, syntax: VariableSyntax, ctx: VariableContext) -> Resolution:
    """``text`` with every reference this client expands replaced; the rest listed unresolved.

    ``${VAR:-default}`` takes the default only when VAR is unset. Values are not re-expanded.
    """
    if not syntax.expands or ("$" not in text and "{" not in text):
        return Resolution(text)
    unresolved: list[str] = []
    secrets: list[str] = []

    def env(name: str) -> str | None:
        value = ctx.env(name)
        if value:
            secrets.append(value)
        return value

    def brace(m: re.Match[str]) -> str:
        whole = m.group(0)
        if m["hub"] is not None:
            if syntax.hub_secrets:
                unresolved.append(whole)
            return whole
        if m["bare"] is not None:
            if not syntax.bare:
                return whole
            value = env(m["bare"])
            if value is None:
                unresolved.append(whole)
                return whole
            return value
        got = _brace(m["body"], syntax, ctx, env)
        if got is _LITERAL:
            return whole
        if got is _UNRESOLVED:
            unresolved.append(whole)
            return whole
        assert isinstance(got, str)
        return got

    out = _BRACE.sub(brace, text)
    if syntax.opencode:

        def opencode(m: re.Match[str]) -> str:
            if m["kind"] == "env":
                value = env(m["arg"])
                if value is not None:
                    return value
            unresolved.append(m.group(0))
            return m.group(0)

        out = _OPENCODE.sub(opencode, out)
    return Resolution(out, tuple(dict.fromkeys(unresolved)), tuple(dict.fromkeys(secrets)))


# ---------------------------------------------------------------- dotenv files (envFile)

_DOTENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
_DOUBLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


@dataclass(frozen=True, slots=True)
class DotenvFile:
    """What a dotenv file sets. ``problems`` name line numbers only, never values."""

    values: Mapping[str, str]
    problems: tuple[str, ...] = ()


def _double_quoted(body: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body) and body[i + 1] in _DOUBLE_ESCAPES:
            out.append(_DOUBLE_ESCAPES[body[i + 1]])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _closing_quote(text: str, quote: str) -> int:
    """Index of the quote that closes ``text[0]`` (-1 when none); backslash escapes in "..."."""
    i = 1
    while i < len(text):
        if text[i] == "\\" and quote == '"':
            i += 2
            continue
        if text[i] == quote:
            return i
        i += 1
    return -1


def parse_dotenv(text: str) -> DotenvFile:
    """``KEY=value`` lines as editors read an ``envFile``: ``#`` comment lines and blank lines
    skipped, an optional ``export`` prefix, values single-quoted (literal), double-quoted
    (``\\n``, ``\\t``, ``\\"``, ``\\\\`` escapes; may span lines) or bare (trimmed, a `` #`` starts a
    comment). No ``$VAR`` interpolation. The last assignment of a key wins."""
    values: dict[str, str] = {}
    problems: list[str] = []
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    i = 0
    while i < len(lines):
        number = i + 1
        line = lines[i].strip()
        i += 1
        if not line or line.startswith("#"):
            continue
        if line.startswith(("export ", "export\t")):
            line = line[7:].lstrip()
        key, eq, rest = line.partition("=")
        key = key.strip()
        if not eq or not _DOTENV_KEY.match(key):
            problems.append(f"line {number}: not a KEY=value line (ignored)")
            continue
        rest = rest.strip()
        if rest[:1] in ("'", '"'):
            quote = rest[0]
            end = _closing_quote(rest, quote)
            while end < 0 and i < len(lines):  # a quoted value may span lines
                rest += "\n" + lines[i]
                i += 1
                end = _closing_quote(rest, quote)
            if end < 0:
                problems.append(f"line {number}: {key}: unterminated quote (ignored)")
                continue
            body = rest[1:end]
            values[key] = _double_quoted(body) if quote == '"' else body
            continue
        cut = re.search(r"\s#", rest)
        values[key] = (rest[: cut.start()] if cut else rest).strip()
    return DotenvFile(values=values, problems=tuple(problems))
