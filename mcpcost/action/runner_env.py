"""What the runner tells a step (its environment and event payload), and the step's log."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from mcpcost.action.runner_files import Annotation, workflow_command
from mcpcost.errors import InputError
from mcpcost.escaping.cilog import neutralize_log_text, neutralize_workflow_commands
from mcpcost.escaping.terminal import terminal_line, terminal_text


@dataclass(frozen=True, slots=True, kw_only=True)
class Runner:
    """What the runner tells a step through its environment."""

    event_name: str
    payload: Mapping[str, Any]
    repository: str
    sha: str
    ref: str
    workspace: str
    output_path: str | None
    summary_path: str | None
    api_url: str
    server_url: str
    run_id: str | None
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Runner:
        payload: Any = {}
        event_path = environ.get("GITHUB_EVENT_PATH")
        if event_path:
            try:
                with open(event_path, encoding="utf-8") as handle:
                    payload = json.load(handle)
            except (OSError, ValueError) as exc:
                raise InputError(f"cannot read the event payload {event_path}: {exc}") from None
        return cls(
            event_name=environ.get("GITHUB_EVENT_NAME", ""),
            payload=payload if isinstance(payload, dict) else {},
            repository=environ.get("GITHUB_REPOSITORY", ""),
            sha=environ.get("GITHUB_SHA", ""),
            ref=environ.get("GITHUB_REF", ""),
            workspace=environ.get("GITHUB_WORKSPACE") or os.getcwd(),
            output_path=environ.get("GITHUB_OUTPUT") or None,
            summary_path=environ.get("GITHUB_STEP_SUMMARY") or None,
            api_url=environ.get("GITHUB_API_URL") or "https://api.github.com",
            server_url=environ.get("GITHUB_SERVER_URL") or "https://github.com",
            run_id=environ.get("GITHUB_RUN_ID") or None,
            environ=environ,
        )

    @property
    def run_url(self) -> str | None:
        if not self.run_id or not self.repository:
            return None
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"


class Log:
    """The step's log: the only place the Action prints.

    ``info`` takes any text (untrusted parts included) and prints one line that is neither a
    terminal control sequence nor a workflow command (``mcpcost.escaping.terminal`` and
    ``mcpcost.escaping.cilog``). ``command`` prints one of our own workflow commands, its message
    escaped the same way before the command's own escaping. ``line`` is for a command already
    built by ``runner_files`` (masks, annotations) and refuses anything that spans lines.
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def line(self, command: str) -> None:
        if "\n" in command or "\r" in command:
            raise ValueError("a workflow command is one line")
        self.out.write(command + "\n")
        self.out.flush()

    def info(self, text: str) -> None:
        self.line(neutralize_workflow_commands(terminal_line(text)))

    def command(self, name: str, text: str, **props: str | int | None) -> None:
        message = neutralize_log_text(terminal_text(text))
        safe = {k: terminal_line(v) if isinstance(v, str) else v for k, v in props.items()}
        self.line(workflow_command(name, message, **safe))

    def annotate(self, note: Annotation) -> None:
        """One ``::warning``/``::error`` annotation; its message and title escaped as ``command``."""
        self.command(note.level, note.message, file=note.file, line=note.line, title=note.title)
