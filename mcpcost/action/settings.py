"""The Action's inputs, read from ``INPUT_*`` exactly as the runner sets them, each one validated.

The runner upper-cases an input's name and keeps its hyphens (``max-increase`` arrives as
``INPUT_MAX-INCREASE``); the underscore spelling is accepted too, for ``docker run -e`` users.
An empty value means "not given". Every bad value raises ``SettingsError`` with one line naming
the input.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from mcpcost.audit.gates import Gate
from mcpcost.configs.clients import KNOWN_CLIENTS
from mcpcost.core.badge import DEFAULT_LABEL
from mcpcost.errors import UsageError

# every kind but known-unknown (an unknown the pull request did not cause is reported, not failed)
# and limits (what a client drops, rejects or cuts is a warning until a workflow asks to fail)
DEFAULT_FAIL_ON = frozenset(Gate) - {Gate.KNOWN_UNKNOWN, Gate.LIMITS}
_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_REF_BAD = re.compile(r"(\.\.|[\x00-\x20~^:?*\[\\]|@\{|//|^/|/$|\.lock$|^-|\.$)")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


class SettingsError(UsageError):
    """An input with a value the Action cannot use."""


class CommentMode(StrEnum):
    AUTO = "auto"  # when something changed or the gate failed (or an old comment exists)
    ALWAYS = "always"
    ON_FAILURE = "on-failure"
    NEVER = "never"


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Every input, parsed. ``github_token`` is kept out of ``repr``."""

    config: tuple[str, ...] = ()  # paths or globs, relative to working_directory; () = discover
    working_directory: str = "."
    budget: int | None = None
    budget_full: bool = False  # judge the budget on every definition, not what loads up front
    max_increase: int | None = None
    max_increase_percent: float | None = None
    fail_on: frozenset[Gate] = DEFAULT_FAIL_ON
    comment: CommentMode = CommentMode.AUTO
    comment_key: str = "default"
    summary: bool = True
    annotations: bool = True
    badge: bool = False
    badge_branch: str = "badges"
    badge_path: str = "mcp-context-cost.json"
    badge_label: str = DEFAULT_LABEL
    timeout: float = 60.0
    concurrency: int = 2
    github_token: str = field(default="", repr=False)
    allow_pull_request_target: bool = False
    dry_run: bool = False
    output_dir: str = ".mcp-context-cost"
    artifact_name: str = "mcp-context-cost"
    artifact_path: str | None = None
    sarif: str | None = None  # where to write the SARIF log, relative to the workspace
    clients: tuple[str, ...] = ()  # whose client lens is reported and gated; () = every client

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        """Settings from the runner's environment; unset or empty inputs keep their defaults."""
        raw = _inputs(environ)
        values: dict[str, object] = {}
        for name, text in raw.items():
            attr = name.replace("-", "_")
            cleaner = _CLEANERS.get(attr)
            if cleaner is None:
                continue  # an input this version does not know: ignore, as the runner would
            values[attr] = cleaner(name, text)
        return cls(**values)  # type: ignore[arg-type]


