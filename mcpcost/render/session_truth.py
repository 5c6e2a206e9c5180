"""The one reading of a client session's truth from the audit's JSON report (pure): what its
model loads, by the client lens (``sessions[i].modelView``), as every output built from the
report (``audit --markdown``, the Action's comment, job summary, outputs) shows it.

The report's ``modelView`` carries the verdict (``loaded-up-front``, ``deferred``,
``cannot-be-said``), the condition that decides it, its evidence and the projected numbers
(``upfrontTokens``, ``deferredTokens``, with ``wireTokens`` as the labelled second figure, and
per server the same three). Where a report has no ``verdict`` yet, the verdict is read from the
numbers the view has (``_verdict_of_numbers``): deferred when the view keeps tokens back,
cannot-be-said when no rule is on record, no client is known, or the session's settings could
not be read; else loaded up front. Nothing else in the renderers reads these fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from mcpcost.core.record import Record


class SessionVerdict(StrEnum):
    """What a session's client does with its definitions (the report's ``modelView.verdict``)."""

    LOADED_UP_FRONT = "loaded-up-front"
    DEFERRED = "deferred"
    CANNOT_BE_SAID = "cannot-be-said"


VERDICT_WORDS = {
    SessionVerdict.LOADED_UP_FRONT: "loaded up front",
    SessionVerdict.DEFERRED: "deferred",
    SessionVerdict.CANNOT_BE_SAID: "cannot be said",
}


class ServerTruth(Record, frozen=True, kw_only=True):
    name: str
    upfront_tokens: int | None  # None: the report gives no per-server projection
    deferred_tokens: int | None
    wire_tokens: int | None  # None: not measured


class SessionTruth(Record, frozen=True, kw_only=True):
    key: str
    client: str
    label: str
    verdict: SessionVerdict
    condition: str
    upfront_tokens: int  # for cannot-be-said: the ceiling (everything loads)
    deferred_tokens: int
    wire_tokens: int
    regime: str | None  # None: no client lens (a ``--config`` file)
    rules_on_record: bool
    api_shape: str | None
    findings: tuple[Mapping[str, Any], ...]  # the view's lens findings, as the report has them
    servers: tuple[ServerTruth, ...]


# the session deferral modes that say the verdict cannot be read from this machine
_UNSAID_MODES = frozenset({"client-unknown", "setting-unresolved", "setting-unrecognized"})


def _verdict_of_numbers(session: Mapping[str, Any], view: Mapping[str, Any]) -> SessionVerdict:
    deferral = session.get("deferral")
    mode = deferral.get("mode") if isinstance(deferral, Mapping) else None
    crosses_unknown = mode == "threshold" and deferral is not None and deferral["crosses"] is None
    if not view["rulesOnRecord"] or mode in _UNSAID_MODES or crosses_unknown:
        return SessionVerdict.CANNOT_BE_SAID
    return SessionVerdict.DEFERRED if view["deferredTokens"] else SessionVerdict.LOADED_UP_FRONT


def _mode_condition(deferral: Mapping[str, Any]) -> tuple[str, SessionVerdict] | None:
    """What the session's deferral object says decides it, with the verdict that implies."""
    mode, threshold = deferral["mode"], deferral["thresholdTokens"]
    said = {
        "client-unknown": ("No client is known for this file (--config).", "cannot-be-said"),
        "setting-unresolved": (
            "The setting that decides it could not be read from this machine.",
            "cannot-be-said",
        ),
        "setting-unrecognized": (
            "The setting that decides it holds a value that is not documented.",
            "cannot-be-said",
        ),
        "defers-all": ("The client defers every MCP tool definition, at any size.", "deferred"),
        "loads-upfront": ("A setting makes the client load every definition.", "loaded-up-front"),
        "no-deferral-on-record": (
            "No deferral is on record for the client: every request carries them.",
            "loaded-up-front",
        ),
    }
    if mode in said:
        text, verdict = said[mode]
        return text, SessionVerdict(verdict)
    if mode == "threshold" and threshold is not None:
        side = {
            True: ("this session is at or above it", "deferred"),
            False: ("this session is under it", "loaded-up-front"),
            None: ("which side this session is on cannot be said", "cannot-be-said"),
        }[deferral["crosses"]]
        text = f"The client defers past {threshold:,} tokens; {side[0]}."
        return text, SessionVerdict(side[1])
    return None


def _condition_of_numbers(
    session: Mapping[str, Any], view: Mapping[str, Any], verdict: SessionVerdict
) -> str:
    if not view["rulesOnRecord"]:
        return f"No rule is on record for how {session['label']} presents tools to its model."
    deferral = session.get("deferral")
    said = _mode_condition(deferral) if isinstance(deferral, Mapping) else None
    if said is not None and said[1] is verdict:
        return said[0]
    return f"Regime {view['regime']}: {VERDICT_WORDS[verdict]}."


def _servers(session: Mapping[str, Any], view: Mapping[str, Any] | None) -> tuple[ServerTruth, ...]:
    listed = view.get("servers") if view is not None else None
    if isinstance(listed, list):
        return tuple(
            ServerTruth(
                name=s["name"],
                upfront_tokens=s["upfrontTokens"],
                deferred_tokens=s["deferredTokens"],
                wire_tokens=s["wireTokens"],
            )
            for s in listed
        )
    return tuple(
        ServerTruth(
            name=s["name"], upfront_tokens=None, deferred_tokens=None, wire_tokens=s["tokens"]
        )
        for s in (*session["servers"], *session["skipped"])
    )


def session_truth(session: Mapping[str, Any]) -> SessionTruth:
    """One ``sessions[i]`` of a report (checked against its schema) as its truth."""
    view: Mapping[str, Any] | None = session["modelView"]
    label = session["label"]
    wire = int(session["totalTokens"])
    if view is None:  # a --config file: no client is known, so everything counts
        return SessionTruth(
            key=session["key"],
            client=session["client"],
            label=label,
            verdict=SessionVerdict.CANNOT_BE_SAID,
            condition="No client is known for this file (--config): read as loaded up front.",
            upfront_tokens=wire,
            deferred_tokens=0,
            wire_tokens=wire,
            regime=None,
            rules_on_record=False,
            api_shape=None,
            findings=(),
            servers=_servers(session, None),
        )
    if "verdict" in view:
        verdict = SessionVerdict(view["verdict"])
        condition = str(view["condition"])
        wire = int(view["wireTokens"])
    else:
        verdict = _verdict_of_numbers(session, view)
        condition = _condition_of_numbers(session, view, verdict)
    upfront, deferred = int(view["upfrontTokens"]), int(view["deferredTokens"])
    if verdict is SessionVerdict.CANNOT_BE_SAID:  # the ceiling: as if everything loads
        upfront, deferred = upfront + deferred, 0
    return SessionTruth(
        key=session["key"],
        client=session["client"],
        label=label,
        verdict=verdict,
        condition=condition,
        upfront_tokens=upfront,
        deferred_tokens=deferred,
        wire_tokens=wire,
        regime=view["regime"],
        rules_on_record=bool(view["rulesOnRecord"]),
        api_shape=view["apiShape"],
        findings=tuple(view["findings"]),
        servers=_servers(session, view),
    )


def sessions_truth(doc: Mapping[str, Any]) -> tuple[SessionTruth, ...]:
    """Every session of a report, in the report's order."""
    return tuple(session_truth(s) for s in doc["sessions"])
