"""The one list of supported clients, and what is done with it: finding their files, parsing a
config of a named client, recognising a config of unknown origin by its content, and reaching a
client's hooks by its name (``client_named``, ``presentation_of``). The only module besides each
client's own that imports a client module, and it names none."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from mcpcost.configs.clients import (
    claude_code,
    claude_desktop,
    cline,
    codex,
    continue_dev,
    copilot,
    cursor,
    gemini,
    github_app,
    goose,
    lmstudio,
    opencode,
    roo,
    vscode,
    windsurf,
    zed,
)
from mcpcost.configs.clients.client import Claim, Client, Location, Parsed, Places
from mcpcost.configs.clients.dialect import Dialect, map_block
from mcpcost.configs.clients.formats import (
    FileFormat,
    UnusableConfig,
    load,
    object_of,
    server_block,
    sniff,
)
from mcpcost.configs.clients.presentation import NOTHING_ON_RECORD, Presentation
from mcpcost.configs.clients.raw_server import ParseContext, build_file, error_file
from mcpcost.configs.config_file import EXPLICIT, ClientName, ConfigFile, Scope
from mcpcost.configs.variables import NONE, VariableSyntax
from mcpcost.core.suggest import slip_among

CLIENTS: tuple[Client, ...] = (
    claude_desktop.CLIENT,
    claude_code.CLIENT,
    cursor.CLIENT,
    vscode.CLIENT,
    windsurf.CLIENT,
    codex.CLIENT,
    gemini.CLIENT,
    zed.CLIENT,
    cline.CLIENT,
    roo.CLIENT,
    continue_dev.CLIENT,
    goose.CLIENT,
    copilot.CLIENT,
    github_app.CLIENT,
    opencode.CLIENT,
    lmstudio.CLIENT,
)
KNOWN_CLIENTS: tuple[ClientName, ...] = tuple(c.name for c in CLIENTS)
_BY_NAME: dict[str, Client] = {c.name: c for c in CLIENTS}

# A ``--config`` file of unknown origin: every brace form whose meaning is unambiguous, and every
# url and tool-list spelling of the ``mcpServers`` map.
EXPLICIT_SYNTAX = VariableSyntax(
    braces=True, defaults=True, env_prefix=True, editor=True, inputs=True, file_refs=True
)
EXPLICIT_DIALECT = Dialect(
    EXPLICIT,
    url_keys=("url", "serverUrl", "httpUrl"),
    http_url_keys=frozenset({"httpUrl"}),
    include_key="includeTools",
    exclude_key="disabledTools",
    env_file=True,
)
# a plain ``mcpServers`` map is the shape many clients share: read generically
_EXPLICIT_CLAIM = Claim("mcpServers", 11)

CLIENT_SYNTAX: Mapping[str, VariableSyntax] = {
    **{c.name: c.syntax for c in CLIENTS},
    EXPLICIT: EXPLICIT_SYNTAX,
}
PROJECT_CONFIG_PATHS: tuple[str, ...] = tuple(f.path for c in CLIENTS for f in c.project_files)


def client_named(name: str) -> Client:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown client {name!r}") from None


def syntax_for(name: str) -> VariableSyntax:
    return CLIENT_SYNTAX.get(name, NONE)


def presentation_of(name: str) -> Presentation:
    """How ``name`` presents tools to its model (an unknown name: nothing on record)."""
    found = _BY_NAME.get(name)
    return found.presentation if found is not None else NOTHING_ON_RECORD


def launchd_path_clients() -> frozenset[str]:
    """Clients whose macOS app starts servers with launchd's PATH rather than the shell's."""
    return frozenset(c.name for c in CLIENTS if c.launchd_path_on_macos)


def locations(
    *,
    home: Path,
    cwd: Path,
    platform: str,
    environ: Mapping[str, str],
    system_root: Path | None = None,
) -> list[Location]:
    """Every place any known client may keep an MCP config, for this OS (pure)."""
    at = Places.build(
        home=home, cwd=cwd, platform=platform, environ=environ, system_root=system_root
    )
    return [loc for c in CLIENTS for loc in c.locations(at)]


def project_client(relative_path: str) -> ClientName | None:
    """The client whose project config lives at ``relative_path`` (None: not a known one)."""
    path = str(PurePosixPath(relative_path.replace("\\", "/"))).removeprefix("./")
    for c in CLIENTS:
        for f in c.project_files:
            if fnmatch.fnmatchcase(path, f.path) and path.count("/") == f.path.count("/"):
                return c.name
    return None


def parse_config(
    client: ClientName,
    source: str,
    text: str,
    *,
    context: ParseContext,
    scope: Scope = Scope.USER,
) -> ConfigFile:
    """Parse one config file of ``client`` (a KNOWN_CLIENTS name, or ``explicit``: detected)."""
    if client == EXPLICIT:
        return parse_detected(source, text, context=context, client=EXPLICIT, scope=scope)
    spec = client_named(client)
    problems: list[str] = []
    try:
        data, lines = load(spec.file_format(source), text)
        parsed = spec.parse(data, lines, context, problems)
    except UnusableConfig as exc:
        return error_file(client, source, scope, str(exc))
    vctx = context.variables(parsed.inputs)
    return build_file(
        client, source, scope, parsed.raws, problems, spec.syntax, vctx, context.read_text
    )


def _claims() -> list[tuple[Claim, ClientName]]:
    found = [(claim, c.name) for c in CLIENTS for claim in c.claims]
    return sorted([*found, (_EXPLICIT_CLAIM, EXPLICIT)], key=lambda pair: pair[0].rank)


def detect_dialect(
    data: Mapping[str, Any], text_format: FileFormat | None = None
) -> ClientName | None:
    """Which client's shape a parsed config has (``explicit`` for the shared ``mcpServers``
    map), from its top-level keys; None when it declares no servers in any known shape."""
    for claim, name in _claims():
        if data.get(claim.key) is not None and claim.matches(data, text_format):
            return name
    return None


def parse_detected(
    source: str,
    text: str,
    *,
    context: ParseContext,
    client: ClientName = EXPLICIT,
    scope: Scope = Scope.EXPLICIT,
) -> ConfigFile:
    """A config of unknown client: format by content, shape by top-level key; labelled ``client``."""
    problems: list[str] = []
    try:
        text_format, data, lines = sniff(text, source)
        root = object_of(data, "the file")
        dialect = detect_dialect(root, text_format)
        if dialect is None:
            parsed = Parsed([])
            slip = slip_among(
                (c.key for c, _ in _claims()), (k for k in root if isinstance(k, str))
            )
            if slip is not None:
                problems.append(
                    f"no server block, but {slip[0]!r} is there: did you mean {slip[1]!r}? "
                    "(keys are case-sensitive)"
                )
        elif dialect == EXPLICIT:
            block = server_block(root, "mcpServers", problems) or {}
            parsed = Parsed(map_block(block, ("mcpServers",), EXPLICIT_DIALECT, problems, lines))
        else:
            parsed = client_named(dialect).parse(root, lines, context, problems)
    except UnusableConfig as exc:
        return error_file(client, source, scope, str(exc))
    syntax = syntax_for(EXPLICIT if dialect in (None, EXPLICIT) else dialect)
    vctx = context.variables(parsed.inputs)
    return build_file(client, source, scope, parsed.raws, problems, syntax, vctx, context.read_text)
