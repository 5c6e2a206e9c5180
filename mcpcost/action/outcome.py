"""What one run found: per config, per server, base against head; head's client sessions
through the client lens; and the gate's verdict.

Every number, kind, delta and deferral verdict here is copied from the audit's report, diff and
gate findings (``mcpcost.action.judge`` does the copying); nothing is decided here. These views are
what the comment, the summary, the outputs and the annotations are rendered from, and what the
fork-safe first phase saves (``to_dict``) for the second phase to render (``from_dict``, strict:
the file comes from an untrusted run).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from mcpcost.audit.diff import INEXACT_KINDS, DiffKind
from mcpcost.audit.gates import Gate
from mcpcost.audit.model_view import ApiShape, Effect, FindingKind, LensFinding, ModelView
from mcpcost.audit.report_model import ServerStatus, server_status
from mcpcost.configs.clients.presentation import Confidence, DeferralMode
from mcpcost.configs.config_file import ClientName
from mcpcost.errors import InputError
from mcpcost.render.json_report import model_view_to_json

SCHEMA = "mcpcost-action-outcome/2"


class ConfigChange(StrEnum):
    """What a pull request did to a config file as a whole (git shows it absent or empty)."""

    NEW = "new config"
    REMOVED = "config removed"
    EMPTIED = "config emptied"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolChange:
    server: str
    tool: str
    base_tokens: int | None  # None: the tool is new
    head_tokens: int | None  # None: the tool is gone

    @property
    def delta(self) -> int:
        return (self.head_tokens or 0) - (self.base_tokens or 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerDiffView:
    """One server of a config, base against head (or head alone with no base side)."""

    name: str
    kind: DiffKind
    base_tokens: int | None = None
    head_tokens: int | None = None
    delta: int | None = None  # the audit's delta; None when it cannot be established
    base_status: ServerStatus | None = None  # None: not in the base config
    head_status: ServerStatus | None = None  # None: not in the head config
    note: str | None = None  # why a side could not be measured
    line: int | None = None  # the entry's line in the head config
    tool_changes: tuple[ToolChange, ...] = ()
    known_unknown: bool = False  # no number on either side, launched the same way: carried over

    @property
    def unknown(self) -> bool:
        if self.kind in INEXACT_KINDS or self.kind is DiffKind.UNMEASURED:
            return True
        return self.kind is DiffKind.ADDED and self.head_tokens is None


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigDiffView:
    """One config file, base against head: the audit's totals and delta, its servers, and the
    deferral verdict of the head side's client session."""

    source: str  # repo-relative path
    client: ClientName
    base_total: int | None  # None: no such config on base
    head_total: int | None  # None: no such config on head
    delta: int | None = None  # the audit's delta; None when there is nothing to compare
    exact: bool = True
    servers: tuple[ServerDiffView, ...] = ()
    problem: str | None = None  # head config unreadable
    change: ConfigChange | None = None
    deferral: DeferralMode | None = None  # the head report's verdict (None: no head report)
    deferral_mechanism: str | None = None  # the client's deferral mechanism, when it has one

    @property
    def percent(self) -> float | None:
        if not self.base_total or self.delta is None:
            return None
        return self.delta * 100.0 / self.base_total

    @property
    def changed(self) -> bool:
        return any(s.kind is not DiffKind.UNCHANGED for s in self.servers) or (
            self.base_total != self.head_total
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class FindingView:
    """One gate finding, with the line of the head config it points at."""

    gate: Gate
    source: str
    text: str
    server: str | None = None
    line: int | None = None
    lens_kind: FindingKind | None = None  # a client-lens finding's kind (its SARIF rule)
    tool: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerLensView:
    """One head server alone through each client's lens under the client's defaults, as
    ``mcpcost measure --client`` shows it: for the Action run on a server's own repository."""

    server: str
    wire_tokens: int
    clients: tuple[SessionLensView, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionLensView:
    """What one head client session's model gets, by the client lens (copied from the report)."""

    client: ClientName
    label: str
    view: ModelView


@dataclass(frozen=True, slots=True, kw_only=True)
class VerdictView:
    """The audit's findings, split by the Action's ``fail-on`` input."""

    failures: tuple[FindingView, ...] = ()  # gates in fail-on that tripped
    warnings: tuple[FindingView, ...] = ()  # gates that tripped but are not in fail-on
    # servers without a number on either side, launched the same way, when fail-on leaves
    # known-unknown out: reported, never failed, never annotated
    known_unknowns: tuple[FindingView, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def unreadable(self) -> bool:
        """A head config cannot be read: bad input (the step's status is error, exit 2)."""
        return any(r.gate is Gate.UNREADABLE for r in self.failures)


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    configs: tuple[ConfigDiffView, ...]
    verdict: VerdictView
    compared: bool  # True when there is a base side (pull requests)
    head_sha: str
    base_sha: str | None = None
    pr_number: int | None = None
    repository: str = ""
    run_url: str | None = None
    budget: int | None = None
    # the heaviest session's figure the budget judged, and which cost that is (upfront / full)
    budget_used: int | None = None
    budget_judged: str | None = None
    max_increase: int | None = None
    max_increase_percent: float | None = None
    encoding: str = "o200k_base"
    versions: Mapping[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    lenses: tuple[SessionLensView, ...] = ()  # head's client sessions through the client lens
    server_lenses: tuple[ServerLensView, ...] = ()  # without a base side: each server alone

    @property
    def base_tokens(self) -> int | None:
        totals = [c.base_total for c in self.configs if c.base_total is not None]
        return sum(totals) if self.compared and totals else (0 if self.compared else None)

    @property
    def head_tokens(self) -> int:
        return sum(c.head_total or 0 for c in self.configs)

    @property
    def worst(self) -> ConfigDiffView | None:
        """The config with the largest per-request increase (a context belongs to one client)."""
        deltas = [c for c in self.configs if c.delta is not None]
        return max(deltas, key=lambda c: c.delta or 0) if deltas else None

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.configs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "repository": self.repository,
            "prNumber": self.pr_number,
            "baseSha": self.base_sha,
            "headSha": self.head_sha,
            "runUrl": self.run_url,
            "compared": self.compared,
            "budget": self.budget,
            "budgetUsed": self.budget_used,
            "budgetJudged": self.budget_judged,
            "maxIncrease": self.max_increase,
            "maxIncreasePercent": self.max_increase_percent,
            "encoding": self.encoding,
            "versions": dict(self.versions),
            "problems": list(self.problems),
            "lenses": [_lens_dict(x) for x in self.lenses],
            "serverLenses": [
                {
                    "server": x.server,
                    "wireTokens": x.wire_tokens,
                    "clients": [_lens_dict(c) for c in x.clients],
                }
                for x in self.server_lenses
            ],
            "verdict": {
                "passed": self.verdict.passed,
                "failures": [_reason_dict(r) for r in self.verdict.failures],
                "warnings": [_reason_dict(r) for r in self.verdict.warnings],
                "knownUnknowns": [_reason_dict(r) for r in self.verdict.known_unknowns],
            },
            "configs": [
                {
                    "source": c.source,
                    "client": c.client,
                    "baseTotal": c.base_total,
                    "headTotal": c.head_total,
                    "delta": c.delta,
                    "exact": c.exact,
                    "problem": c.problem,
                    "change": c.change,
                    "deferral": {"mode": c.deferral, "mechanism": c.deferral_mechanism}
                    if c.deferral is not None
                    else None,
                    "servers": [
                        {
                            "name": s.name,
                            "kind": str(s.kind),
                            "baseTokens": s.base_tokens,
                            "headTokens": s.head_tokens,
                            "baseStatus": s.base_status,
                            "headStatus": s.head_status,
                            "delta": s.delta,
                            "note": s.note,
                            "line": s.line,
                            "knownUnknown": s.known_unknown,
                            "toolChanges": [
                                {
                                    "tool": t.tool,
                                    "baseTokens": t.base_tokens,
                                    "headTokens": t.head_tokens,
                                }
                                for t in s.tool_changes
                            ],
                        }
                        for s in c.servers
                    ],
                }
                for c in self.configs
            ],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Outcome:
        """Strictly rebuild an outcome; raises InputError on any shape problem."""
        try:
            return _outcome_from(data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"saved outcome is malformed: {exc}") from None


def _lens_dict(x: SessionLensView) -> dict[str, Any]:
    return {"client": x.client, "label": x.label, "modelView": model_view_to_json(x.view)}


def _reason_dict(r: FindingView) -> dict[str, Any]:
    return {
        "gate": r.gate,
        "source": r.source,
        "text": r.text,
        "server": r.server,
        "line": r.line,
        "lensKind": r.lens_kind,
        "tool": r.tool,
    }


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError(f"expected a string, got {type(v).__name__}")
    return v


def _opt_str(v: Any) -> str | None:
    return None if v is None else _str(v)


def _opt_int(v: Any) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"expected an integer, got {type(v).__name__}")
    return v


def _opt_num(v: Any) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise TypeError("expected a number")
    return float(v)


def _status(v: Any) -> ServerStatus | None:
    text = _opt_str(v)
    if text is None:
        return None
    found = server_status(text)
    if found is None:
        raise ValueError(f"unknown server status {text!r}")
    return found


def _deferral(v: Any) -> DeferralMode | None:
    if v is None:
        return None
    if not isinstance(v, Mapping):
        raise TypeError("deferral must be an object or null")
    return DeferralMode(_str(v["mode"]))


def _change(v: Any) -> ConfigChange | None:
    text = _opt_str(v)
    if text is None:
        return None
    try:
        return ConfigChange(text)
    except ValueError:
        raise ValueError(f"unknown config change {text!r}") from None


def _reason_from(d: Mapping[str, Any]) -> FindingView:
    kind = _opt_str(d.get("lensKind"))
    return FindingView(
        gate=Gate(_str(d["gate"])),
        source=_str(d["source"]),
        text=_str(d["text"]),
        server=_opt_str(d.get("server")),
        line=_opt_int(d.get("line")),
        lens_kind=FindingKind(kind) if kind is not None else None,
        tool=_opt_str(d.get("tool")),
    )


def _scalar(v: Any) -> int | str | None:
    return v if isinstance(v, str) else _opt_int(v)


def _lens_finding_from(d: Mapping[str, Any]) -> LensFinding:
    return LensFinding(
        kind=FindingKind(_str(d["kind"])),
        effect=Effect(_str(d["effect"])),
        server=_opt_str(d["server"]),
        tool=_opt_str(d["tool"]),
        limit=_scalar(d["limit"]),
        actual=_scalar(d["actual"]),
        rule=_str(d["rule"]),
        fix=_str(d["fix"]),
        source=_str(d["source"]),
        date=_str(d["date"]),
        confidence=Confidence(_str(d["confidence"])),
    )


def _lens_from(d: Mapping[str, Any]) -> SessionLensView:
    v = d["modelView"]
    shape = _opt_str(v["apiShape"])
    upfront, deferred = _opt_int(v["upfrontTokens"]), _opt_int(v["deferredTokens"])
    if upfront is None or deferred is None:
        raise TypeError("a model view's token counts must be integers")
    return SessionLensView(
        client=ClientName(_str(d["client"])),
        label=_str(d["label"]),
        view=ModelView(
            api_shape=ApiShape(shape) if shape is not None else None,
            upfront_tokens=upfront,
            deferred_tokens=deferred,
            regime=_str(v["regime"]),
            rules_on_record=v["rulesOnRecord"] is True,
            findings=tuple(_lens_finding_from(f) for f in v["findings"]),
        ),
    )


def _outcome_from(data: Any) -> Outcome:
    if not isinstance(data, Mapping) or data.get("schema") != SCHEMA:
        raise ValueError(f"not a {SCHEMA} document")
    configs = []
    for c in data["configs"]:
        servers = []
        for s in c["servers"]:
            tools = tuple(
                ToolChange(
                    server=_str(s["name"]),
                    tool=_str(t["tool"]),
                    base_tokens=_opt_int(t.get("baseTokens")),
                    head_tokens=_opt_int(t.get("headTokens")),
                )
                for t in s.get("toolChanges", [])
            )
            servers.append(
                ServerDiffView(
                    name=_str(s["name"]),
                    kind=DiffKind(s["kind"]),
                    base_tokens=_opt_int(s.get("baseTokens")),
                    head_tokens=_opt_int(s.get("headTokens")),
                    delta=_opt_int(s.get("delta")),
                    base_status=_status(s.get("baseStatus")),
                    head_status=_status(s.get("headStatus")),
                    note=_opt_str(s.get("note")),
                    line=_opt_int(s.get("line")),
                    tool_changes=tools,
                    known_unknown=s.get("knownUnknown", False) is True,
                )
            )
        configs.append(
            ConfigDiffView(
                source=_str(c["source"]),
                client=ClientName(_str(c["client"])),
                base_total=_opt_int(c.get("baseTotal")),
                head_total=_opt_int(c.get("headTotal")),
                delta=_opt_int(c.get("delta")),
                exact=bool(c.get("exact", True)),
                servers=tuple(servers),
                problem=_opt_str(c.get("problem")),
                change=_change(c.get("change")),
                deferral=_deferral(c.get("deferral")),
                deferral_mechanism=_opt_str((c.get("deferral") or {}).get("mechanism")),
            )
        )
    verdict = data["verdict"]
    versions = data.get("versions") or {}
    return Outcome(
        configs=tuple(configs),
        verdict=VerdictView(
            failures=tuple(_reason_from(r) for r in verdict["failures"]),
            warnings=tuple(_reason_from(r) for r in verdict["warnings"]),
            known_unknowns=tuple(_reason_from(r) for r in verdict.get("knownUnknowns", [])),
        ),
        compared=bool(data["compared"]),
        head_sha=_str(data["headSha"]),
        base_sha=_opt_str(data.get("baseSha")),
        pr_number=_opt_int(data.get("prNumber")),
        repository=_str(data.get("repository", "")),
        run_url=_opt_str(data.get("runUrl")),
        budget=_opt_int(data.get("budget")),
        budget_used=_opt_int(data.get("budgetUsed")),
        budget_judged=_opt_str(data.get("budgetJudged")),
        max_increase=_opt_int(data.get("maxIncrease")),
        max_increase_percent=_opt_num(data.get("maxIncreasePercent")),
        encoding=_str(data.get("encoding", "o200k_base")),
        versions={_str(k): _str(v) for k, v in versions.items()},
        problems=tuple(_str(p) for p in data.get("problems", [])),
        lenses=tuple(_lens_from(x) for x in data.get("lenses", [])),
        server_lenses=tuple(
            ServerLensView(
                server=_str(x["server"]),
                wire_tokens=_opt_int(x["wireTokens"]) or 0,
                clients=tuple(_lens_from(c) for c in x["clients"]),
            )
            for x in data.get("serverLenses", [])
        ),
    )
