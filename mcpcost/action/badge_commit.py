"""Commit the shields endpoint JSON to the badge branch through the REST API (no git push).

The branch is created as an orphan (blob, tree, parentless commit, ref) when it does not exist;
a file update that loses a race (409, or 422 on a stale sha) is re-read and retried.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from urllib.parse import quote

from mcpcost.action.github import GitHubClient, GitHubError

ATTEMPTS = 5


@dataclass(frozen=True, kw_only=True)
class BadgeCommit:
    action: str  # created-branch | updated | unchanged
    commit_sha: str | None = None
    attempts: int = 1


def _ref_exists(gh: GitHubClient, repo: str, branch: str) -> bool:
    try:
        gh.request("GET", f"/repos/{repo}/git/ref/heads/{quote(branch)}")
    except GitHubError as exc:
        if exc.status == 404:
            return False
        raise
    return True


def _create_orphan(
    gh: GitHubClient, repo: str, branch: str, path: str, content: str, message: str
) -> str:
    blob = gh.request(
        "POST", f"/repos/{repo}/git/blobs", json={"content": content, "encoding": "utf-8"}
    )
    tree = gh.request(
        "POST",
        f"/repos/{repo}/git/trees",
        json={"tree": [{"path": path, "mode": "100644", "type": "blob", "sha": blob.data["sha"]}]},
    )
    commit = gh.request(
        "POST",
        f"/repos/{repo}/git/commits",
        json={"message": message, "tree": tree.data["sha"], "parents": []},
    )
    sha = str(commit.data["sha"])
    gh.request("POST", f"/repos/{repo}/git/refs", json={"ref": f"refs/heads/{branch}", "sha": sha})
    return sha


def commit_badge(
    gh: GitHubClient, repo: str, *, branch: str, path: str, content: str, message: str
) -> BadgeCommit:
    last: GitHubError | None = None
    for attempt in range(1, ATTEMPTS + 1):
        try:
            if not _ref_exists(gh, repo, branch):
                sha = _create_orphan(gh, repo, branch, path, content, message)
                return BadgeCommit(action="created-branch", commit_sha=sha, attempts=attempt)
            file_sha: str | None = None
            try:
                current = gh.request(
                    "GET", f"/repos/{repo}/contents/{quote(path)}", params={"ref": branch}
                ).data
                file_sha = current["sha"]
                old = base64.b64decode(current.get("content") or "").decode("utf-8", "replace")
                if old == content:
                    return BadgeCommit(action="unchanged", attempts=attempt)
            except GitHubError as exc:
                if exc.status != 404:
                    raise
            body: dict[str, str] = {
                "message": message,
                "content": base64.b64encode(content.encode("utf-8")).decode("ascii"),
                "branch": branch,
            }
            if file_sha is not None:
                body["sha"] = file_sha
            r = gh.request("PUT", f"/repos/{repo}/contents/{quote(path)}", json=body)
            commit_sha = (r.data or {}).get("commit", {}).get("sha")
            return BadgeCommit(action="updated", commit_sha=commit_sha, attempts=attempt)
        except GitHubError as exc:
            if exc.status not in (409, 422) or attempt == ATTEMPTS:
                raise
            last = exc
    raise last or GitHubError("PUT", path, 0, "gave up")  # pragma: no cover
