"""Claude Code's tool search, as a deferral model: the posture it takes from the shell it
starts in and the ``env`` blocks of its settings files (``ENABLE_TOOL_SEARCH``, the experimental
betas switch, a base URL off the Anthropic API), resolved purely from values read at the edge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from mcpcost.configs.clients.claude_code.claude_files import LABEL, settings_object, settings_text
from mcpcost.configs.clients.presentation import (
    SHELL_SOURCE,
    Confidence,
    DeferralMode,
    DeferralModel,
    Posture,
    Provenance,
    Setting,
    SettingsSource,
    Unresolved,
)
from mcpcost.configs.clients.settings_files import ClientSettings, ReadState, SettingsLayer

BETAS = "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS"
TOOL_SEARCH = "ENABLE_TOOL_SEARCH"
BASE_URL = "ANTHROPIC_BASE_URL"
VARIABLES = (BETAS, TOOL_SEARCH, BASE_URL)
ANTHROPIC_HOST = "api.anthropic.com"
DEFAULT_THRESHOLD_SHARE = 0.10
DOCUMENTED_VALUES = ("true", "false", "auto", "auto:N (N from 0 to 100)")
EXCEPTIONS = (
    "a Microsoft Foundry deployment hosted on Azure, which rejects tool search server-side",
    "Google Cloud's Agent Platform on a model earlier than the Claude 4.5 generation",
    "a model without support for tool_reference blocks (before Sonnet 4.5 / Haiku 4.5 / Opus 4.5)",
)
_AUTO_N = re.compile(r"auto:(\d{1,3})")


def _sets(values: Sequence[tuple[str, str]], unreadable: Sequence[str]) -> tuple[str, ...]:
    names = {k for k, _ in values} | set(unreadable)
    return tuple(v for v in VARIABLES if v in names)


def parse_settings(layer: SettingsLayer, source: str, text: str | bytes | None) -> SettingsSource:
    """A settings file's text (None when absent) -> what it sets of the three variables."""
    state, data = settings_object(text)
    if state is not ReadState.READ:
        return SettingsSource(layer=layer, source=source, state=state)
    env = data.get("env")
    if env is None:
        return SettingsSource(layer=layer, source=source, state=ReadState.READ)
    if not isinstance(env, dict):
        return SettingsSource(layer=layer, source=source, state=ReadState.UNREADABLE)
    values: list[tuple[str, str]] = []
    unreadable: list[str] = []
    for name in VARIABLES:
        if name not in env:
            continue
        value = env[name]
        if isinstance(value, str):
            if value:
                values.append((name, value))
        else:
            unreadable.append(name)
    return SettingsSource(
        layer=layer,
        source=source,
        state=ReadState.READ,
        sets=_sets(values, unreadable),
        values=tuple(values),
        unreadable=tuple(unreadable),
    )


def deferral_sources(settings: ClientSettings) -> tuple[SettingsSource, ...]:
    """What the four settings files' ``env`` blocks set of the three variables."""
    out: list[SettingsSource] = []
    for f in settings.without(SettingsLayer.CLIENT_STATE):
        if f.state is ReadState.UNREADABLE:
            out.append(SettingsSource(layer=f.layer, source=f.path, state=ReadState.UNREADABLE))
        else:
            out.append(parse_settings(f.layer, f.path, settings_text(f)))
    return tuple(out)


def shell_source(environ: Mapping[str, str]) -> SettingsSource:
    """The shell's three variables (only their non-empty values)."""
    values = tuple((n, environ[n]) for n in VARIABLES if environ.get(n))
    return SettingsSource(
        layer=SettingsLayer.SHELL,
        source=SHELL_SOURCE,
        state=ReadState.READ,
        sets=_sets(values, ()),
        values=values,
    )


@dataclass(frozen=True, slots=True)
class _Resolved:
    value: str | None
    source: str | None
    problem: Unresolved | None


