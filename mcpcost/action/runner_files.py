"""The runner's file commands and workflow commands: outputs, job summary, annotations, masks.

Everything here that formats is pure; the two ``append_*`` functions are the only writers and take
the file path (``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``) as a value.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from mcpcost.core.redact import maskable

SUMMARY_LIMIT = 1024 * 1024  # GitHub drops a step summary larger than 1 MiB
ANNOTATIONS_PER_LEVEL = 10  # GitHub shows at most 10 warnings and 10 errors per step
_TRUNCATED_NOTE = "\n\n> Summary truncated to stay under GitHub's 1 MiB limit per step.\n"


class RunStatus(StrEnum):
    """The step's ``status`` output."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"  # bad input, a refused event, or an artifact that could not be read
    SKIPPED = "skipped"  # the event asks for nothing


def escape_data(text: str) -> str:
    """A workflow-command message: ``%``, CR and LF escaped so nothing can start a new command."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow-command property value (file=, title=...): also ``:`` and ``,`` escaped."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: str, **properties: str | int | None) -> str:
    """``::command k=v,...::message`` with every part escaped; None properties are left out."""
    props = ",".join(
        f"{key}={escape_property(str(value))}"
        for key, value in properties.items()
        if value is not None
    )
    head = f"::{command} {props}" if props else f"::{command}"
    return f"{head}::{escape_data(message)}"


def mask_commands(values: Iterable[str]) -> list[str]:
    """``::add-mask::`` lines for every secret value, each line by itself; a line too short or
    too common to mask (``core.redact.maskable``: ``1``, ``true``...) is left out, since the
    runner would then mask that text in every log line."""
    out: list[str] = []
    for value in dict.fromkeys(values):
        for part in value.splitlines() or [value]:
            if maskable(part):
                out.append(f"::add-mask::{escape_data(part)}")
    return out


def random_delimiter() -> str:
    return f"ghadelimiter_{secrets.token_hex(16)}"


def render_outputs(
    outputs: Mapping[str, str], new_delimiter: Callable[[], str] = random_delimiter
) -> str:
    """``GITHUB_OUTPUT`` text: every value as a heredoc with a delimiter it does not contain."""
    chunks: list[str] = []
    for name, value in outputs.items():
        delimiter = new_delimiter()
        while delimiter in value or delimiter in name:
            delimiter = new_delimiter()
        chunks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(chunks)


def fit_summary(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """The summary cut (with a note) so its UTF-8 size stays within ``limit`` bytes."""
    if len(text.encode("utf-8")) <= limit:
        return text
    room = limit - len(_TRUNCATED_NOTE.encode("utf-8"))
    cut = text.encode("utf-8")[:room].decode("utf-8", errors="ignore")
    cut = cut[: cut.rfind("\n") + 1] if "\n" in cut else cut
    return cut + _TRUNCATED_NOTE


class AnnotationLevel(StrEnum):
    """The workflow command an annotation is written as."""

    NOTICE = "notice"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True, slots=True, kw_only=True)
class Annotation:
    """One ``::warning`` / ``::error`` on a line of a file (repo-relative path)."""

    level: AnnotationLevel
    message: str
    file: str | None = None
    line: int | None = None
    title: str | None = None

    def render(self) -> str:
        return workflow_command(
            self.level, self.message, file=self.file, line=self.line, title=self.title
        )


def capped_annotations(
    annotations: Iterable[Annotation], per_level: int = ANNOTATIONS_PER_LEVEL
) -> tuple[list[Annotation], int]:
    """The annotations GitHub will show (at most ``per_level`` of each level) and how many over."""
    kept: list[Annotation] = []
    counts: dict[AnnotationLevel, int] = {}
    dropped = 0
    for annotation in annotations:
        seen = counts.get(annotation.level, 0)
        if seen >= per_level:
            dropped += 1
            continue
        counts[annotation.level] = seen + 1
        kept.append(annotation)
    return kept, dropped


def append_text(path: str, text: str) -> None:
    """Append to a runner file (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY); the runner owns the file."""
    with open(path, "a", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