def _inputs(environ: Mapping[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in environ.items():
        if not key.startswith("INPUT_") or value.strip() == "":
            continue
        name = key[len("INPUT_") :].lower().replace("_", "-")
        if name not in out or "-" in key:  # the runner's hyphenated spelling wins
            out[name] = value.strip() if name != "config" else value
    return out


def _bad(name: str, text: str, expected: str) -> SettingsError:
    shown = text if len(text) <= 60 else text[:57] + "..."
    return SettingsError(f"input {name}: {shown!r} is not {expected}")


def clean_bool(name: str, text: str) -> bool:
    low = text.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise _bad(name, text, "true or false")


def clean_tokens(name: str, text: str) -> int:
    cleaned = text.strip().replace(",", "").replace("_", "")
    if not cleaned.isdigit():
        raise _bad(name, text, "a whole number of tokens (0 or more)")
    return int(cleaned)


def clean_percent(name: str, text: str) -> float:
    cleaned = text.strip().removesuffix("%")
    try:
        value = float(cleaned)
    except ValueError:
        raise _bad(name, text, "a percentage such as 10 or 2.5") from None
    if not value >= 0 or value == float("inf"):
        raise _bad(name, text, "a percentage of 0 or more")
    return value


def clean_seconds(name: str, text: str) -> float:
    try:
        value = float(text.strip().removesuffix("s"))
    except ValueError:
        raise _bad(name, text, "a number of seconds") from None
    if not 0 < value <= 3600:
        raise _bad(name, text, "between 0 and 3600 seconds")
    return value


def clean_concurrency(name: str, text: str) -> int:
    if not text.strip().isdigit() or not 1 <= int(text) <= 32:
        raise _bad(name, text, "a whole number from 1 to 32")
    return int(text)


def clean_fail_on(name: str, text: str) -> frozenset[Gate]:
    words = [w.strip().lower() for w in re.split(r"[,\s]+", text) if w.strip()]
    if words == ["none"]:
        return frozenset()
    known = {str(g) for g in Gate}
    if not words or any(w not in known for w in words):
        raise _bad(name, text, "none or a comma-separated list of " + ", ".join(Gate))
    return frozenset(Gate(w) for w in words)


def clean_clients(name: str, text: str) -> tuple[str, ...]:
    """``all`` or a comma-separated list of client names (``mcpcost audit --client`` names)."""

    words = [w.strip().lower() for w in re.split(r"[,\s]+", text) if w.strip()]
    if words == ["all"]:
        return ()
    if not words or any(w not in KNOWN_CLIENTS for w in words):
        raise _bad(name, text, "all or a comma-separated list of " + ", ".join(KNOWN_CLIENTS))
    return tuple(dict.fromkeys(words))


def clean_comment(name: str, text: str) -> CommentMode:
    try:
        return CommentMode(text.strip().lower())
    except ValueError:
        raise _bad(name, text, "one of auto, always, on-failure, never") from None


def clean_key(name: str, text: str) -> str:
    if not _KEY.match(text):
        raise _bad(name, text, "1-64 letters, digits, '.', '_' or '-'")
    return text


def clean_branch(name: str, text: str) -> str:
    if _REF_BAD.search(text) or len(text) > 200:
        raise _bad(name, text, "a valid branch name")
    return text


def clean_relative_path(name: str, text: str) -> str:
    path = text.strip()
    parts = path.replace("\\", "/").split("/")
    if path.startswith("/") or ".." in parts or "\x00" in path or path in ("", "."):
        raise _bad(name, text, "a relative path inside the repository")
    return path


def clean_directory(name: str, text: str) -> str:
    path = text.strip()
    if path in ("", "."):
        return "."
    return clean_relative_path(name, path)


def clean_config(name: str, text: str) -> tuple[str, ...]:
    lines = [
        ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")
    ]
    return tuple(clean_relative_path(name, ln) for ln in lines)


def clean_text(name: str, text: str) -> str:
    if "\n" in text or len(text) > 100:
        raise _bad(name, text, "one line of at most 100 characters")
    return text


def clean_token(name: str, text: str) -> str:
    if any(c.isspace() for c in text):
        raise SettingsError(f"input {name}: the token contains whitespace")
    return text


def clean_optional_path(name: str, text: str) -> str:
    if "\x00" in text:
        raise _bad(name, text, "a path")
    return text.strip()


_CLEANERS = {
    "config": clean_config,
    "working_directory": clean_directory,
    "budget": clean_tokens,
    "budget_full": clean_bool,
    "max_increase": clean_tokens,
    "max_increase_percent": clean_percent,
    "fail_on": clean_fail_on,
    "comment": clean_comment,
    "comment_key": clean_key,
    "summary": clean_bool,
    "annotations": clean_bool,
    "badge": clean_bool,
    "badge_branch": clean_branch,
    "badge_path": clean_relative_path,
    "badge_label": clean_text,
    "timeout": clean_seconds,
    "concurrency": clean_concurrency,
    "github_token": clean_token,
    "allow_pull_request_target": clean_bool,
    "dry_run": clean_bool,
    "output_dir": clean_relative_path,
    "artifact_name": clean_key,
    "artifact_path": clean_optional_path,
    "sarif": clean_relative_path,
    "clients": clean_clients,
}
