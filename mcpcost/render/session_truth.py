"""The one reading of a client session's truth from the audit's JSON report (pure): what its
model loads, by the client lens (``sessions[i].modelView``), as every output built from the
report (``audit --markdown``, the Action's comment, job summary, outputs) shows it.

The report's ``modelView`` carries the verdict (``LoadVerdict``), the condition that decides it
and the projected numbers (``upfrontTokens``, the cost if everything loads when the verdict
cannot be said; ``deferredTokens``; ``wireTokens`` as the labelled second figure). The report
is checked against its schema before it gets here (``report_reader``), so every field is there;
nothing is recomputed: the renderers only read these fields through ``SessionTruth``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcpcost.configs.clients.presentation import LoadVerdict
from mcpcost.configs.config_file import EXPLICIT


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionTruth:
    key: str
    client: str
    label: str
    verdict: LoadVerdict
    condition: str
    upfront_tokens: int  # for cannot-be-said: the ceiling (everything loads)
    is_floor: bool  # a server has no number: every figure is at least this
    deferred_tokens: int
    wire_tokens: int
    regime: str | None  # None: no client lens (a ``--config`` file)
    rules_on_record: bool
    api_shape: str | None
    findings: tuple[Mapping[str, Any], ...]  # the view's lens findings, as the report has them


def session_truth(session: Mapping[str, Any]) -> SessionTruth:
    """One ``sessions[i]`` of a report (checked against its schema) as its truth."""
    view: Mapping[str, Any] = session["modelView"]
    return SessionTruth(
        key=session["key"],
        client=session["client"],
        label=session["label"],
        verdict=LoadVerdict(view["verdict"]),
        condition=str(view["condition"]),
        upfront_tokens=int(view["upfrontTokens"]),
        is_floor=bool(view["unmeasured"]),
        deferred_tokens=int(view["deferredTokens"]),
        wire_tokens=int(view["wireTokens"]),
        regime=None if session["client"] == EXPLICIT else view["regime"],
        rules_on_record=bool(view["rulesOnRecord"]),
        api_shape=view["apiShape"],
        findings=tuple(view["findings"]),
    )


def sessions_truth(doc: Mapping[str, Any]) -> tuple[SessionTruth, ...]:
    """Every session of a report, in the report's order."""
    return tuple(session_truth(s) for s in doc["sessions"])
