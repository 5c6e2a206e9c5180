"""Gate findings and unmeasured servers as a SARIF 2.1.0 log, for code scanning (pure).

The one SARIF builder: ``render_sarif(report)`` reads the ``findings`` of the audit's JSON
report (``judged_findings`` makes them, ``findings_to_json`` writes them into the report), so
``audit --sarif`` and the Action's ``sarif`` input write the same log for the same report.
Each finding carries its level: ``error`` when its kind fails the run (what the CLI's gate
flags ask for, the Action's ``fail-on``), ``note`` for a client-lens finding that breaks
nothing (a rename, an app-only tool kept from the model), ``warning`` for the rest (an
unmeasured server nobody asked to fail on, a lens finding that drops, rejects or cuts
something while the limits gate was not asked for). One rule per finding kind (``Gate``), and
one per client-lens finding kind (``mcpcost/lens/name-too-long``...).
Each result is located at the config line of its server (for a config's increase, the server
that grew the most; for a whole session's lens finding, its heaviest server in that file), or
at the judged config's top when it concerns the whole file.

Locations: a relative source is relative to the project root (``%SRCROOT%``), as GitHub's
code scanning expects; an absolute source under ``base_dir`` is made relative to it; any other
absolute source (a config in the home directory) is a ``file:`` URI. A finding that names no file
(the baseline's methodology differs) is located at ``default_source``, line 1, so every result
has the one location code scanning requires.

``partialFingerprints`` carry a hash of the kind, the file and the server, so an alert keeps its
identity when the line or the numbers in its text move.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from mcpcost.audit.gates import Gate, GateFinding, GateResult, unmeasured_findings
from mcpcost.audit.limits_gate import lens_findings
from mcpcost.audit.model_view import FindingKind
from mcpcost.audit.report_model import AuditReport
from mcpcost.configs.config_file import ConfigFile
from mcpcost.core.digest import sha256_hex
from mcpcost.core.jsonvalue import stringify_pretty
from mcpcost.render.session_truth import SessionTruth, session_truth
from mcpcost.version import __version__

if TYPE_CHECKING:
    from mcpcost.audit.diff import AuditDiff

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SOURCE_ROOT = "%SRCROOT%"
TOOL_NAME = "mcp-context-cost"
FINGERPRINT_KEY = "mcpcostFinding/v1"

RULES: Mapping[Gate, tuple[str, str]] = {
    Gate.BUDGET: (
        "An MCP config costs more tokens than the budget",
        "The tool definitions of the servers this config declares take more tokens of the "
        "model's context than the budget allows (--budget, the Action's budget input).",
    ),
    Gate.INCREASE: (
        "An MCP config grew more than allowed",
        "Against the baseline, the tool definitions of this config grew by more tokens (or a "
        "larger share) than allowed, or the growth has nothing to be compared against.",
    ),
    Gate.UNMEASURED: (
        "An MCP server could not be measured",
        "The server could not be launched or did not list its tools, so what it costs is "
        "unknown and any total that includes it is only a floor.",
    ),
    Gate.UNREADABLE: (
        "An MCP config file cannot be read",
        "The config file was found but cannot be read or parsed, so none of the servers it "
        "declares is measured; where it is on record, the client cannot load it either.",
    ),
    Gate.KNOWN_UNKNOWN: (
        "An MCP server has no number in either run, launched the same way",
        "The server could not be measured in the baseline nor now, and its config launches it "
        "the same way: the change did not cause the unknown, so it is carried over, not failed.",
    ),
    Gate.LIMITS: (
        "What a client does with these tools cannot be judged",
        "The limits gate was asked for, but no client is known for this config (or a server "
        "has no number), so what the client drops, rejects or cuts cannot be established.",
    ),
}

LENS_RULE_PREFIX = "mcpcost/lens/"
# one rule per client-lens finding kind: what the client does, in the rule's words
LENS_RULES: Mapping[FindingKind, tuple[str, str]] = {
    FindingKind.NAME_TOO_LONG: (
        "A tool's name is longer than a client allows",
        "The name the client's model would see (with the client's prefix) is longer than the "
        "client or its model API allows: the tool is dropped or the request refused.",
    ),
    FindingKind.NAME_INVALID: (
        "A tool's name has characters a client does not allow",
        "The tool's name has characters outside what the client or its model API accepts: it "
        "is rewritten, dropped or the request refused.",
    ),
    FindingKind.NAME_COLLISION: (
        "Two tools end up with one name in a client",
        "After the client renames tools, two tools of the session carry the same name: one of "
        "them is lost or the request refused.",
    ),
    FindingKind.TOO_MANY_TOOLS: (
        "A client session has more tools than the client allows",
        "The session's servers list more tools than the client or its model API takes in one "
        "request: tools are dropped or the request refused.",
    ),
    FindingKind.DESCRIPTION_TRUNCATED: (
        "A tool's description is longer than a client keeps",
        "The client cuts the tool's description before its model sees it.",
    ),
    FindingKind.INSTRUCTIONS_TRUNCATED: (
        "A server's instructions are longer than a client keeps",
        "The client cuts the server's instructions before its model sees them.",
    ),
    FindingKind.SCHEMA_UNSUPPORTED: (
        "A tool's input schema uses what a client's model API does not take",
        "The tool's schema uses keywords or nesting the client's model API does not support: "
        "the tool is dropped, the schema rewritten or the request refused.",
    ),
    FindingKind.HIDDEN_FROM_MODEL: (
        "A tool is kept from a client's model",
        "The tool is marked for the app only (MCP Apps): the client does not show it to its "
        "model, by design.",
    ),
    FindingKind.NAME_INVISIBLE: (
        "A tool's name holds characters that display as nothing",
        "The tool's name holds zero-width, tag or other default-ignorable characters, or bidi "
        "controls: a person reading it (an approval prompt, a tool list) sees another name "
        "than the one the client and its model use.",
    ),
}


class Level(StrEnum):
    """The SARIF level of a result."""

    ERROR = "error"  # the finding fails a gate
    WARNING = "warning"  # reported, not failing
    NOTE = "note"  # a client-lens finding that breaks nothing (a rename, a hidden app tool)


@dataclass(frozen=True, slots=True, kw_only=True)
class LocatedFinding:
    """A finding with the config line it points at and its level in this run."""

    gate: Gate
    source: str | None
    server: str | None
    text: str
    line: int | None
    level: Level = Level.ERROR
    lens_kind: FindingKind | None = None  # a client-lens finding's kind: its own rule
    tool: str | None = None
    session: str | None = None  # the session's key, for a client-lens finding


def entry_lines(configs: Sequence[ConfigFile]) -> dict[tuple[str, str], int]:
    """(source, server name) -> the line of the server's entry in that config."""
    return {(c.source, e.name): e.line for c in configs for e in c.entries if e.line is not None}


