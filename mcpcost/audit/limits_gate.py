"""The limits gate (``--fail-on-limits``, the Action's ``fail-on: limits``), judged from
values (pure).

The client lens fills each session's ``model_view`` with findings (``LensFinding``): what the
session's client does with its tools by its documented or reported rules. Each finding becomes
a ``limits`` ``GateFinding`` that names the config file loading its server (a finding about the
whole session: the file of its heaviest server) and says in one line which client does what to
what, by which rule, and the fix (``lens_sentence``). The gate fails on the findings whose effect
breaks (the client drops, rejects or cuts something); a rename or an app-only tool kept from the
model is reported, never failed. A session the lens could not see into cannot be judged and
fails too: one with no lens (a ``--config`` file, whose client is not known) and one holding a
server without a number (an ``unmeasured`` finding that covers it).
"""

from __future__ import annotations

from collections.abc import Sequence

from mcpcost.audit.gate_findings import Gate, GateFinding
from mcpcost.audit.model_view import Effect, LensFinding
from mcpcost.audit.report_model import AuditReport, ClientSession
from mcpcost.configs.clients.presentation import Confidence
from mcpcost.configs.config_file import EXPLICIT


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


_EFFECT_VERBS: dict[Effect, str] = {
    Effect.DROPS: "drops",
    Effect.REJECTS: "sends a request its model API rejects, over",
    Effect.CUTS: "cuts",
    Effect.RENAMES: "renames",
    Effect.HIDES: "hides from the model",
    Effect.DISGUISES: "shows as another name",
}


def lens_subject(f: LensFinding) -> str:
    """What a lens finding is about: a tool of a server, a server, or the session's tools."""
    if f.tool is not None and f.server is not None:
        return f"tool {f.tool} of {f.server}"
    if f.server is not None:
        return f"server {f.server}"
    if f.tool is not None:
        return f"tool {f.tool}"
    return "the session's tools"


def lens_sentence(label: str, f: LensFinding) -> str:
    """One lens finding in one line: which client does what to what, by which rule (its limit
    and this session's value), and the fix; a rule only users report says so."""
    bounds = [
        part
        for part in (
            f"limit {f.limit}" if f.limit is not None else "",
            f"here {f.actual}" if f.actual is not None else "",
        )
        if part
    ]
    shown = f"; {', '.join(bounds)}" if bounds else ""
    reported = " (a reported rule, not documented)" if f.confidence is Confidence.REPORTED else ""
    return (
        f"{label} {_EFFECT_VERBS[f.effect]} {lens_subject(f)} ({f.kind}: {f.rule}{shown})"
        f"{reported}. Fix: {f.fix}"
    )


def _finding_source(session: ClientSession, server: str | None) -> str | None:
    """The config file a lens finding points at: the file that loads its server, else the file
    of the session's heaviest server."""
    for e in (*session.servers, *session.skipped):
        if e.server.name == server:
            return e.source
    return (
        session.servers[0].source
        if session.servers
        else session.sources[0]
        if session.sources
        else None
    )


def lens_findings(report: AuditReport, *, breaking: bool | None = None) -> tuple[GateFinding, ...]:
    """Every client-lens finding of every session as a ``limits`` finding, in session order
    (``breaking``: only those whose effect breaks, True, or only the others, False)."""
    out: list[GateFinding] = []
    for session in report.sessions:
        for f in session.model_view.findings:
            if breaking is not None and f.effect.breaks is not breaking:
                continue
            out.append(
                GateFinding(
                    gate=Gate.LIMITS,
                    source=_finding_source(session, f.server),
                    text=lens_sentence(session.label, f),
                    server=f.server,
                    session=session.key,
                    lens=f,
                )
            )
    return tuple(out)


def evaluate_limits(report: AuditReport) -> tuple[GateFinding, ...]:
    """``--fail-on-limits``: one finding per client-lens finding that drops, rejects or cuts
    something, then every session whose answer cannot be established: one with no client lens
    (a ``--config`` file: no client is known) and one holding a server without a number (what
    its client would do with those tools is unknown)."""
    if not report.sessions or not report.measured_any:
        reason = "The limits cannot be judged: no server was measured."
        return (GateFinding(gate=Gate.UNMEASURED, source=None, text=reason),)
    found = list(lens_findings(report, breaking=True))
    for session in report.sessions:
        if session.client == EXPLICIT:
            found.append(
                GateFinding(
                    gate=Gate.LIMITS,
                    source=session.sources[0] if session.sources else None,
                    text=(
                        f"{session.label}: no client is known for these files, so what a "
                        "client drops, rejects or cuts cannot be judged (audit the files where "
                        "their client discovers them)."
                    ),
                    session=session.key,
                )
            )
            continue
        if session.skipped:
            names = tuple(e.server.name for e in session.skipped)
            one = len(names) == 1
            found.append(
                GateFinding(
                    gate=Gate.UNMEASURED,
                    source=session.skipped[0].source,
                    text=(
                        f"{session.label}: {_listed(names)} {'has' if one else 'have'} no number, "
                        "so whether the client keeps every tool cannot be established."
                    ),
                    session=session.key,
                    covers=tuple((e.source, e.server.name) for e in session.skipped),
                )
            )
    return tuple(found)
