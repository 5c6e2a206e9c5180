"""Hand-made client-lens values for the output and gate tests: a ``LensFinding`` of each kind
and effect, a ``ModelView`` holding them, and a report whose sessions carry them.

The lens itself fills ``ClientSession.model_view`` from a session's captures; these values let
the renderers and the limits gate be tested against known findings whatever the lens computes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcpcost.audit.model_view import (
    ApiShape,
    Effect,
    FindingKind,
    LensFinding,
    Loading,
    LoadVerdict,
    ModelView,
)
from mcpcost.configs.clients.presentation import Confidence, DeferralMode
from mcpcost.configs.config_file import ClientName
from tests.helpers.audit_builders import TABLE, config, entry, report_for

SOURCE = "https://example.invalid/docs/tools"  # a rule's source in these values (never fetched)


def finding(
    kind: FindingKind,
    effect: Effect,
    *,
    server: str | None = "alpha",
    tool: str | None = "a_0",
    limit: int | str | None = 60,
    actual: int | str | None = 65,
    confidence: Confidence = Confidence.DOCUMENTED,
    fix: str = "rename the tool",
    rule: str | None = None,
) -> LensFinding:
    return LensFinding(
        kind=kind,
        effect=effect,
        server=server,
        tool=tool,
        limit=limit,
        actual=actual,
        rule=rule or f"the {kind} rule",
        fix=fix,
        source=SOURCE,
        date="2026-11",
        confidence=confidence,
    )


# one breaking finding (a tool dropped), one reported cut, one that does not break (hidden)
DROPPED = finding(FindingKind.NAME_TOO_LONG, Effect.DROPS)
CUT = finding(
    FindingKind.DESCRIPTION_TRUNCATED,
    Effect.CUTS,
    server="gamma",
    tool="g_1",
    limit=2048,
    actual=2100,
    confidence=Confidence.REPORTED,
    fix="trim the description",
)
HIDDEN = finding(
    FindingKind.HIDDEN_FROM_MODEL,
    Effect.HIDES,
    server="gamma",
    tool="g_2",
    limit="visibility app",
    actual="app",
    fix="nothing to do: the tool is for the app",
)
TOO_MANY = finding(
    FindingKind.TOO_MANY_TOOLS,
    Effect.REJECTS,
    server=None,
    tool=None,
    limit=128,
    actual=140,
    fix="drop a server",
)


def view(
    *findings: LensFinding,
    upfront: int = 1234,
    deferred: int = 0,
    verdict: LoadVerdict = LoadVerdict.LOADED_UP_FRONT,
) -> ModelView:
    return ModelView(
        api_shape=ApiShape.OPENAI_FUNCTION,
        loading=Loading(
            client=ClientName("cursor"),
            verdict=verdict,
            condition="a hand-made verdict",
            evidence=(),
            regime="hand-made",
            mode=DeferralMode.LOADS_UPFRONT,
            mechanism=None,
            sources=(),
        ),
        upfront_tokens=upfront,
        deferred_tokens=deferred,
        findings=findings,
    )


def with_views(report: Any, views: dict[str, ModelView | None]) -> Any:
    """``report`` with each session whose client is a key of ``views`` given that view."""
    sessions = tuple(
        replace(s, model_view=views[s.client]) if s.client in views else s for s in report.sessions
    )
    return replace(report, sessions=sessions)


def lens_report(*findings: LensFinding, client: str = "cursor") -> Any:
    """A report of one ``client`` session (alpha and gamma from the audit builders' table, in
    ``/p/mcp.json``) whose model view holds ``findings``."""
    r = report_for([config(client, "/p/mcp.json", entry("alpha"), entry("gamma"))], TABLE)
    return with_views(r, {client: view(*findings)})
