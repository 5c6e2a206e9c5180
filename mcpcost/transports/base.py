"""The transport interface: a pipe of JSON-RPC messages, whatever carries them.

A transport sends one message (a JSON object) at a time and hands back the server's messages in
order, each parsed with ``core.jsonvalue.parse_json`` so the bytes the measurement hashes are
exactly what the server sent. It knows nothing about MCP beyond the headers HTTP needs; the
session (``transports.session``) owns requests, ids and the handshake.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from mcpcost.core.spec import ServerSpec, TransportName

Message = dict[str, Any]

# The most one MCP message (a line, a JSON body, one event) and one page-joined list may hold,
# decoded. A capture is held parsed in memory, at about 55 times its bytes at peak
# (docs/GUARANTEES.md, "Capture memory"): 16 MiB is about 4.8 million o200k_base tokens of compact
# tools, more than any model's context window holds, at about 900 MiB of peak memory.
MAX_CAPTURE_BYTES = 16 << 20


@dataclass(frozen=True, slots=True)
class Diagnostics:
    """What a transport saw besides messages: for notes and for deciding a status."""

    kind: TransportName
    stderr_tail: str = ""
    ignored_lines: int = 0
    exit_code: int | None = None
    pgid: int | None = None
    bytes_received: int = 0
    http_status: int | None = None
    http_headers: Mapping[str, str] = field(default_factory=dict)


class Transport(Protocol):
    """A message pipe to one MCP server."""

    def send(self, message: Message) -> None:
        """Send one JSON-RPC message. Failures may surface here or on the next ``receive``."""

    def receive(self, timeout_s: float) -> Message:
        """The next message from the server; raises TransportTimeout, TransportClosed..."""

    def negotiated(self, protocol_version: str, *, modern: bool) -> None:
        """Told once the era and version are known (HTTP sends them as headers)."""

    def close(self) -> None:
        """Release everything: processes, threads, connections. Safe to call twice."""

    @property
    def diagnostics(self) -> Diagnostics:
        """A snapshot of what the transport saw so far."""


TransportFactory = Callable[[ServerSpec, float], Transport]
"""Opens a transport for a spec within a time budget (seconds); the sweep plugs containers in."""
