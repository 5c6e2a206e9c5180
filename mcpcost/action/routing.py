"""Which activity an event asks for: a pure decision, tested as a truth table.

=====================  ==========================================================
event                  activity
=====================  ==========================================================
pull_request           compare base and head of the PR, gate, comment
pull_request_target    refused (head-side servers would run with a write token)
                       unless allow-pull-request-target: then as pull_request
push / schedule /      measure head, summary; badge when asked for and on the
workflow_dispatch      default branch
workflow_run           post the comment a first, untrusted run saved (no PR code)
anything else          skipped, with the reason
=====================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Activity(StrEnum):
    COMPARE_PR = "compare-pr"
    MEASURE_HEAD = "measure-head"
    POST_COMMENT = "post-comment"
    REFUSE = "refuse"
    SKIP = "skip"


@dataclass(frozen=True, slots=True, kw_only=True)
class Route:
    activity: Activity
    reason: str
    commit_badge: bool = False


PRT_REFUSAL = (
    "refusing to measure under pull_request_target: measuring starts the servers the pull "
    "request's MCP config names, which would run the PR author's code with this workflow's "
    "write token and secrets. Use the pull_request + workflow_run pair (examples/workflows), or "
    "set allow-pull-request-target: true if every head config is trusted."
)


def route(
    event_name: str,
    payload: Mapping[str, Any],
    *,
    ref: str,
    badge: bool,
    allow_pull_request_target: bool,
) -> Route:
    """The activity for one run of the Action."""
    if event_name == "pull_request":
        return Route(activity=Activity.COMPARE_PR, reason="pull request: base against head")
    if event_name == "pull_request_target":
        if allow_pull_request_target:
            return Route(
                activity=Activity.COMPARE_PR,
                reason="pull_request_target, allowed by allow-pull-request-target",
            )
        return Route(activity=Activity.REFUSE, reason=PRT_REFUSAL)
    if event_name == "workflow_run":
        return Route(activity=Activity.POST_COMMENT, reason="workflow_run: post a saved comment")
    if event_name in ("push", "schedule", "workflow_dispatch"):
        default_branch = _default_branch(payload)
        on_default = default_branch is not None and ref == f"refs/heads/{default_branch}"
        if badge and not on_default:
            reason = f"{event_name}: measure head (badge only on the default branch)"
        else:
            reason = f"{event_name}: measure head"
        return Route(
            activity=Activity.MEASURE_HEAD, reason=reason, commit_badge=badge and on_default
        )
    return Route(activity=Activity.SKIP, reason=f"nothing to do for the {event_name!r} event")


def _default_branch(payload: Mapping[str, Any]) -> str | None:
    repo = payload.get("repository")
    if isinstance(repo, Mapping):
        branch = repo.get("default_branch") or repo.get("master_branch")
        if isinstance(branch, str) and branch:
            return branch
    return None
