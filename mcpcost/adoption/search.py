"""``mcpcost adoption``'s reading of GitHub: the code searches and file reads of
``badge-sightings/v1`` (the rules are ``mcpcost.adoption.sightings``), through the one GitHub client.

Bounded everywhere: at most ``Budget.pages`` pages of 100 per query, ``Budget.files`` files in
all, each answer read within ``Budget.page_limits``/``Budget.file_limits``. Code search allows
an authenticated caller about ten calls a minute, so consecutive searches are ``Budget.pause_s``
apart (the client also waits out any rate limit GitHub reports). Any failure is recorded in the
reading, which then refuses a count; nothing here raises for what GitHub answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mcpcost.adoption.sightings import (
    Examined,
    Project,
    QueryResult,
    Reading,
    classify,
    finish,
    is_projects_own,
    queries,
)
from mcpcost.runtime.github import CodeHit, GitHubClient, GitHubError
from mcpcost.runtime.http_body import ReadLimits

PER_PAGE = 100

PAGE_LIMITS = ReadLimits(max_bytes=8 << 20, seconds=60.0)
FILE_LIMITS = ReadLimits(max_bytes=4 << 20, seconds=60.0)


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    pages: int = 3  # per query
    files: int = 300  # fetched, over all queries
    pause_s: float = 7.0  # between two searches
    page_limits: ReadLimits = PAGE_LIMITS
    file_limits: ReadLimits = FILE_LIMITS

    def describe(self) -> str:
        return (
            f"at most {self.pages} pages of {PER_PAGE} results per query, {self.files} files "
            f"in all, each file at most {self.file_limits.max_bytes >> 20} MiB as GitHub "
            f"serves it, {self.pause_s:g} s between searches"
        )


def _search(
    gh: GitHubClient,
    query: str,
    budget: Budget,
    pause: Callable[[], None],
) -> tuple[QueryResult, list[CodeHit]]:
    hits: list[CodeHit] = []
    total = 0
    incomplete = False
    for page in range(1, budget.pages + 1):
        pause()
        try:
            found = gh.search_code(query, page=page, per_page=PER_PAGE, limits=budget.page_limits)
        except GitHubError as exc:
            return QueryResult(query=query, read=len(hits), error=str(exc)), hits
        total = found.total
        incomplete = incomplete or found.incomplete
        hits.extend(found.hits)
        if len(found.hits) < PER_PAGE or len(hits) >= total:
            break
    cut = incomplete or len(hits) < total
    return QueryResult(query=query, hits=total, read=len(hits), truncated=cut), hits


def read_adoption(
    gh: GitHubClient,
    project: Project,
    day: str,
    previous: Reading | None,
    *,
    budget: Budget | None = None,
    sleep: Callable[[float], None],
) -> Reading:
    """Run every query, read every file found outside the project's owner, classify them."""
    budget = budget or Budget()
    searched = 0

    def pause() -> None:
        nonlocal searched
        if searched:
            sleep(budget.pause_s)
        searched += 1

    results: list[QueryResult] = []
    candidates: dict[tuple[str, str], CodeHit] = {}
    for query in queries(project):
        result, hits = _search(gh, query, budget, pause)
        results.append(result)
        for hit in hits:
            if not is_projects_own(hit.repo, project):
                candidates.setdefault((hit.repo, hit.path), hit)
    examined: list[Examined] = []
    for n, hit in enumerate(candidates.values()):
        if n >= budget.files:
            examined.append(
                Examined(
                    repo=hit.repo,
                    path=hit.path,
                    url=hit.html_url,
                    error=f"not read: over the limit of {budget.files} files",
                )
            )
            continue
        try:
            text = gh.blob_text(hit.repo, hit.sha, limits=budget.file_limits)
        except GitHubError as exc:
            examined.append(
                Examined(repo=hit.repo, path=hit.path, url=hit.html_url, error=str(exc))
            )
            continue
        examined.append(
            Examined(
                repo=hit.repo,
                path=hit.path,
                url=hit.html_url,
                kind=classify(text, project),
            )
        )
    return finish(project, day, results, examined, previous, budget.describe())
