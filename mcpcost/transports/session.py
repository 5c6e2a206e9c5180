"""A JSON-RPC session over any transport: the handshake for both protocol eras and ``tools/list``.

Era negotiation (documented choice): ``initialize`` goes first, because legacy servers dominate
and a legacy server must not receive anything but ``initialize``/``ping`` before it (a
``server/discover`` probe also stalls on silent legacy servers). A result means the legacy era:
the version the server answered is accepted, ``notifications/initialized`` follows. A JSON-RPC
error to ``initialize`` (a modern server answers -32022 or -32601; auth errors excepted) switches
to the 2026-07-28 era: ``server/discover`` with the ``io.modelcontextprotocol/*`` ``_meta`` keys,
which every later request also carries; a -32022 answer naming supported versions is retried
once with a listed modern version. If discovery fails too, the ``initialize`` error stands.
``open(protocol=...)`` narrows this: ``legacy`` tries ``initialize`` only, ``modern`` goes straight
to ``server/discover`` (so a dual-era server can be measured in the 2026-07-28 era); ``auto`` is the
order above. ``eras_tried`` lists the eras attempted, in order.

``list_all`` pages through any other list method (``prompts/list``, ``resources/list``,
``resources/templates/list``) within the same page and byte guards, optionally on a shorter
per-request timeout; ``ServerHello.capabilities`` says which of them the server declared.

Requests carry numeric ids. Server requests are answered (``ping`` with ``{}``, anything else with
-32601), notifications ignored, stray responses dropped. Every wait is bounded by the
per-request timeout and by one overall deadline (``time.monotonic()`` value).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from mcpcost.core.spec import Era, EraChoice
from mcpcost.transports.base import MAX_CAPTURE_BYTES, Message, Transport
from mcpcost.transports.failures import (
    AUTH_REQUIRED_CODE,
    UNSUPPORTED_PROTOCOL_VERSION,
    ProtocolError,
    RPCError,
    TransportTimeout,
)
from mcpcost.version import __version__

LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
CLIENT_INFO = {"name": "mcp-context-cost", "version": __version__}
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
MAX_PAGES = 100
MAX_TOOLS_BYTES = MAX_CAPTURE_BYTES


@dataclass(frozen=True, slots=True)
class ServerHello:
    """What the handshake told us about the server."""

    era: Era
    protocol_version: str | None
    server_name: str | None
    server_version: str | None
    instructions: str | None
    capabilities: Any = None  # the server's declared capabilities object, when it sent one


class Session:
    """Requests and the MCP handshake over one transport."""

    def __init__(
        self,
        transport: Transport,
        *,
        request_timeout_s: float,
        deadline: float,
        clock: Callable[[], float] = time.monotonic,
        max_pages: int = MAX_PAGES,
        max_tools_bytes: int = MAX_TOOLS_BYTES,
    ) -> None:
        self.transport = transport
        self._request_timeout = request_timeout_s
        self._deadline = deadline
        self._clock = clock
        self._max_pages = max_pages
        self._max_bytes = max_tools_bytes
        self._next_id = 0
        self._modern_version: str | None = None
        self.eras_tried: list[Era] = []

    # -- JSON-RPC -------------------------------------------------------------------------
    def request(
        self, method: str, params: dict[str, Any] | None = None, *, timeout_s: float | None = None
    ) -> Any:
        """Send a request and return its result; RPCError for an error answer. ``timeout_s``
        narrows the per-request timeout for this request."""
        self._next_id += 1
        rid = self._next_id
        message: Message = {"jsonrpc": "2.0", "id": rid, "method": method}
        params = self._with_meta(params)
        if params is not None:
            message["params"] = params
        started = self._clock()
        per_request = self._request_timeout if timeout_s is None else timeout_s
        stop = min(started + per_request, self._deadline)
        self.transport.send(message)
        while True:
            remaining = stop - self._clock()
            if remaining <= 0:
                raise TransportTimeout(int((self._clock() - started) * 1000), method)
            try:
                incoming = self.transport.receive(remaining)
            except TransportTimeout:
                raise TransportTimeout(int((self._clock() - started) * 1000), method) from None
            if self._handle_server_message(incoming):
                continue
            if _same_id(incoming.get("id"), rid):
                error = incoming.get("error")
                if error is not None:
                    err = error if isinstance(error, dict) else {}
                    raise RPCError(
                        err.get("code"), err.get("message"), err.get("data"), method=method
                    )
                if "result" not in incoming:
                    raise ProtocolError(f"answer to {method} has neither result nor error")
                return incoming["result"]

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: Message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.transport.send(message)

    def _handle_server_message(self, message: Message) -> bool:
        """Answer or drop server requests and notifications; True when the message was one."""
        method = message.get("method")
        if not isinstance(method, str):
            return False
        if "id" in message:
            reply: Message = {"jsonrpc": "2.0", "id": message["id"]}
            if method == "ping":
                reply["result"] = {}
            else:
                reply["error"] = {"code": -32601, "message": f"method not found: {method}"}
            self.transport.send(reply)
        return True

    def _with_meta(self, params: dict[str, Any] | None) -> dict[str, Any] | None:
        if self._modern_version is None:
            return params
        out = dict(params or {})
        meta = dict(out.get("_meta") or {})
        meta[META_VERSION] = self._modern_version
        meta[META_CAPABILITIES] = {}
        meta[META_CLIENT_INFO] = dict(CLIENT_INFO)
        out["_meta"] = meta
        return out

    # -- handshake ------------------------------------------------------------------------
    def open(self, protocol: EraChoice = EraChoice.AUTO) -> ServerHello:
        """Negotiate the era (see the module docstring) and return what the server said."""
        protocol = EraChoice(protocol)  # a ValueError for anything else
        if protocol == EraChoice.MODERN:
            self.eras_tried.append(Era.MODERN)
            return self._discover(MODERN_VERSION)
        self.eras_tried.append(Era.LEGACY)
        try:
            result = self.request(
                "initialize",
                {
                    "protocolVersion": LEGACY_VERSION,
                    "capabilities": {},
                    "clientInfo": dict(CLIENT_INFO),
                },
            )
        except RPCError as exc:
            if exc.code == AUTH_REQUIRED_CODE or protocol == EraChoice.LEGACY:
                raise
            self.eras_tried.append(Era.MODERN)
            try:
                return self._discover(_modern_choice(exc))
            except RPCError:
                raise exc from None
        if not isinstance(result, dict):
            raise ProtocolError("initialize result is not an object")
        version = result.get("protocolVersion")
        version = version if isinstance(version, str) else None
        self.transport.negotiated(version or LEGACY_VERSION, modern=False)
        self.notify("notifications/initialized")
        info = result.get("serverInfo")
        hello = _hello(Era.LEGACY, version, info, result.get("instructions"))
        return replace(hello, capabilities=result.get("capabilities"))

    def _discover(self, version: str) -> ServerHello:
        self._modern_version = version
        self.transport.negotiated(version, modern=True)
        try:
            result = self.request("server/discover")
        except RPCError as exc:
            if exc.code != UNSUPPORTED_PROTOCOL_VERSION:
                raise
            retry = _modern_choice(exc, exclude=version)
            if retry == version:
                raise
            self._modern_version = retry
            self.transport.negotiated(retry, modern=True)
            result = self.request("server/discover")
        if not isinstance(result, dict):
            raise ProtocolError("server/discover result is not an object")
        meta = result.get("_meta")
        info = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
        if info is None:
            info = result.get("serverInfo")
        hello = _hello(Era.MODERN, self._modern_version, info, result.get("instructions"))
        return replace(hello, capabilities=result.get("capabilities"))

    # -- tools ----------------------------------------------------------------------------
    def list_tools(self) -> list[Any]:
        """Every page of ``tools/list`` joined in order, within the page and byte guards."""
        return self.list_all("tools/list", "tools")

    def list_all(self, method: str, key: str, *, timeout_s: float | None = None) -> list[Any]:
        """Every page of a list ``method`` (its items under ``key``) joined in order, within the
        page and byte guards."""
        items: list[Any] = []
        seen: set[str] = set()
        start_bytes = self.transport.diagnostics.bytes_received
        cursor: str | None = None
        for page in range(1, self._max_pages + 1):
            params = {"cursor": cursor} if cursor is not None else None
            result = self.request(method, params, timeout_s=timeout_s)
            received = self.transport.diagnostics.bytes_received - start_bytes
            if received > self._max_bytes:
                raise ProtocolError(f"{method} exceeded {self._max_bytes} bytes")
            if not isinstance(result, dict) or not isinstance(result.get(key), list):
                raise ProtocolError(f"{method} result has no {key} array")
            items.extend(result[key])
            nxt = result.get("nextCursor")
            if not isinstance(nxt, str) or nxt == "":
                return items
            if nxt in seen:
                raise ProtocolError(f"{method} repeated cursor {nxt[:80]!r} on page {page}")
            seen.add(nxt)
            cursor = nxt
        raise ProtocolError(f"{method} still paging after {self._max_pages} pages")


def _same_id(value: Any, rid: int) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == rid


def _modern_choice(exc: RPCError, exclude: str | None = None) -> str:
    """The modern version to use after an error: one the server lists, else 2026-07-28."""
    data = exc.data if isinstance(exc.data, dict) else {}
    listed = data.get("supported") or data.get("supportedVersions")
    candidates = (
        sorted(
            (v for v in listed if isinstance(v, str) and v >= MODERN_VERSION and v != exclude),
            reverse=True,
        )
        if isinstance(listed, list)
        else []
    )
    if MODERN_VERSION in candidates:
        return MODERN_VERSION
    return candidates[-1] if candidates else MODERN_VERSION


def _hello(era: Era, version: str | None, info: Any, instructions: Any) -> ServerHello:
    info = info if isinstance(info, dict) else {}
    name, ver = info.get("name"), info.get("version")
    return ServerHello(
        era=era,
        protocol_version=version,
        server_name=name if isinstance(name, str) and name else None,
        server_version=ver if isinstance(ver, str) else None,
        instructions=instructions if isinstance(instructions, str) else None,
    )
