"""What a client session's model actually gets: the client lens's result, as values.

A ``ModelView`` is computed (purely) from a session's measured captures and its client's
``Presentation`` rules: the definitions projected onto the client's API shape, renamed and
truncated as the client does, their o200k_base count up front and deferred under the client's
regime, and one ``LensFinding`` per rule that bites. Everything in it is a model of another
product's documented or reported behaviour (each finding carries its rule's provenance), never
an observation of the product. ``audit --json`` writes it as a session's ``modelView``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpcost.configs.clients.presentation import ApiShape, Confidence, Effect, FindingKind
from mcpcost.core.jsonvalue import JSONValue

__all__ = ["ApiShape", "Effect", "FindingKind", "LensFinding", "ModelTool", "ModelView"]


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
class ModelView:
    """What one client session's model gets. ``api_shape`` None: no projection on record, and
    the up-front count is then of the wire definitions. ``regime`` names the deferral regime
    that applies (a ``DeferralMode`` value, or the client's mechanism name when it defers)."""

    api_shape: ApiShape | None
    upfront_tokens: int  # o200k_base tokens of what the model gets at the start of each request
    deferred_tokens: int  # o200k_base tokens of what is kept back until the model asks
    regime: str
    findings: tuple[LensFinding, ...] = ()
    rules_on_record: bool = True  # False: nothing about this client is on record
    tools: tuple[ModelTool, ...] = ()  # what the model gets, per tool (dropped and hidden left out)

    def to_dict(self) -> dict[str, Any]:
        """The ``modelView`` object of the JSON outputs (the per-tool definitions stay out)."""
        return {
            "apiShape": self.api_shape,
            "upfrontTokens": self.upfront_tokens,
            "deferredTokens": self.deferred_tokens,
            "regime": self.regime,
            "rulesOnRecord": self.rules_on_record,
            "findings": [f.to_dict() for f in self.findings],
        }

    @property
    def breaking(self) -> tuple[LensFinding, ...]:
        """The findings where the client drops, rejects or cuts something."""
        return tuple(f for f in self.findings if f.effect.breaks)
