"""``mcpcost measure --client``: the measured server through each client's lens (which
clients, the lens under each one's defaults, the table and the ``--json`` object)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpcost.audit.lens_sessions import measured_server, server_views
from mcpcost.cli.audit_args import client_names
from mcpcost.configs.clients import KNOWN_CLIENTS
from mcpcost.configs.config_file import ClientName
from mcpcost.core.jsonvalue import stringify_pretty
from mcpcost.core.model import Measurement
from mcpcost.escaping.terminal import terminal_line

if TYPE_CHECKING:
    from mcpcost.audit.lens_sessions import ClientView


def lens_clients(values: list[str]) -> list[ClientName]:
    """The clients ``--client`` names (``all``: every known one), checked before measuring."""

    if any(n.strip() == "all" for v in values for n in v.split(",")):
        return list(KNOWN_CLIENTS)
    return [ClientName(n) for n in client_names(values, "mcpcost measure")]


def client_views(name: str, m: Measurement, clients: list[ClientName]) -> list[ClientView]:

    return server_views(measured_server(name, m), m.total_tokens or 0, clients)


def render_client_views(name: str, m: Measurement, views: list[ClientView]) -> str:
    """``measure --client --json``: the server, its wire number and each client's model view."""
    return (
        stringify_pretty(
            {
                "serverName": name,
                "wireTokens": m.total_tokens,
                "toolCount": m.tool_count,
                "canonicalSha256": m.canonical_sha256,
                "clients": [v.to_dict() for v in views],
            }
        )
        + "\n"
    )


def client_table(views: list[ClientView]) -> str:
    """One row per client (up front, deferred, regime, findings), then one line per finding."""
    rows = [("client", "up front", "deferred", "regime", "findings")]
    for v in views:
        mv = v.model_view
        found = str(len(mv.findings)) if mv.rules_on_record else "no rule on record"
        rows.append(
            (v.label, f"{mv.upfront_tokens:,}", f"{mv.deferred_tokens:,}", mv.regime, found)
        )
    widths = [max(len(terminal_line(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(terminal_line(cell).ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
        for r in rows
    ]
    for v in views:
        for f in v.model_view.findings:
            where = f.tool if f.tool is not None else (f.server or "the session")
            lines.append(
                terminal_line(
                    f"{v.label}: {f.kind} ({f.effect}) {where}: {f.rule} "
                    f"[limit {f.limit}, actual {f.actual}; {f.confidence}, {f.source}] "
                    f"fix: {f.fix}"
                )
            )
    return "\n".join(lines) + "\n"
