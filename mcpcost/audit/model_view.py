"""What a client session's model actually gets: the client lens's result, as values.

A ``ModelView`` is computed (purely) from a session's measured captures and its client's
``Presentation`` rules: the definitions projected onto the client's API shape, renamed and
truncated as the client does, their o200k_base count up front and deferred under the client's
regime, and one ``LensFinding`` per rule that bites. Everything in it is a model of another
product's documented or reported behaviour (each finding carries its rule's provenance), never
an observation of the product. ``audit --json`` writes it as a session's ``modelView``, and
every figure the audit shows for a session comes from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpcost.audit.deferral import Evidence, EvidenceKind, Loading
from mcpcost.configs.clients.presentation import (
    ApiShape,
    Confidence,
    Effect,
    FindingKind,
    LoadVerdict,
)
from mcpcost.core.jsonvalue import JSONValue

__all__ = [
    "ApiShape",
    "Effect",
    "Evidence",
    "EvidenceKind",
    "FindingKind",
    "LensFinding",
    "LoadVerdict",
    "Loading",
    "ModelTool",
    "ModelView",
    "ServerLoad",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class LensFinding:
    """One rule of a client that applies to one server or tool of the session.

    ``limit`` and ``actual`` are what the rule allows and what the server has (a length, a
    count, a pattern, a keyword); ``rule`` says the rule in one sentence; ``fix`` is the remedy
    in the client's own terms (rename, split, trim the description, drop a server)."""

    kind: FindingKind
    effect: Effect
    server: str | None  # None: the session as a whole (too many tools across servers)
    tool: str | None
    limit: int | str | None
    actual: int | str | None
    rule: str
    fix: str
    source: str
    date: str
    confidence: Confidence

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "effect": self.effect,
            "server": self.server,
            "tool": self.tool,
            "limit": self.limit,
            "actual": self.actual,
            "rule": self.rule,
            "fix": self.fix,
            "source": self.source,
            "date": self.date,
            "confidence": self.confidence,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelTool:
    """One tool as the model gets it: ``definition`` is its projected, renamed, truncated
    definition; ``deferred``: kept back until the model asks (only the regime's stub is sent)."""

    server: str
    tool: str  # the name the server gives it
    model_name: str
    deferred: bool
    definition: JSONValue


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerLoad:
    """One measured server of a session as its model gets it: its projected tokens up front and
    kept back, and its wire number (the measurement's)."""

    name: str
    upfront_tokens: int
    deferred_tokens: int
    wire_tokens: int
    always_load: bool = False

    @property
    def projected_tokens(self) -> int:
        """Every projected token of it, up front or deferred (what dropping it saves)."""
        return self.upfront_tokens + self.deferred_tokens

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "upfrontTokens": self.upfront_tokens,
            "deferredTokens": self.deferred_tokens,
            "wireTokens": self.wire_tokens,
            "alwaysLoad": self.always_load,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelView:
    """What one client session's model gets: the one model of a session's loading.

    ``loading`` holds the verdict (loaded up front, deferred, cannot be said), the condition that
    decides it and its evidence (``audit.deferral.decide``). Every number is o200k_base of what
    the lens says the model gets (projected onto ``api_shape``; None: no projection on record,
    the wire definitions): ``upfront_tokens`` at the start of every request under the verdict
    (with cannot-be-said: as if everything loads, the ceiling), ``deferred_tokens`` kept back;
    ``wire_tokens`` is the measured servers' wire number, a second figure."""

    api_shape: ApiShape | None
    loading: Loading
    upfront_tokens: int
    deferred_tokens: int
    wire_tokens: int = 0
    servers: tuple[ServerLoad, ...] = ()  # measured servers, in the session's order
    unmeasured: tuple[str, ...] = ()  # the session's servers without a number
    findings: tuple[LensFinding, ...] = ()
    rules_on_record: bool = True  # False: nothing about this client is on record
    tools: tuple[ModelTool, ...] = ()  # what the model gets, per tool (dropped and hidden left out)

    @property
    def verdict(self) -> LoadVerdict:
        return self.loading.verdict

    @property
    def regime(self) -> str:
        return self.loading.regime

    @property
    def ceiling(self) -> bool:
        """True when ``upfront_tokens`` is the cost if everything loads (cannot be said)."""
        return self.loading.verdict is LoadVerdict.CANNOT_BE_SAID

    @property
    def projected_tokens(self) -> int:
        """Every projected token of the session, up front or deferred (``--budget-full``)."""
        return self.upfront_tokens + self.deferred_tokens

    def to_dict(self) -> dict[str, Any]:
        """The ``modelView`` object of the JSON outputs (the per-tool definitions stay out)."""
        return {
            "verdict": self.loading.verdict,
            "condition": self.loading.condition,
            "evidence": [e.to_dict() for e in self.loading.evidence],
            "regime": self.regime,
            "apiShape": self.api_shape,
            "upfrontTokens": self.upfront_tokens,
            "deferredTokens": self.deferred_tokens,
            "wireTokens": self.wire_tokens,
            "servers": [s.to_dict() for s in self.servers],
            "unmeasured": list(self.unmeasured),
            "rulesOnRecord": self.rules_on_record,
            "findings": [f.to_dict() for f in self.findings],
        }

    @property
    def breaking(self) -> tuple[LensFinding, ...]:
        """The findings where the client drops, rejects or cuts something."""
        return tuple(f for f in self.findings if f.effect.breaks)
