"""A small GitHub REST client over an injected ``requests.Session``: the one GitHub client.

It knows the API base URL (``GITHUB_API_URL``, so GHES works), follows ``Link`` pagination, and
waits out rate limits: ``retry-after`` first, then ``x-ratelimit-reset`` when nothing remains,
else a bounded exponential backoff. Errors become ``GitHubError`` with the status code. Every REST
call the Action makes is a method here, and so is the code search ``mcpcost adoption`` makes
(its reads bounded in size and time through ``runtime.http_body``).
"""

from __future__ import annotations

import base64
import json as jsonlib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import requests

from mcpcost.errors import McpcostError
from mcpcost.runtime.http_body import ACCEPT_ENCODING, BodyReadFailed, ReadLimits, read_body

_LINK_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')
MAX_WAIT_S = 120.0
MAX_TOTAL_WAIT_S = 300.0


class GitHubError(McpcostError):
    """A GitHub API call that failed."""

    def __init__(self, method: str, path: str, status: int, message: str) -> None:
        super().__init__(f"GitHub API {method} {path}: HTTP {status}: {message}")
        self.status = status
        self.api_message = message


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    data: Any
    headers: Mapping[str, str]
    content: bytes = b""


@dataclass(frozen=True, slots=True)
class CodeHit:
    """One file a code search found: its repository (owner/name), path, blob sha and page."""

    repo: str
    path: str
    sha: str
    html_url: str


@dataclass(frozen=True, slots=True)
class CodeSearchPage:
    total: int  # GitHub's total_count for the query
    incomplete: bool  # GitHub's incomplete_results: the search timed out on its side
    hits: tuple[CodeHit, ...]


