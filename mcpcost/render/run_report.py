"""The audit's JSON report with what one run of it adds (pure): its judged findings, and for the
Action the commits and pull request it ran for, what the pull request did to each config file
and each changed server's tools, and each server alone through each client's lens.

This document is the only exchange shape: ``audit --json`` writes the report part, ``audit
--sarif`` builds its log from the findings part, and the Action's first phase saves the whole
document (``report.json``) that its second phase reads back against the schema
(``report_reader``) and renders the comment and the summary from. Every added field is in
``mcpcost/schemas/audit-report.schema.json``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from mcpcost.audit.compose import Audit
from mcpcost.audit.gates import Gate
from mcpcost.audit.report_model import AuditReport, ServerResult
from mcpcost.render.json_report import report_to_json
from mcpcost.render.sarif_report import findings_to_json, judged_findings

# what a pull request did to a config file as a whole (git shows it absent or empty on a side)
NEW_CONFIG = "new config"
CONFIG_REMOVED = "config removed"
CONFIG_EMPTIED = "config emptied"


def _tools(report: AuditReport | None, source: str, name: str) -> dict[str, int]:
    for c in report.configs if report is not None else ():
        if c.source == source:
            for s in (*c.servers, *c.skipped):
                if s.name == name:
                    return _measured_tools(s)
    return {}


def _measured_tools(s: ServerResult) -> dict[str, int]:
    return dict(s.tools) if s.measured else {}


def tool_changes(before: Mapping[str, int], after: Mapping[str, int]) -> list[dict[str, Any]]:
    """Each tool whose number differs, largest change first (``None``: absent on that side)."""
    rows: list[dict[str, Any]] = [
        {"tool": t, "before": before.get(t), "after": after.get(t)}
        for t in set(before) | set(after)
        if before.get(t) != after.get(t)
    ]
    return sorted(
        rows,
        key=lambda r: (-abs((after.get(r["tool"]) or 0) - (before.get(r["tool"]) or 0)), r["tool"]),
    )


def _with_diff_details(doc: dict[str, Any], audit: Audit) -> None:
    diff = doc.get("diff")
    if diff is None:
        return
    presence = audit.presence
    for c in diff["configs"]:
        source = c["source"]
        if presence is not None:
            change = (
                NEW_CONFIG
                if source in presence.added
                else CONFIG_REMOVED
                if source in presence.removed
                else CONFIG_EMPTIED
                if source in presence.emptied
                else None
            )
            if change is not None:
                c["change"] = change
        for s in c["servers"]:
            if s["kind"] == "changed":
                before = _tools(audit.base, c["baselineSource"] or source, s["name"])
                after = _tools(audit.report, source, s["name"])
                s["toolChanges"] = tool_changes(before, after)


def run_report(
    audit: Audit,
    *,
    lines: Mapping[tuple[str, str], int],
    fail_on: Collection[Gate],
    sessions: Collection[str] | None = None,
    run: Mapping[str, Any] | None = None,
    server_lenses: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The report (``report_to_json``) with the run's judged findings (``fail_on``: the kinds
    that fail it; ``sessions``: the session keys whose lens findings count, None for all) and,
    when given, the Action's ``run`` and ``serverLenses``."""
    doc = report_to_json(audit.report, audit.diff, audit.gates)
    _with_diff_details(doc, audit)
    found = judged_findings(
        audit.report, audit.gates, lines, audit.diff, fail_on=fail_on, sessions=sessions
    )
    doc["findings"] = findings_to_json(found)
    if run is not None:
        doc["run"] = dict(run)
    if server_lenses:
        doc["serverLenses"] = [dict(x) for x in server_lenses]
    return doc
