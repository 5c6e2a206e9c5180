"""The GitHub Copilot app (the desktop app): it reads the same ``~/.copilot/mcp-config.json`` as
the Copilot CLI (``$COPILOT_HOME`` moves it), and is its own client session.

Whether it defers tool definitions is decided by the vendor, per account, by a server-assigned
experiment: no file or variable on this machine says it, and it has been measured loading every
definition up front. Its deferral posture is therefore ``VENDOR_GATED``: cannot be said."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from mcpcost.configs.clients.client import Client, Location, Places, Scope
from mcpcost.configs.clients.dialect import Dialect, map_parser
from mcpcost.configs.clients.presentation import (
    Confidence,
    DeferralMode,
    DeferralModel,
    DeferralRegime,
    Posture,
    Presentation,
    Provenance,
    Setting,
    SettingsSource,
    Trigger,
)
from mcpcost.configs.clients.settings_files import ClientSettings
from mcpcost.configs.config_file import ClientName
from mcpcost.configs.variables import NONE

NAME = ClientName("github-app")
LABEL = "GitHub Copilot app"

# The report that measured it: 151,111 tokens of tool definitions in a session whose only
# message was "hi", 406k to 440k with other models; per-server deferTools "auto" and toolSearch
# in ~/.copilot/settings.json changed nothing, deferral sits behind a server-side experiment.
MEASURED = Provenance(
    source=(
        "https://github.com/github/app/issues/3172 (measured: every MCP tool definition loaded "
        "up front, 151,111 tokens for a one-word session; deferral behind a server-assigned "
        "tool_search experiment)"
    ),
    date="2026-08-25",
    confidence=Confidence.REPORTED,
)


def locations(at: Places) -> list[Location]:
    home = at.env("COPILOT_HOME")
    base = Path(home) if home else at.home / ".copilot"
    return [Location(NAME, Scope.USER, base / "mcp-config.json")]


def _no_sources(settings: ClientSettings) -> tuple[SettingsSource, ...]:
    return ()


def _vendor_gated(
    shell_environ: Mapping[str, str], settings: Sequence[SettingsSource] | None
) -> Posture:
    """Nothing on this machine decides it: the posture is the vendor's, and cannot be said."""
    return Posture(
        mode=DeferralMode.VENDOR_GATED,
        setting=Setting(
            variable=None,
            value=None,
            read_from_machine=False,
            source=None,
            sources=(),
            settings_read=settings is not None,
            unresolved=None,
        ),
    )


DEFERRAL = DeferralModel(
    mechanism="tool-search",
    provenance=MEASURED,
    sources=_no_sources,
    resolve=_vendor_gated,
    reads_from=(
        f"{LABEL} takes it from an experiment its vendor assigns per account, not from a file "
        "or variable on this machine"
    ),
    documented_values=(),
)

PRESENTATION = Presentation(
    deferral=DEFERRAL,
    regime=DeferralRegime(
        mechanism="tool-search",
        trigger=Trigger.VERDICT,
        keeps=(),
        provenance=MEASURED,
        note=(
            "gated by the vendor: whether it defers cannot be said from this machine, and it "
            "was measured loading every definition up front; deferTools and toolSearch did not "
            "change that"
        ),
    ),
)

CLIENT = Client(
    presentation=PRESENTATION,
    name=NAME,
    label=LABEL,
    syntax=NONE,
    parse=map_parser("mcpServers", Dialect(NAME, include_key="tools")),
    locations=locations,
)