@dataclass(slots=True)
class GitHubClient:
    session: requests.Session
    api_url: str
    token: str = field(repr=False)
    sleep: Callable[[float], None]
    clock: Callable[[], float]
    max_attempts: int = 4
    timeout_s: float = 30.0
    max_total_wait_s: float = MAX_TOTAL_WAIT_S  # all sleeps of one request together

    def request(
        self,
        method: str,
        path_or_url: str,
        *,
        params: Mapping[str, str | int] | None = None,
        json: Any = None,
        accept: str = "application/vnd.github+json",
        ok: tuple[int, ...] = (200, 201, 204),
        limits: ReadLimits | None = None,
    ) -> Response:
        """One call, retried as the module says; with ``limits`` its body is read within them
        (a ``GitHubError`` with status 0 when it is larger or slower)."""
        url = path_or_url if "://" in path_or_url else self.api_url.rstrip("/") + path_or_url
        headers = {"Accept": accept, "X-GitHub-Api-Version": "2022-11-28"}
        if limits is not None:
            headers["Accept-Encoding"] = ACCEPT_ENCODING
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        waited = 0.0
        for attempt in range(1, self.max_attempts + 1):
            try:
                r = self.session.request(
                    method,
                    url,
                    params=params,
                    json=json,
                    headers=headers,
                    timeout=self.timeout_s,
                    stream=limits is not None,
                )
                content = r.content if limits is None else _bounded(r, limits, method, url)
            except requests.RequestException as exc:
                wait = min(2.0**attempt, MAX_WAIT_S)
                if attempt == self.max_attempts or waited + wait > self.max_total_wait_s:
                    raise GitHubError(method, _path(url), 0, type(exc).__name__) from None
                self.sleep(wait)
                waited += wait
                continue
            retry = self._retry_wait(r, content, attempt)
            if (
                retry is not None
                and attempt < self.max_attempts
                and waited + retry <= self.max_total_wait_s
            ):
                self.sleep(retry)
                waited += retry
                continue
            if r.status_code not in ok:
                raise GitHubError(method, _path(url), r.status_code, _message(r, content))
            data: Any = None
            if content and "json" in r.headers.get("content-type", ""):
                data = jsonlib.loads(content)
            return Response(r.status_code, data, dict(r.headers), content)
        raise AssertionError("unreachable")  # pragma: no cover

    def _retry_wait(self, r: requests.Response, content: bytes, attempt: int) -> float | None:
        """Seconds to wait before retrying, or None when this response is final."""
        status = r.status_code
        limited = status == 429 or (
            status == 403
            and (
                "retry-after" in r.headers
                or r.headers.get("x-ratelimit-remaining") == "0"
                or "rate limit" in _message(r, content).lower()
            )
        )
        if not limited and status not in (500, 502, 503, 504):
            return None
        retry_after = r.headers.get("retry-after", "")
        if retry_after.strip().isdigit():
            return min(float(retry_after), MAX_WAIT_S)
        reset = r.headers.get("x-ratelimit-reset", "")
        if r.headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
            return min(max(float(reset) - self.clock(), 1.0), MAX_WAIT_S)
        base = 60.0 if limited else 1.0
        return min(base * 2.0 ** (attempt - 1), MAX_WAIT_S)

    def paginate(
        self, path: str, *, params: Mapping[str, str | int] | None = None
    ) -> Iterator[Any]:
        """Every item of a list endpoint, 100 per page, following ``Link: rel="next"``."""
        url: str | None = path
        query: Mapping[str, str | int] | None = {**(params or {}), "per_page": 100}
        while url is not None:
            r = self.request("GET", url, params=query)
            yield from r.data or []
            match = _LINK_NEXT.search(r.headers.get("link", r.headers.get("Link", "")))
            url, query = (match.group(1), None) if match else (None, None)

    # --- operations -------------------------------------------------------------------------

    def viewer_login(self) -> str | None:
        """The token's login; None for an installation token (GET /user answers 403 to those)."""
        try:
            data = self.request("GET", "/user").data
        except GitHubError:
            return None
        login = data.get("login") if isinstance(data, dict) else None
        return login if isinstance(login, str) else None

    def issue_comments(self, repo: str, number: int) -> Iterator[dict[str, Any]]:
        yield from self.paginate(f"/repos/{repo}/issues/{number}/comments")

    def create_comment(self, repo: str, number: int, body: str) -> dict[str, Any]:
        r = self.request("POST", f"/repos/{repo}/issues/{number}/comments", json={"body": body})
        return dict(r.data)

    def update_comment(self, repo: str, comment_id: int, body: str) -> dict[str, Any]:
        r = self.request(
            "PATCH", f"/repos/{repo}/issues/comments/{comment_id}", json={"body": body}
        )
        return dict(r.data)

    def run_artifact_id(self, repo: str, run_id: int, name: str) -> int | None:
        """The id of the unexpired artifact ``name`` a workflow run saved, or None."""
        data = self.request(
            "GET",
            f"/repos/{repo}/actions/runs/{run_id}/artifacts",
            params={"name": name, "per_page": 100},
        ).data
        listed = data.get("artifacts", []) if isinstance(data, dict) else []
        found = [a for a in listed if a.get("name") == name and not a.get("expired")]
        return int(found[0]["id"]) if found else None

    def artifact_zip(self, repo: str, artifact_id: int) -> bytes:
        """An artifact's archive, as GitHub serves it (a zip file)."""
        return self.request("GET", f"/repos/{repo}/actions/artifacts/{artifact_id}/zip").content

    def pull_head(self, repo: str, number: int) -> tuple[str, str] | None:
        """The head commit and the head repository's ``owner/name`` of pull request ``number``
        (None when GitHub has no such pull request or does not say)."""
        try:
            data = self.request("GET", f"/repos/{repo}/pulls/{number}").data
        except GitHubError as exc:
            if exc.status == 404:
                return None
            raise
        head = data.get("head") if isinstance(data, dict) else None
        if not isinstance(head, dict) or not isinstance(head.get("sha"), str):
            return None
        head_repo = head.get("repo")
        name = head_repo.get("full_name") if isinstance(head_repo, dict) else None
        return head["sha"], name if isinstance(name, str) else ""

    def branch_exists(self, repo: str, branch: str) -> bool:
        try:
            self.request("GET", f"/repos/{repo}/git/ref/heads/{quote(branch)}")
        except GitHubError as exc:
            if exc.status == 404:
                return False
            raise
        return True

    def create_orphan_branch(
        self, repo: str, branch: str, path: str, content: str, message: str
    ) -> str:
        """A new branch whose one parentless commit holds one file; returns the commit sha."""
        blob = self.request(
            "POST", f"/repos/{repo}/git/blobs", json={"content": content, "encoding": "utf-8"}
        )
        entry = {"path": path, "mode": "100644", "type": "blob", "sha": blob.data["sha"]}
        tree = self.request("POST", f"/repos/{repo}/git/trees", json={"tree": [entry]})
        commit = self.request(
            "POST",
            f"/repos/{repo}/git/commits",
            json={"message": message, "tree": tree.data["sha"], "parents": []},
        )
        sha = str(commit.data["sha"])
        self.request(
            "POST", f"/repos/{repo}/git/refs", json={"ref": f"refs/heads/{branch}", "sha": sha}
        )
        return sha

    def file_on_branch(self, repo: str, branch: str, path: str) -> tuple[str, str] | None:
        """(blob sha, text) of ``path`` on ``branch``; None when there is no such file."""
        try:
            data = self.request(
                "GET", f"/repos/{repo}/contents/{quote(path)}", params={"ref": branch}
            ).data
        except GitHubError as exc:
            if exc.status == 404:
                return None
            raise
        text = base64.b64decode(data.get("content") or "").decode("utf-8", "replace")
        return str(data["sha"]), text

    def put_file(
        self, repo: str, branch: str, path: str, content: str, message: str, sha: str | None
    ) -> str | None:
        """Create or update ``path`` on ``branch`` (``sha``: the blob replaced); the commit sha."""
        body: dict[str, str] = {
            "message": message,
            "content": base64.b64encode(content.encode("utf-8")).decode("ascii"),
            "branch": branch,
        }
        if sha is not None:
            body["sha"] = sha
        data = self.request("PUT", f"/repos/{repo}/contents/{quote(path)}", json=body).data
        commit = (data or {}).get("commit") or {}
        found = commit.get("sha")
        return found if isinstance(found, str) else None

    def search_code(
        self, query: str, *, page: int, per_page: int = 100, limits: ReadLimits
    ) -> CodeSearchPage:
        """One page of ``GET /search/code`` (text matches not asked for). Items lacking a
        repository, path or blob sha are skipped: what GitHub says is input like any other."""
        data = self.request(
            "GET",
            "/search/code",
            params={"q": query, "per_page": per_page, "page": page},
            limits=limits,
        ).data
        if not isinstance(data, dict) or not isinstance(data.get("items"), list):
            raise GitHubError("GET", "/search/code", 200, "the answer has no items list")
        total = data.get("total_count")
        hits = []
        for item in data["items"]:
            repo = item.get("repository") if isinstance(item, dict) else None
            full = repo.get("full_name") if isinstance(repo, dict) else None
            path, sha = (item.get("path"), item.get("sha")) if isinstance(item, dict) else (0, 0)
            page_url = item.get("html_url") if isinstance(item, dict) else None
            if not (isinstance(full, str) and isinstance(path, str) and isinstance(sha, str)):
                continue
            hits.append(CodeHit(full, path, sha, page_url if isinstance(page_url, str) else ""))
        return CodeSearchPage(
            total=total if isinstance(total, int) and not isinstance(total, bool) else len(hits),
            incomplete=data.get("incomplete_results") is True,
            hits=tuple(hits),
        )

    def blob_text(self, repo: str, sha: str, *, limits: ReadLimits) -> str:
        """The text of blob ``sha`` of ``repo`` (``GET .../git/blobs/{sha}``, base64), decoded
        as UTF-8 with undecodable bytes replaced; ``limits`` bound the answer."""
        owner, _, name = repo.partition("/")
        path = (
            f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}/git/blobs/{quote(sha, safe='')}"
        )
        data = self.request("GET", path, limits=limits).data
        content = data.get("content") if isinstance(data, dict) else None
        if not isinstance(content, str) or data.get("encoding") != "base64":
            raise GitHubError("GET", path, 200, "the answer has no base64 content")
        try:
            raw = base64.b64decode(content, validate=False)
        except ValueError:
            raise GitHubError("GET", path, 200, "the content is not base64") from None
        return raw.decode("utf-8", "replace")


def _path(url: str) -> str:
    return re.sub(r"^[a-z]+://[^/]+", "", url).split("?")[0]


def _bounded(r: requests.Response, limits: ReadLimits, method: str, url: str) -> bytes:
    """The body of a streamed response, read within ``limits``; the connection is released."""
    try:
        return read_body(r, limits)
    except BodyReadFailed as exc:
        raise GitHubError(method, _path(url), 0, str(exc)) from None
    finally:
        r.close()


def _message(r: requests.Response, content: bytes) -> str:
    try:
        data = jsonlib.loads(content)
    except ValueError:
        return r.reason or "no message"
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])
    return r.reason or "no message"
