"""The measurement record (``measurement.json``) and its parts: per-tool costs, isolation.

``Measurement`` reads and writes the reference project's format field for field (methodology 1.0),
keeps fields it does not know (``extras``), and adds a few of our own (see
``spec/MEASUREMENT.md``): ``protocolVersion``, ``protocolEra``, ``transport``, ``measuredBy``,
``headerNames``, ``protocolErasTried``, ``protocolRequested``, ``authorization``, ``listings``,
``registryEntry``
(prompts, resources and resource templates, counted beside the number, never in it) and, per
tool, the diagnostic ``fieldTokens`` split. Eras and transports are read as words
(``core.spec``); a value of another shape, or none of the words, is kept as read, in ``extras``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal, TypeVar

from mcpcost.core.jsonvalue import JSONValue, stringify_pretty
from mcpcost.core.spec import Era, TransportName
from mcpcost.core.status import Status
from mcpcost.errors import InputError

METHODOLOGY_VERSION = "1.0"
# Where the methodology is written down: every output that points at it uses this one link.
METHODOLOGY_URL = (
    "https://github.com/mcp-context-cost/mcp-context-cost/blob/main/spec/METHODOLOGY.md"
)
PROVIDER = "tiktoken"
ENCODING = "o200k_base"

# How the captures were made signed in, when they were (the only way there is: an OAuth token).
Authorization = Literal["oauth"]

# serverInstructions has three states; this marks "never captured" (the key is absent).
NOT_CAPTURED: Any = type("NotCaptured", (), {"__repr__": lambda self: "NOT_CAPTURED"})()


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCost:
    """Per-tool diagnostic numbers. They never sum to the total (punctuation, seams, escaping)."""

    name: str
    tokens: int
    description_tokens: int
    input_schema_tokens: int
    field_tokens: Mapping[str, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "tokens": self.tokens,
            "descriptionTokens": self.description_tokens,
            "inputSchemaTokens": self.input_schema_tokens,
        }
        if self.field_tokens is not None:
            out["fieldTokens"] = dict(self.field_tokens)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Isolation:
    """How the server was run: on the host, in a container we made, or a command's own docker."""

    docker: bool
    image: str | None = None
    network: str | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"docker": self.docker}
        for key in ("image", "network", "note"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Isolation:
        def opt(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) else None

        return cls(
            docker=bool(data.get("docker")),
            image=opt("image"),
            network=opt("network"),
            note=opt("note"),
        )


HOST_ISOLATION = Isolation(docker=False)


class ListingKind(StrEnum):
    """What ``listings`` may hold, in this order: the MCP list results counted beside the tools
    (the member's value is its key in measurement.json)."""

    PROMPTS = "prompts"
    RESOURCES = "resources"
    RESOURCE_TEMPLATES = "resourceTemplates"

    @property
    def words(self) -> str:
        """How a page or a line names it."""
        return "resource templates" if self is ListingKind.RESOURCE_TEMPLATES else self.value

    @property
    def word(self) -> str:
        """One of it: ``1 prompt``, ``1 resource template``."""
        return self.words.removesuffix("s")


LISTING_KINDS = tuple(ListingKind)


@dataclass(frozen=True, slots=True, kw_only=True)
class Listing:
    """One of ``prompts/list``, ``resources/list``, ``resources/templates/list``, page-joined and
    counted as the tools are (``count``, ``tokens``, ``canonicalSha256`` of the joined array), or
    why it could not be listed (``error``). Never part of ``totalTokens``."""

    count: int | None = None
    tokens: int | None = None
    canonical_sha256: str | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.error is not None:
            return {"error": self.error}
        return {
            "count": self.count,
            "tokens": self.tokens,
            "canonicalSha256": self.canonical_sha256,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Listing:
        def num(key: str) -> int | None:
            value = data.get(key)
            if isinstance(value, bool) or not isinstance(value, int | float):
                return None
            return int(value)

        error = data.get("error")
        return cls(
            count=num("count"),
            tokens=num("tokens"),
            canonical_sha256=_opt_str(data.get("canonicalSha256")),
            error=None if error is None else str(error),
        )


def _listings_from(value: Any) -> dict[ListingKind, Listing] | None:
    if not isinstance(value, dict):
        return None
    return {
        ListingKind(k): Listing.from_dict(v)
        for k, v in value.items()
        if k in LISTING_KINDS and isinstance(v, dict)
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class Measurement:
    """One server measured once (two captures compared), as published in measurement.json."""

    status: Status
    server_name: str
    launch_command: str
    measured_at: str
    timeout_ms: int
    total_tokens: int | None = None
    tool_count: int | None = None
    tools: tuple[ToolCost, ...] = ()
    canonical_sha256: str | None = None
    raw_tools_capture: JSONValue = None
    server_instructions: Any = NOT_CAPTURED  # str, None (server sent none) or NOT_CAPTURED
    server_version: str | None = None
    env_var_names: tuple[str, ...] | None = None
    isolation: Isolation | None = None
    notes: str | None = None
    methodology_version: str = METHODOLOGY_VERSION
    provider: str = PROVIDER
    encoding: str = ENCODING
    protocol_version: str | None = None
    protocol_era: Era | None = None
    transport: TransportName | None = None
    measured_by: Mapping[str, str] | None = None
    header_names: tuple[str, ...] | None = None  # only when headers were sent; never values
    protocol_eras_tried: tuple[Era, ...] | None = None  # what the first capture tried, in order
    protocol_requested: Era | None = None  # the era the caller pinned, when it pinned one
    authorization: Authorization | None = None  # how it was signed in; never a token or who
    # prompts/resources/resourceTemplates listed beside the tools; None: none declared (or never
    # looked for), so the file of a server without them keeps its bytes
    listings: Mapping[ListingKind, Listing] | None = None
    # the MCP registry entry a registry sweep measured this for: {"name", "version"}, and what
    # the registry says of it (REGISTRY_DETAIL_KEYS) when it says something
    registry_entry: Mapping[str, Any] | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)  # fields this version does not know

    @property
    def has_number(self) -> bool:
        """True when the record carries a token count (measured or dynamic)."""
        return self.status.has_number and self.total_tokens is not None

    def with_(self, **changes: Any) -> Measurement:
        """A copy with some fields changed."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The measurement.json object, in the reference key order, then our additions."""
        out: dict[str, Any] = {
            "methodologyVersion": self.methodology_version,
            "provider": self.provider,
            "encoding": self.encoding,
            "status": str(self.status),
            "totalTokens": self.total_tokens,
            "toolCount": self.tool_count,
            "tools": [t.to_dict() for t in self.tools],
            "canonicalSha256": self.canonical_sha256,
            "rawToolsCapture": self.raw_tools_capture,
        }
        if self.server_instructions is not NOT_CAPTURED:
            out["serverInstructions"] = self.server_instructions
        out["measuredAt"] = self.measured_at
        out["serverName"] = self.server_name
        if self.server_version is not None:
            out["serverVersion"] = self.server_version
        out["launchCommand"] = self.launch_command
        if self.env_var_names is not None:
            out["envVarNames"] = list(self.env_var_names)
        if self.isolation is not None:
            out["isolation"] = self.isolation.to_dict()
        out["timeoutMs"] = self.timeout_ms
        if self.notes is not None:
            out["notes"] = self.notes
        for key, value in (
            ("protocolVersion", self.protocol_version),
            ("protocolEra", self.protocol_era),
            ("transport", self.transport),
        ):
            if value is not None:
                out[key] = value
        if self.measured_by is not None:
            out["measuredBy"] = dict(self.measured_by)
        if self.header_names is not None:
            out["headerNames"] = list(self.header_names)
        if self.protocol_eras_tried is not None:
            out["protocolErasTried"] = list(self.protocol_eras_tried)
        if self.protocol_requested is not None:
            out["protocolRequested"] = self.protocol_requested
        if self.authorization is not None:
            out["authorization"] = self.authorization
        if self.listings:
            out["listings"] = {
                k: self.listings[k].to_dict() for k in LISTING_KINDS if k in self.listings
            }
        if self.registry_entry is not None:
            out["registryEntry"] = dict(self.registry_entry)
        for key, value in self.extras.items():
            out.setdefault(key, value)
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Measurement:
        """Read a measurement.json object; unknown fields are kept in ``extras`` (and so is a
        known additional field whose value has another shape, so nothing read is lost)."""
        if not isinstance(data, dict):
            raise InputError("a measurement must be a JSON object")
        try:
            status = Status(str(data.get("status")))
        except ValueError:
            raise InputError(f"unknown status {data.get('status')!r}") from None

        def req_str(key: str, default: str | None = None) -> str:
            value = data.get(key, default)
            if not isinstance(value, str):
                raise InputError(f"{key} must be a string")
            return value

        def opt_int(key: str) -> int | None:
            value = data.get(key)
            if value is None:
                return None
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InputError(f"{key} must be a number or null")
            return int(value)

        tools_raw = data.get("tools") or []
        if not isinstance(tools_raw, list):
            raise InputError("tools must be an array")
        tools = tuple(_tool_from_dict(t) for t in tools_raw if isinstance(t, dict))
        env_names = data.get("envVarNames")
        isolation = data.get("isolation")
        known = {
            "methodologyVersion",
            "provider",
            "encoding",
            "status",
            "totalTokens",
            "toolCount",
            "tools",
            "canonicalSha256",
            "rawToolsCapture",
            "serverInstructions",
            "measuredAt",
            "serverName",
            "serverVersion",
            "launchCommand",
            "envVarNames",
            "isolation",
            "timeoutMs",
            "notes",
            "protocolVersion",
            "measuredBy",
        }
        instructions = data["serverInstructions"] if "serverInstructions" in data else NOT_CAPTURED
        if instructions is not NOT_CAPTURED and not isinstance(instructions, str | None):
            instructions = NOT_CAPTURED
        measured_by = data.get("measuredBy")
        extras = {k: v for k, v in data.items() if k not in known}
        header_names = _take(extras, "headerNames", _is_strings)
        return cls(
            status=status,
            server_name=req_str("serverName", ""),
            launch_command=req_str("launchCommand", ""),
            measured_at=req_str("measuredAt", ""),
            timeout_ms=opt_int("timeoutMs") or 0,
            total_tokens=opt_int("totalTokens"),
            tool_count=opt_int("toolCount"),
            tools=tools,
            canonical_sha256=_opt_str(data.get("canonicalSha256")),
            raw_tools_capture=data.get("rawToolsCapture"),
            server_instructions=instructions,
            server_version=_opt_str(data.get("serverVersion")),
            env_var_names=tuple(n for n in env_names if isinstance(n, str))
            if isinstance(env_names, list)
            else None,
            isolation=Isolation.from_dict(isolation) if isinstance(isolation, dict) else None,
            notes=_opt_str(data.get("notes")),
            methodology_version=req_str("methodologyVersion", METHODOLOGY_VERSION),
            provider=req_str("provider", PROVIDER),
            encoding=req_str("encoding", ENCODING),
            protocol_version=_opt_str(data.get("protocolVersion")),
            protocol_era=_take_word(extras, "protocolEra", Era),
            transport=_take_word(extras, "transport", TransportName),
            measured_by={k: v for k, v in measured_by.items() if isinstance(v, str)}
            if isinstance(measured_by, dict)
            else None,
            header_names=None if header_names is None else tuple(header_names),
            protocol_eras_tried=_take_words(extras, "protocolErasTried", Era),
            protocol_requested=_take_word(extras, "protocolRequested", Era),
            authorization=_take(extras, "authorization", lambda v: v == "oauth"),
            listings=_listings_from(_take(extras, "listings", lambda v: isinstance(v, dict))),
            registry_entry=_take(extras, "registryEntry", _is_registry_entry),
            extras=extras,
        )


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _is_strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


# registryEntry's optional keys: the registry's status (when not active), its statusMessage and
# statusChangedAt, and the chosen package's postInstallInstructions
REGISTRY_DETAIL_KEYS = frozenset(
    {"status", "statusMessage", "statusChangedAt", "postInstallInstructions"}
)


def _is_registry_entry(value: Any) -> bool:
    if not isinstance(value, dict) or not {"name", "version"} <= set(value):
        return False
    if not set(value) <= {"name", "version"} | REGISTRY_DETAIL_KEYS:
        return False
    texts = [v for k, v in value.items() if k != "postInstallInstructions"]
    steps = value.get("postInstallInstructions", [])
    return (
        all(isinstance(v, str) for v in texts)
        and isinstance(steps, list)
        and all(
            isinstance(step, dict) and isinstance(step.get("description"), str) for step in steps
        )
    )


def _take(extras: dict[str, Any], key: str, fits: Callable[[Any], bool]) -> Any:
    """``extras[key]`` when ``fits`` accepts it, taken out of ``extras``; otherwise None, and a
    value of another shape stays in ``extras`` as read."""
    value = extras.get(key)
    if value is None or not fits(value):
        return None
    return extras.pop(key)


Word = TypeVar("Word", bound=StrEnum)


def _take_word(extras: dict[str, Any], key: str, words: type[Word]) -> Word | None:
    """``_take`` for a word of ``words``: any other value stays in ``extras``."""
    known = {str(w) for w in words}
    value = _take(extras, key, lambda v: isinstance(v, str) and v in known)
    return None if value is None else words(value)


def _take_words(extras: dict[str, Any], key: str, words: type[Word]) -> tuple[Word, ...] | None:
    """``_take`` for a list of words of ``words``: a list holding anything else stays."""
    known = {str(w) for w in words}
    value = _take(extras, key, lambda v: _is_strings(v) and set(v) <= known)
    return None if value is None else tuple(words(v) for v in value)


def _tool_from_dict(data: dict[str, Any]) -> ToolCost:
    def num(key: str) -> int:
        value = data.get(key)
        return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0

    fields = data.get("fieldTokens")
    return ToolCost(
        name=str(data.get("name", "(unnamed)")),
        tokens=num("tokens"),
        description_tokens=num("descriptionTokens"),
        input_schema_tokens=num("inputSchemaTokens"),
        field_tokens={k: int(v) for k, v in fields.items() if isinstance(v, int)}
        if isinstance(fields, dict)
        else None,
    )


def render_measurement(measurement: Measurement) -> str:
    """measurement.json text: two-space indentation and a trailing newline, JS number format."""
    return stringify_pretty(measurement.to_dict()) + "\n"
