"""The interim leaderboard's ``not-yet-run`` reasons (pure): ``results/not-yet-run.json``.

A sweep run where the measuring machine cannot reach what servers need (these development
machines reach the npm and PyPI registries and nothing else; no real API key is ever given)
fails servers for reasons of its own. Such a failure is not the server's: the interim tree keeps
what measured and lists the rest as ``not-yet-run`` with the reason (spec/METHODOLOGY.md,
statuses). ``pending_from`` decides which measurements become reasons; ``not_yet_run_json`` and
``parse_not_yet_run`` are the file the pages read the reasons from.

Kept as published: ``measured``, ``dynamic`` (a number), ``auth-required`` (the server's own
answer to a dummy credential, the same on any machine) and ``remote-auth-wall``. Turned into a
reason: ``startup-failure`` and ``timeout``, whose cause here may be the machine's network.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpcost.core.jsonvalue import JSONValue, stringify_pretty
from mcpcost.core.model import Measurement
from mcpcost.core.status import Status
from mcpcost.escaping.markdown import one_line, truncate

NOT_YET_RUN_REL = "results/not-yet-run.json"
KEPT = frozenset({Status.MEASURED, Status.DYNAMIC, Status.AUTH_REQUIRED, Status.REMOTE_AUTH_WALL})
REASON_MAX = 300


def reason_for(m: Measurement, environment: str) -> str:
    """Why ``m``'s server is listed as not yet run: the machine's limits (short: the pages cut
    long cells), then the status and note the attempt here ended in."""
    seen = truncate(one_line(m.notes or "no note"), REASON_MAX)
    return f"{environment}: {m.status.value} here, {seen}"


def pending_from(measurements: Mapping[str, Measurement], environment: str) -> dict[str, str]:
    """The measurements that are not published as the server's result, with their reasons."""
    return {
        name: reason_for(m, environment)
        for name, m in sorted(measurements.items())
        if m.status not in KEPT
    }


def not_yet_run_json(day: str, environment: str, reasons: Mapping[str, str]) -> str:
    doc: dict[str, JSONValue] = {
        "date": day,
        "environment": environment,
        "servers": {name: reasons[name] for name in sorted(reasons)},
    }
    return stringify_pretty(doc) + "\n"


def parse_not_yet_run(doc: Any) -> dict[str, str]:
    """Reasons by server name from the parsed file; anything else (absent, malformed) is none."""
    servers = doc.get("servers") if isinstance(doc, dict) else None
    if not isinstance(servers, dict):
        return {}
    return {k: v for k, v in servers.items() if isinstance(k, str) and isinstance(v, str)}