def grown_most(diff: AuditDiff, source: str) -> str | None:
    """The server of ``source`` whose number grew the most against the baseline (an added
    server grows by its whole number), or None when none grew."""
    config = next((c for c in diff.configs if c.source == source), None)
    grown = [s for s in (config.servers if config else ()) if s.delta is not None and s.delta > 0]
    return max(grown, key=lambda s: s.delta or 0).name if grown else None


def finding_line(
    finding: GateFinding,
    report: AuditReport,
    lines: Mapping[tuple[str, str], int],
    diff: AuditDiff | None = None,
) -> int | None:
    """The server's entry; for a whole-config budget finding its heaviest server; for a
    whole-config increase the server that grew the most (with ``diff``); else line 1."""
    if finding.source is None:
        return None
    if finding.server is not None and (finding.source, finding.server) in lines:
        return lines[(finding.source, finding.server)]
    if finding.gate is Gate.INCREASE and diff is not None:
        grown = grown_most(diff, finding.source)
        if grown is not None and (finding.source, grown) in lines:
            return lines[(finding.source, grown)]
    if finding.gate is Gate.BUDGET:
        config = next((c for c in report.configs if c.source == finding.source), None)
        if config is not None and config.servers:
            return lines.get((finding.source, config.servers[0].name), 1)
    if finding.gate is Gate.LIMITS and finding.session is not None:
        session = next((s for s in report.sessions if s.key == finding.session), None)
        heaviest = [e for e in (session.servers if session else ()) if e.source == finding.source]
        if heaviest:
            return lines.get((finding.source, heaviest[0].server.name), 1)
    return 1


