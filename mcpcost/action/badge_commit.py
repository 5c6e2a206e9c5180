"""Commit the shields endpoint JSON to the badge branch through the REST API (no git push).

The branch is created as an orphan (blob, tree, parentless commit, ref) when it does not exist;
a file update that loses a race (409, or 422 on a stale sha) is re-read and retried.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mcpcost.runtime.github import GitHubClient, GitHubError

ATTEMPTS = 5


class BadgeAction(StrEnum):
    CREATED_BRANCH = "created-branch"
    UPDATED = "updated"
    UNCHANGED = "unchanged"


@dataclass(frozen=True, slots=True, kw_only=True)
class BadgeCommit:
    action: BadgeAction
    commit_sha: str | None = None
    attempts: int = 1


def commit_badge(
    gh: GitHubClient, repo: str, *, branch: str, path: str, content: str, message: str
) -> BadgeCommit:
    last: GitHubError | None = None
    for attempt in range(1, ATTEMPTS + 1):
        try:
            if not gh.branch_exists(repo, branch):
                sha = gh.create_orphan_branch(repo, branch, path, content, message)
                return BadgeCommit(
                    action=BadgeAction.CREATED_BRANCH, commit_sha=sha, attempts=attempt
                )
            current = gh.file_on_branch(repo, branch, path)
            if current is not None and current[1] == content:
                return BadgeCommit(action=BadgeAction.UNCHANGED, attempts=attempt)
            file_sha = current[0] if current is not None else None
            commit_sha = gh.put_file(repo, branch, path, content, message, file_sha)
            return BadgeCommit(action=BadgeAction.UPDATED, commit_sha=commit_sha, attempts=attempt)
        except GitHubError as exc:
            if exc.status not in (409, 422) or attempt == ATTEMPTS:
                raise
            last = exc
    raise last or GitHubError("PUT", path, 0, "gave up")  # pragma: no cover
