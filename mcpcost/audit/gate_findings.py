"""The gates' vocabulary: the kind of a finding (``Gate``) and one reason a gate failed
(``GateFinding``). ``gates`` evaluates the gates and ``limits_gate`` the client lens's; both
build these, so they live apart from either."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mcpcost.audit.model_view import LensFinding


class Gate(StrEnum):
    """The kind of a finding; the Action's ``fail-on`` names these."""

    BUDGET = "budget"  # a config over the ceiling
    INCREASE = "increase"  # a config grew past a limit, or had nothing to compare against
    UNMEASURED = "unmeasured"  # the answer could not be established: a server has no number
    # no number in either run, launched the same way on both sides: an unknown the change did
    # not cause, reported and carried over (it fails only where asked: --fail-on-unmeasured)
    KNOWN_UNKNOWN = "known-unknown"
    # a config file found but not readable or parsable: nothing it declares is in the report
    UNREADABLE = "unreadable"
    # the client lens: a client drops, rejects or cuts a tool, a description or a request
    # (``--fail-on-limits``; the Action's ``fail-on: limits``)
    LIMITS = "limits"


@dataclass(frozen=True, slots=True, kw_only=True)
class GateFinding:
    """One reason a gate failed, with its kind; ``server`` None means the config as a whole."""

    gate: Gate
    source: str | None
    text: str
    server: str | None = None
    session: str | None = None  # the session's key, for a finding about a whole session
    covers: tuple[tuple[str, str], ...] = ()  # (source, server) of the unmeasured it accounts for
    lens: LensFinding | None = None  # a ``limits`` finding: the client lens's finding it reports