def judged_findings(
    report: AuditReport,
    gates: GateResult,
    lines: Mapping[tuple[str, str], int],
    diff: AuditDiff | None = None,
    *,
    fail_on: Collection[Gate],
    sessions: Collection[str] | None = None,
) -> tuple[LocatedFinding, ...]:
    """Every finding of the run, located and given its level: the gates' findings and known
    unknowns, every other server without a number, and every client-lens finding. A finding
    whose kind is in ``fail_on`` is an ``error`` (a config that cannot be read always is),
    a lens finding that breaks nothing a ``note``, the rest ``warning``. ``sessions`` (the
    Action's ``clients`` input: None for every session) keeps only those sessions' lens
    findings."""

    failing = {*fail_on, Gate.UNREADABLE}
    found = [*gates.findings, *gates.known_unknowns]
    found += unmeasured_findings(report, tuple(found), diff)
    gated = {(f.session, f.lens) for f in found if f.lens is not None}
    found += [f for f in lens_findings(report) if (f.session, f.lens) not in gated]
    if sessions is not None:
        found = [f for f in found if f.gate is not Gate.LIMITS or f.session in sessions]
    asked = set(gates.findings)
    out = []
    for f in found:
        if f.lens is not None and not f.lens.effect.breaks:
            level = Level.NOTE
        elif f.gate in failing and (f in asked or f.gate is Gate.KNOWN_UNKNOWN):
            level = Level.ERROR
        else:
            level = Level.WARNING
        out.append(
            LocatedFinding(
                gate=f.gate,
                source=f.source,
                server=f.server,
                text=f.text,
                line=finding_line(f, report, lines, diff),
                level=level,
                lens_kind=f.lens.kind if f.lens is not None else None,
                tool=f.lens.tool if f.lens is not None else None,
                session=f.session,
            )
        )
    return tuple(out)


def findings_to_json(found: Sequence[LocatedFinding]) -> list[dict[str, Any]]:
    """The report's ``findings``: what the SARIF log, the annotations and the failure lines of
    the comment and summary are built from."""
    return [
        {
            "gate": f.gate,
            "level": f.level,
            "source": f.source,
            "server": f.server,
            "tool": f.tool,
            "lensKind": f.lens_kind,
            "session": f.session,
            "line": f.line,
            "text": f.text,
        }
        for f in found
    ]


def artifact_location(source: str, base_dir: Path | None) -> dict[str, Any]:
    """A SARIF artifactLocation for a config path (see the module docstring)."""
    path = Path(source)
    if path.is_absolute() and base_dir is not None and path.is_relative_to(base_dir):
        path = path.relative_to(base_dir)
    if path.is_absolute():
        return {"uri": path.as_uri()}
    return {"uri": quote(PurePosixPath(*path.parts).as_posix()), "uriBaseId": SOURCE_ROOT}


def fingerprint(finding: Mapping[str, Any], source: str) -> str:
    parts = [finding["gate"], source, finding["server"] or ""]
    if finding["lensKind"] is not None:  # several lens findings can concern one server
        parts += [finding["lensKind"], finding["tool"] or ""]
    ident = "\n".join(parts)
    return sha256_hex(ident.encode("utf-8"))


