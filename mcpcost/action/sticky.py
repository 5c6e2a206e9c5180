"""One comment per pull request and ``comment-key``: found by its hidden marker, among the bot's
own comments, through every page; updated in place, and left alone when nothing changed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from mcpcost.runtime.github import GitHubClient

ACTIONS_BOT = "github-actions[bot]"


class CommentAction(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    SKIPPED = "skipped"  # no comment yet, and the comment mode does not create one


@dataclass(frozen=True, slots=True, kw_only=True)
class CommentResult:
    action: CommentAction
    comment_id: int | None = None
    url: str | None = None


def find_ours(
    comments: Iterable[dict[str, Any]], marker: str, login: str | None
) -> dict[str, Any] | None:
    """The first comment by our identity whose body starts with the marker."""
    allowed = {login, ACTIONS_BOT} if login else {ACTIONS_BOT}
    for comment in comments:
        user = comment.get("user") or {}
        body = comment.get("body") or ""
        if user.get("login") in allowed and body.lstrip().startswith(marker):
            return comment
    return None


def upsert_comment(
    gh: GitHubClient, repo: str, number: int, marker: str, body: str, *, create: bool
) -> CommentResult:
    """Update our comment, or create one when ``create``; unchanged bodies are not re-sent."""
    existing = find_ours(gh.issue_comments(repo, number), marker, gh.viewer_login())
    if existing is not None:
        cid = int(existing["id"])
        if existing.get("body") == body:
            return CommentResult(
                action=CommentAction.UNCHANGED, comment_id=cid, url=existing.get("html_url")
            )
        data = gh.update_comment(repo, cid, body)
        return CommentResult(action=CommentAction.UPDATED, comment_id=cid, url=data.get("html_url"))
    if not create:
        return CommentResult(action=CommentAction.SKIPPED)
    data = gh.create_comment(repo, number, body)
    return CommentResult(
        action=CommentAction.CREATED, comment_id=int(data["id"]), url=data.get("html_url")
    )