def _resolve(name: str, shell: SettingsSource, files: Sequence[SettingsSource]) -> _Resolved:
    winner = next((s for s in files if name in s.sets), None)
    shell_value = shell.value(name)
    if winner is not None:
        if name in winner.unreadable:
            return _Resolved(None, winner.source, "value-unreadable")
        value = winner.value(name)
        if shell_value and shell_value != value:
            return _Resolved(None, winner.source, "sources-disagree")
        return _Resolved(value, winner.source, None)
    if shell_value:
        return _Resolved(shell_value, SHELL_SOURCE, None)
    return _Resolved(None, None, None)


def _hostname(url: str) -> str | None:
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host or None


def resolve_posture(
    shell_environ: Mapping[str, str], settings: Sequence[SettingsSource] | None
) -> Posture:
    """Claude Code's tool-search posture: the three variables resolved across the shell and the
    settings files (highest precedence first; None: the files were not read)."""
    shell = shell_source(shell_environ)
    files = tuple(settings or ())
    consulted = (shell, *files)
    settings_read = settings is not None

    def setting(
        variable: str | None,
        value: str | None,
        source: str | None,
        unresolved: Unresolved | None = None,
        from_machine: bool = True,
        host: bool = False,
    ) -> Setting:
        return Setting(
            variable=variable,
            value=value,
            read_from_machine=from_machine,
            source=source,
            sources=consulted,
            settings_read=settings_read,
            unresolved=unresolved,
            value_is_host=host,
        )

    def posture(mode: DeferralMode, made: Setting, share: float | None = None) -> Posture:
        return Posture(mode=mode, setting=made, threshold_share=share)

    unresolved = DeferralMode.SETTING_UNRESOLVED
    bad_file = next((s for s in files if s.state is ReadState.UNREADABLE), None)
    if bad_file is not None:
        return posture(unresolved, setting(None, None, bad_file.source, "source-unreadable"))
    betas = _resolve(BETAS, shell, files)
    if betas.problem:
        return posture(unresolved, setting(BETAS, None, betas.source, betas.problem))
    if betas.value:
        return posture(DeferralMode.LOADS_UPFRONT, setting(BETAS, betas.value, betas.source))
    search = _resolve(TOOL_SEARCH, shell, files)
    if search.problem:
        return posture(unresolved, setting(TOOL_SEARCH, None, search.source, search.problem))
    if search.value is not None:
        value = search.value.strip()
        made = setting(TOOL_SEARCH, search.value, search.source)
        if value == "true":
            return posture(DeferralMode.DEFERS_ALL, made)
        if value == "false":
            return posture(DeferralMode.LOADS_UPFRONT, made)
        if value == "auto":
            return posture(DeferralMode.THRESHOLD, made, DEFAULT_THRESHOLD_SHARE)
        auto = _AUTO_N.fullmatch(value)
        if auto and int(auto.group(1)) <= 100:
            return posture(DeferralMode.THRESHOLD, made, int(auto.group(1)) / 100)
        return posture(DeferralMode.SETTING_UNRECOGNIZED, made)
    base = _resolve(BASE_URL, shell, files)
    if base.problem:
        return posture(unresolved, setting(BASE_URL, None, base.source, base.problem))
    if base.value is not None:
        host = _hostname(base.value)
        if host != ANTHROPIC_HOST:
            shown = host if host is not None else "(unreadable URL)"
            made = setting(BASE_URL, shown, base.source, host=True)
            return posture(DeferralMode.LOADS_UPFRONT, made)
    return posture(DeferralMode.DEFERS_ALL, setting(TOOL_SEARCH, None, None, from_machine=False))


DEFERRAL = DeferralModel(
    mechanism="tool-search",
    provenance=Provenance(
        source="https://code.claude.com/docs/en/mcp#scale-with-mcp-tool-search",
        date="2026-03",
        confidence=Confidence.DOCUMENTED,
    ),
    sources=deferral_sources,
    resolve=resolve_posture,
    reads_from=(
        f"{LABEL} takes these variables from the shell it starts in and from the env block of "
        "its own settings files"
    ),
    documented_values=DOCUMENTED_VALUES,
    exceptions=EXCEPTIONS,
)