def rule_id(finding: Mapping[str, Any]) -> str:
    """The finding's rule: its gate's kind, or for a client-lens finding its own kind's."""
    if finding["lensKind"] is not None:
        return LENS_RULE_PREFIX + str(finding["lensKind"])
    return str(finding["gate"])


def _result(
    finding: Mapping[str, Any],
    index: Mapping[str, int],
    default_source: str | None,
    base_dir: Path | None,
) -> dict[str, Any]:
    source = finding["source"] or default_source
    rule = rule_id(finding)
    result: dict[str, Any] = {
        "ruleId": rule,
        "ruleIndex": index[rule],
        "level": finding["level"],
        "message": {"text": finding["text"]},
    }
    if source:
        line = (finding["line"] or 1) if finding["source"] else 1
        result["locations"] = [
            {
                "physicalLocation": {
                    "artifactLocation": artifact_location(source, base_dir),
                    "region": {"startLine": max(1, line)},
                }
            }
        ]
        result["partialFingerprints"] = {FINGERPRINT_KEY: fingerprint(finding, source)}
    return result


def _session(t: SessionTruth) -> dict[str, Any]:
    """A session's truth in the run's property bag, as every other output states it."""
    return {
        "label": t.label,
        "client": t.client,
        "verdict": str(t.verdict),
        "condition": t.condition,
        "upfrontTokens": t.upfront_tokens,
        "deferredTokens": t.deferred_tokens,
        "wireTokens": t.wire_tokens,
        "atLeast": t.is_floor,
    }


def _rule(rule: str, name: str, texts: tuple[str, str], level: Level) -> dict[str, Any]:
    return {
        "id": rule,
        "name": "".join(part.title() for part in name.split("-")),
        "shortDescription": {"text": texts[0]},
        "fullDescription": {"text": texts[1]},
        "defaultConfiguration": {"level": str(level)},
    }


_ORDER = {Level.ERROR: 0, Level.WARNING: 1, Level.NOTE: 2}


def sarif_log(
    report: Mapping[str, Any],
    *,
    base_dir: Path | None = None,
    default_source: str | None = None,
) -> dict[str, Any]:
    """The SARIF 2.1.0 log of a JSON report's ``findings`` (``audit --json``'s shape, checked
    against its schema): one run, one rule per gate kind and one per client-lens finding kind
    (``mcpcost/lens/<kind>``), errors first, then warnings, then notes. The run's property bag
    holds each session's truth (``sessions``: verdict, condition, up front, deferred, wire), so
    a reader of the log alone sees the figures the findings are about."""
    rules = [_rule(str(gate), str(gate), RULES[gate], Level.ERROR) for gate in Gate]
    rules += [
        _rule(LENS_RULE_PREFIX + str(kind), f"lens-{kind}", LENS_RULES[kind], Level.WARNING)
        for kind in FindingKind
    ]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    found = sorted(report.get("findings", ()), key=lambda f: _ORDER[Level(f["level"])])
    run: dict[str, Any] = {
        "tool": {"driver": {"name": TOOL_NAME, "version": __version__, "rules": rules}},
        "results": [_result(f, index, default_source, base_dir) for f in found],
        "properties": {
            "sessions": [_session(session_truth(s)) for s in report.get("sessions", ())]
        },
    }
    if base_dir is not None:
        run["originalUriBaseIds"] = {SOURCE_ROOT: {"uri": base_dir.as_uri().rstrip("/") + "/"}}
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def render_sarif(
    report: Mapping[str, Any],
    *,
    base_dir: Path | None = None,
    default_source: str | None = None,
) -> str:
    """The log as the text of a ``.sarif`` file: the one SARIF builder, for ``audit --sarif``
    and the Action's ``sarif`` input alike."""
    return (
        stringify_pretty(sarif_log(report, base_dir=base_dir, default_source=default_source)) + "\n"
    )
