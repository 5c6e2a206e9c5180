"""Re-derive a published measurement from its raw capture and list every disagreement.

A measurement whose status carries no number (a timeout, a startup failure...) has nothing to
re-derive: when it is recorded consistently (no total, count, hash, tools or capture) it is a
recorded failure, not a disagreement; a failure record that claims numbers is a disagreement.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from mcpcost.core.badge import render_badge
from mcpcost.core.measure import measure_tools, session_start
from mcpcost.core.model import ENCODING, METHODOLOGY_VERSION
from mcpcost.core.status import Status
from mcpcost.core.tokenizer import Tokenizer, get_tokenizer


class VerifyVerdict(StrEnum):
    """What verifying one measurement found."""

    AGREES = "agrees"  # re-derived: capture, hash and counts agree
    RECORDED = "recorded"  # a failure status recorded consistently: nothing to re-derive
    DISAGREES = "disagrees"  # at least one problem


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """Outcome of re-deriving one measurement (``ok``: it re-derived and everything agrees)."""

    ok: bool
    server_name: str | None
    rederived_tokens: int | None
    rederived_sha: str | None
    problems: tuple[str, ...]
    badge: str | None
    methodology_version: str | None = None
    encoding: str | None = None
    recorded_status: Status | None = None  # the failure status of a consistent failure record

    @property
    def verdict(self) -> VerifyVerdict:
        if self.ok:
            return VerifyVerdict.AGREES
        if self.recorded_status is not None and not self.problems:
            return VerifyVerdict.RECORDED
        return VerifyVerdict.DISAGREES


def _num(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def verify_document(doc: Any, tokenizer: Tokenizer | None = None) -> VerifyResult:
    """Check total, hash, tool count, methodology, encoding and per-tool numbers against the
    capture. Never raises on odd input: every oddity is a problem line."""
    tk = tokenizer or get_tokenizer()
    if not isinstance(doc, dict):
        return VerifyResult(False, None, None, None, ("measurement is not a JSON object",), None)
    name = doc.get("serverName") if isinstance(doc.get("serverName"), str) else None
    methodology = doc.get("methodologyVersion")
    encoding = doc.get("encoding")
    problems: list[str] = []
    if methodology != METHODOLOGY_VERSION:
        problems.append(
            f"methodology mismatch: this build re-derives methodology {METHODOLOGY_VERSION}, "
            f"the file says {methodology!r}"
        )
    if encoding != ENCODING:
        problems.append(
            f"encoding mismatch: re-derived with {ENCODING}, the file says {encoding!r}"
        )
    capture = doc.get("rawToolsCapture")
    status = _status(doc.get("status"))
    if status is None:
        problems.append(f"unknown status {_show(doc.get('status'))}")
    elif not status.has_number:
        problems.extend(_failure_record_problems(doc, status))
        return VerifyResult(
            False,
            name,
            None,
            None,
            tuple(problems),
            None,
            methodology,
            encoding,
            recorded_status=status,
        )
    if capture is None:
        problems.append("no rawToolsCapture in measurement")
        return VerifyResult(False, name, None, None, tuple(problems), None, methodology, encoding)
    if not isinstance(capture, list):
        problems.append("rawToolsCapture is not an array")
        return VerifyResult(False, name, None, None, tuple(problems), None, methodology, encoding)
    derived = measure_tools(capture, tk)
    tokens, sha = derived.total_tokens, derived.canonical.sha256
    stored_total = _num(doc.get("totalTokens"))
    if stored_total != tokens:
        problems.append(
            f"token mismatch: re-derived {tokens}, stored {_show(doc.get('totalTokens'))}"
        )
    if doc.get("canonicalSha256") != sha:
        problems.append(
            f"sha mismatch: re-derived {sha}, stored {_show(doc.get('canonicalSha256'))}"
        )
    if _num(doc.get("toolCount")) != derived.tool_count:
        problems.append(
            f"toolCount mismatch: capture has {derived.tool_count}, stored {_show(doc.get('toolCount'))}"
        )
    problems.extend(_tool_problems(doc.get("tools"), derived.tools))
    problems.extend(_session_start_problems(doc, capture, tk))
    ok = not problems
    badge = render_badge(tokens) if ok else None
    return VerifyResult(ok, name, tokens, sha, tuple(problems), badge, methodology, encoding)


def _status(value: Any) -> Status | None:
    try:
        return Status(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _failure_record_problems(doc: dict[str, Any], status: Status) -> list[str]:
    """A failure status with numbers or a capture beside it contradicts itself."""
    claimed = [
        key
        for key in ("totalTokens", "toolCount", "canonicalSha256", "rawToolsCapture")
        if doc.get(key) is not None
    ]
    if doc.get("tools") not in (None, []):
        claimed.append("tools")
    if not claimed:
        return []
    return [f"status {status} carries no number, but the file records {', '.join(claimed)}"]


def _show(value: Any) -> str:
    return "nothing" if value is None else str(value)


def _tool_problems(stored: Any, derived: tuple[Any, ...]) -> list[str]:
    if stored is None:
        return []
    if not isinstance(stored, list):
        return ["tools is not an array"]
    if not stored:
        return [] if not derived else ["tools is empty but the capture has tools"]
    if len(stored) != len(derived):
        return [f"tools has {len(stored)} entries, the capture has {len(derived)}"]
    problems: list[str] = []
    for i, (row, cost) in enumerate(zip(stored, derived, strict=True)):
        if not isinstance(row, dict):
            problems.append(f"tools[{i}] is not an object")
            continue
        label = f"tool {row.get('name', cost.name)!s}"
        if row.get("name", cost.name) != cost.name:
            problems.append(
                f"tools[{i}] name mismatch: capture has {cost.name}, stored {row.get('name')}"
            )
        for key, value in (
            ("tokens", cost.tokens),
            ("descriptionTokens", cost.description_tokens),
            ("inputSchemaTokens", cost.input_schema_tokens),
        ):
            if key in row and _num(row[key]) != value:
                problems.append(f"{label} {key} mismatch: re-derived {value}, stored {row[key]}")
        fields = row.get("fieldTokens")
        if isinstance(fields, dict) and cost.field_tokens is not None:
            for key, value in cost.field_tokens.items():
                if key in fields and _num(fields[key]) != value:
                    problems.append(
                        f"{label} fieldTokens.{key} mismatch: re-derived {value}, stored {fields[key]}"
                    )
    return problems


def _session_start_problems(doc: dict[str, Any], capture: list[Any], tk: Tokenizer) -> list[str]:
    block = doc.get("sessionStart")
    if not isinstance(block, dict) or "serverInstructions" not in doc:
        return []
    derived = session_start(capture, doc.get("serverInstructions"), captured=True, tokenizer=tk)
    problems = []
    for key, value in (
        ("toolNameTokens", derived.tool_name_tokens),
        ("instructionsTokens", derived.instructions_tokens),
        ("total", derived.total),
    ):
        if key in block and _num(block[key]) != value:
            problems.append(f"sessionStart.{key} mismatch: re-derived {value}, stored {block[key]}")
    return problems
