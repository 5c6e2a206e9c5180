"""Re-derive a published measurement from its raw capture and list every disagreement."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpcost.core.badge import render_badge
from mcpcost.core.measure import measure_tools, session_start
from mcpcost.core.model import ENCODING, METHODOLOGY_VERSION
from mcpcost.core.tokenizer import Tokenizer, get_tokenizer


@dataclass(frozen=True)
class VerifyResult:
    """Outcome of re-deriving one measurement."""

    ok: bool
    server_name: str | None
    rederived_tokens: int | None
    rederived_sha: str | None
    problems: tuple[str, ...]
    badge: str | None
    methodology_version: str | None = None
    encoding: str | None = None


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
    for key, value in (("toolNameTokens", derived.tool_name_tokens),
                       ("instructionsTokens", derived.instructions_tokens),
                       ("total", derived.total)):  # fmt: skip
        if key in block and _num(block[key]) != value:
            problems.append(f"sessionStart.{key} mismatch: re-derived {value}, stored {block[key]}")
    return problems
