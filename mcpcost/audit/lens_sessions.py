"""The client lens's adapters: an audit session's servers seen by its client (``session_view``,
from the report's servers and their measurements) and one measured server seen by each client
under its defaults (``server_views``, for ``measure --client``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcpcost.audit.deferral import DeferralServer, LoadInputs, load_inputs
from mcpcost.audit.lens import LensServer, lens
from mcpcost.audit.model_view import ModelView
from mcpcost.audit.report_model import DEFAULT_CONTEXT_WINDOW, ServerResult
from mcpcost.configs.clients import registry
from mcpcost.configs.config_file import ClientName
from mcpcost.core.jsonvalue import JSONValue
from mcpcost.core.model import Measurement

__all__ = ["ClientView", "lens_server", "measured_server", "server_views", "session_view"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientView:
    """One server seen through one client's lens (``measure --client``)."""

    client: ClientName
    label: str
    model_view: ModelView

    def to_dict(self) -> dict[str, Any]:
        return {"client": self.client, "label": self.label, "modelView": self.model_view.to_dict()}


def measured_server(name: str, m: Measurement) -> LensServer:
    """One measured server as the lens takes it on its own (no config around it): its captured
    tools and instructions, and its wire number."""
    capture = m.raw_tools_capture if isinstance(m.raw_tools_capture, list) else None
    instructions = m.server_instructions if isinstance(m.server_instructions, str) else None
    return LensServer(
        name=name,
        tools=tuple(capture or ()),
        instructions=instructions,
        wire_tokens=m.total_tokens,
        unseen_tokens=m.total_tokens if capture is None else None,
        measured_tokens=m.total_tokens,
    )


def server_views(
    server: LensServer, wire_tokens: int, clients: Sequence[ClientName]
) -> list[ClientView]:
    """One measured server through each client's lens, under each client's defaults (the
    posture from an empty shell and no settings files: Claude Code's tool search on)."""
    out: list[ClientView] = []
    for name in clients:
        client = registry.client_named(name)
        inputs = load_inputs(
            client=name,
            sources=[],
            servers=[
                DeferralServer(name=server.name, tokens=wire_tokens, always_load=server.always_load)
            ],
            unmeasured=[],
            context_window=DEFAULT_CONTEXT_WINDOW,
            shell_environ={},
            settings=(),
        )
        view = lens([server], client.presentation, inputs)
        out.append(ClientView(client=name, label=client.label, model_view=view))
    return out


def lens_server(server: ServerResult, m: Measurement | None) -> LensServer:
    """A measured server of the report as the lens takes it: its captured tools (less those the
    config's own tool filter switches off, as the client does) and instructions (from its
    measurement), its name in the config and ``alwaysLoad``."""
    tools = m.raw_tools_capture if m is not None else None
    instructions = m.server_instructions if m is not None else None
    allowed, denied = server.enabled_tools, set(server.disabled_tools)

    def kept(tool: JSONValue) -> bool:
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str):
            return True  # the lens skips it anyway
        return (allowed is None or name in allowed) and name not in denied

    kept_tools = tuple(t for t in tools if kept(t)) if isinstance(tools, list) else ()
    return LensServer(
        name=server.name,
        tools=kept_tools,
        instructions=instructions if isinstance(instructions, str) else None,
        always_load=server.always_load,
        unseen_tokens=server.tokens if not isinstance(tools, list) else None,
        measured_tokens=server.tokens,
        wire_tokens=server.tokens
        if isinstance(tools, list) and len(kept_tools) == len(tools)
        else None,
    )


def session_view(
    client: ClientName,
    servers: Sequence[ServerResult],
    inputs: LoadInputs,
    measurements: Mapping[str, Measurement],
) -> ModelView:
    """What one audit session's model gets under its client's rules, from the measurements by
    launch key (a --config file's session, whose client nobody named: its wire definitions, with
    no rule on record)."""
    found = [lens_server(s, measurements.get(s.launch_key or "")) for s in servers]
    return lens(found, registry.presentation_of(client), inputs)
