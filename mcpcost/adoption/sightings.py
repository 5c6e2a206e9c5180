"""Adoption of the badge, method ``badge-sightings/v1`` (pure: values in, values out).

How many repositories outside this project display its badge, read from GitHub code search:

* four queries (``queries``): the raw badge URL prefix percent-encoded (as the README snippet
  writes it inside ``img.shields.io/endpoint?url=``) and plain, the Pages site the badge links
  to, and the bare project name;
* every file a query finds, outside the project owner's repositories, is fetched and classified
  (``classify``) after its percent-escapes are undone one at a time (``decode_loose``): a
  ``badge`` when a shields.io endpoint image there reads a badge from this project's ``badges/``
  or is linked back to this project's repository or Pages site; a ``mention`` when the file only
  names the project; nothing when the search index was stale;
* sightings are kept across readings by (repository, path): the first day seen stays, the last
  day seen moves, a vanished one stays on record (``fold``);
* the count is the number of distinct repositories with a ``badge`` sighting seen on the
  reading's day, and it is refused (``None``, with the reason) when a query failed or was cut
  short or a file could not be read (``resolve``), so a zero always means the search ran whole
  and found none.

``results/badge-adoption.json`` keeps the state between readings (``reading_json`` /
``parse_reading``); ``adoption_page`` renders ``docs/adoption.md``. The GitHub calls are in
``mcpcost.adoption.search``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal
from urllib.parse import quote

from mcpcost.core.jsonvalue import JSONValue, parse_json, stringify_pretty
from mcpcost.errors import InputError
from mcpcost.escaping.markdown import code_span, md_text

METHOD = "badge-sightings/v1"
SightingKind = Literal["badge", "mention"]
KINDS: tuple[SightingKind, ...] = ("badge", "mention")
LINK_WINDOW = 400  # characters between a badge image and the link around it
CELL_MAX = 200

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_ENDPOINT = re.compile(r"(?i)img\.shields\.io/endpoint\?url=([^\s)\"'<>\]&]+)")
_MD_LINK_AFTER = re.compile(r"^[^\n]*?\)\]\(\s*<?([^\s)>]+)")
_HTML_ANCHOR = re.compile(r"(?is)<a\s[^>]*?href\s*=\s*[\"']?([^\"'\s>]+)")
_ANCHOR_CLOSE = re.compile(r"(?i)</a\s*>")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


@dataclass(frozen=True, slots=True)
class Project:
    """The project whose badge is looked for: its repository and the branch the badges are on."""

    repo: str  # owner/name
    branch: str = "main"

    @property
    def owner(self) -> str:
        return self.repo.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.repo.split("/", 1)[1]

    @property
    def raw_badges(self) -> str:
        """Where ``badges/<name>.json`` is served from, without the scheme."""
        return f"raw.githubusercontent.com/{self.repo}/{self.branch}/badges"

    @property
    def pages(self) -> str:
        """The project's Pages site, without the scheme."""
        return f"{self.owner}.github.io/{self.name}"


PROJECT = Project("mcp-context-cost/mcp-context-cost")


def queries(project: Project) -> tuple[str, ...]:
    """The code-search queries, widest net last: encoded and plain badge URL, Pages, name."""
    plain = project.raw_badges
    return (
        f'"{quote(plain, safe="")}"',
        f'"{plain}"',
        f'"{project.pages}"',
        f'"{project.name}"',
    )


def is_projects_own(repo: str, project: Project) -> bool:
    """A repository of the project's owner (its own badges are not adoption)."""
    return repo.split("/", 1)[0].lower() == project.owner.lower()


def decode_loose(text: str) -> str:
    """Every well-formed ``%XX`` escape undone, one at a time; malformed ones left as written.

    Each escape becomes the one character of that code point, so a multi-byte sequence stays
    unreadable rather than failing the whole text; the URLs this looks for are ASCII.
    """
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def _points_home(target: str, project: Project) -> bool:
    low = target.lower()
    return f"github.com/{project.repo.lower()}" in low or project.pages.lower() in low


def _serves_from_badges(url: str, project: Project) -> bool:
    """The endpoint's JSON comes from this project's ``badges/`` (any branch)."""
    low = url.lower()
    prefix = f"raw.githubusercontent.com/{project.repo.lower()}/"
    at = low.find(prefix)
    return at >= 0 and "/badges/" in low[at + len(prefix) :]


def _link_of(text: str, start: int, end: int) -> str | None:
    """The link target around the image at ``text[start:end]``: a Markdown ``[![..](img)](t)``
    after it, else an ``<a href=t>`` before it that is not yet closed."""
    after = _MD_LINK_AFTER.search(text[end : end + LINK_WINDOW])
    if after is not None:
        return after.group(1)
    before = text[max(0, start - LINK_WINDOW) : start]
    anchors = list(_HTML_ANCHOR.finditer(before))
    if anchors and _ANCHOR_CLOSE.search(before, anchors[-1].end()) is None:
        return anchors[-1].group(1)
    return None


def classify(text: str, project: Project) -> SightingKind | None:
    """``badge``, ``mention`` or None (the file no longer says anything about the project)."""
    decoded = decode_loose(text)
    for m in _ENDPOINT.finditer(decoded):
        if _serves_from_badges(m.group(1), project):
            return "badge"
        target = _link_of(decoded, m.start(), m.end())
        if target is not None and _points_home(target, project):
            return "badge"
    return "mention" if project.name.lower() in decoded.lower() else None


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryResult:
    """One query as it ran: GitHub's hit count, the items read, and whether it ran whole."""

    query: str
    hits: int | None = None  # GitHub's total_count; None when the query failed
    read: int = 0
    truncated: bool = False  # GitHub said its results were incomplete, or the page cap cut them
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Examined:
    """A file a query found, and what it was found to be."""

    repo: str
    path: str
    url: str  # the file's page on GitHub
    kind: SightingKind | None = None
    error: str | None = None  # why it could not be read


@dataclass(frozen=True, slots=True, kw_only=True)
class Sighting:
    repo: str
    path: str
    url: str
    kind: SightingKind
    first_seen: str
    last_seen: str


@dataclass(frozen=True, slots=True)
class Resolved:
    """A completed count and its day."""

    date: str
    repos: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Reading:
    """One attempt at the count. ``ran`` False: the search could not run (``unresolved`` says
    why) and nothing of this day is counted."""

    project: Project
    date: str
    ran: bool
    queries: tuple[QueryResult, ...] = ()
    examined: tuple[Examined, ...] = ()
    sightings: tuple[Sighting, ...] = ()
    count: int | None = None
    unresolved: str | None = None
    last_resolved: Resolved | None = None
    limits: str = ""

    @property
    def badge_repos(self) -> tuple[str, ...]:
        """The repositories counted: a badge sighting seen on this reading's day."""
        if not self.ran:
            return ()
        found = {s.repo for s in self.sightings if s.kind == "badge" and s.last_seen == self.date}
        return tuple(sorted(found, key=str.lower))


def resolve(results: Sequence[QueryResult], examined: Sequence[Examined]) -> str | None:
    """Why no count can be established from this reading, or None when it can."""
    if not results:
        return "no query ran"
    failed = [r.query for r in results if r.error is not None]
    if failed:
        return f"{len(failed)} of {len(results)} queries failed"
    cut = [r.query for r in results if r.truncated]
    if cut:
        return f"{len(cut)} of {len(results)} queries were cut short (more hits than read)"
    unread = [e for e in examined if e.error is not None]
    if unread:
        return f"{len(unread)} of {len(examined)} files could not be read"
    return None


def fold(previous: Iterable[Sighting], examined: Iterable[Examined], day: str) -> list[Sighting]:
    """Previous sightings updated with today's: first day kept, last day moved, none dropped."""
    kept = {(s.repo, s.path): s for s in previous}
    for e in examined:
        if e.kind is None or e.error is not None:
            continue
        key = (e.repo, e.path)
        before = kept.get(key)
        kept[key] = Sighting(
            repo=e.repo,
            path=e.path,
            url=e.url,
            kind=e.kind,
            first_seen=before.first_seen if before is not None else day,
            last_seen=day,
        )
    return sorted(kept.values(), key=lambda s: (s.repo.lower(), s.path))


def finish(
    project: Project,
    day: str,
    results: Sequence[QueryResult],
    examined: Sequence[Examined],
    previous: Reading | None,
    limits: str,
) -> Reading:
    """The reading made from a search that ran (whole or not)."""
    sightings = fold(previous.sightings if previous else (), examined, day)
    why = resolve(results, examined)
    draft = Reading(
        project=project,
        date=day,
        ran=True,
        queries=tuple(results),
        examined=tuple(examined),
        sightings=tuple(sightings),
        limits=limits,
    )
    if why is not None:
        return _with(draft, unresolved=why, last_resolved=_last(previous))
    count = len(draft.badge_repos)
    return _with(draft, count=count, last_resolved=Resolved(day, count))


def not_run(project: Project, day: str, why: str, previous: Reading | None) -> Reading:
    """The reading of a day the search could not run: no count, the last one carried over."""
    return Reading(
        project=project,
        date=day,
        ran=False,
        sightings=previous.sightings if previous else (),
        unresolved=why,
        last_resolved=_last(previous),
    )


def _last(previous: Reading | None) -> Resolved | None:
    return previous.last_resolved if previous is not None else None


def _with(reading: Reading, **changes: Any) -> Reading:
    return replace(reading, **changes)


# --- the state file -------------------------------------------------------------------------


def reading_json(reading: Reading) -> str:
    """``results/badge-adoption.json``: the reading, keys in a fixed order, pretty, newline."""
    doc: dict[str, JSONValue] = {
        "method": METHOD,
        "project": reading.project.repo,
        "branch": reading.project.branch,
        "date": reading.date,
        "ran": reading.ran,
        "thirdPartyRepos": reading.count,
        "unresolved": reading.unresolved,
        "lastResolved": (
            {"date": reading.last_resolved.date, "thirdPartyRepos": reading.last_resolved.repos}
            if reading.last_resolved
            else None
        ),
        "limits": reading.limits,
        "queries": [
            {
                "query": q.query,
                "hits": q.hits,
                "read": q.read,
                "truncated": q.truncated,
                "error": q.error,
            }
            for q in reading.queries
        ],
        "examined": [
            {"repo": e.repo, "path": e.path, "url": e.url, "kind": e.kind, "error": e.error}
            for e in reading.examined
        ],
        "sightings": [
            {
                "repo": s.repo,
                "path": s.path,
                "url": s.url,
                "kind": s.kind,
                "firstSeenAt": s.first_seen,
                "lastSeenAt": s.last_seen,
            }
            for s in reading.sightings
        ],
    }
    return stringify_pretty(doc) + "\n"


class StateError(InputError):
    """The state file is not a reading of this method."""


def _str(obj: dict[str, Any], key: str, *, optional: bool = False) -> Any:
    value = obj.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise StateError(f"{key!r} is not a string")
    return value


def _int(obj: dict[str, Any], key: str, *, optional: bool = False) -> Any:
    value = obj.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise StateError(f"{key!r} is not a count")
    return value


def _kind(value: Any, *, optional: bool) -> SightingKind | None:
    if value is None and optional:
        return None
    for kind in KINDS:
        if value == kind:
            return kind
    raise StateError(f"unknown sighting kind {value!r}")


def _day(obj: dict[str, Any], key: str) -> str:
    value = _str(obj, key)
    if not _DAY.match(value):
        raise StateError(f"{key!r} is not a YYYY-MM-DD day")
    return str(value)


def _objects(doc: dict[str, Any], key: str) -> list[dict[str, Any]]:
    items = doc.get(key, [])
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise StateError(f"{key!r} is not a list of objects")
    return items


def parse_reading(data: str | bytes) -> Reading:
    """A reading from its state file; ``StateError`` (or the JSON parser's error) when it is
    not one."""
    doc = parse_json(data)
    if not isinstance(doc, dict) or doc.get("method") != METHOD:
        raise StateError(f"not a {METHOD} reading")
    repo = _str(doc, "project")
    if not _REPO.match(repo):
        raise StateError("'project' is not owner/name")
    last = doc.get("lastResolved")
    if last is not None and not isinstance(last, dict):
        raise StateError("'lastResolved' is not an object")
    return Reading(
        project=Project(repo, _str(doc, "branch")),
        date=_day(doc, "date"),
        ran=doc.get("ran") is True,
        count=_int(doc, "thirdPartyRepos", optional=True),
        unresolved=_str(doc, "unresolved", optional=True),
        last_resolved=(
            Resolved(_day(last, "date"), _int(last, "thirdPartyRepos")) if last else None
        ),
        limits=_str(doc, "limits", optional=True) or "",
        queries=tuple(
            QueryResult(
                query=_str(q, "query"),
                hits=_int(q, "hits", optional=True),
                read=_int(q, "read"),
                truncated=q.get("truncated") is True,
                error=_str(q, "error", optional=True),
            )
            for q in _objects(doc, "queries")
        ),
        examined=tuple(
            Examined(
                repo=_str(e, "repo"),
                path=_str(e, "path"),
                url=_str(e, "url"),
                kind=_kind(e.get("kind"), optional=True),
                error=_str(e, "error", optional=True),
            )
            for e in _objects(doc, "examined")
        ),
        sightings=tuple(
            Sighting(
                repo=_str(s, "repo"),
                path=_str(s, "path"),
                url=_str(s, "url"),
                kind=_kind(s.get("kind"), optional=False) or "mention",
                first_seen=_day(s, "firstSeenAt"),
                last_seen=_day(s, "lastSeenAt"),
            )
            for s in _objects(doc, "sightings")
        ),
    )


# --- the page -------------------------------------------------------------------------------


def _cell(value: object) -> str:
    return md_text(value, CELL_MAX)


def _headline(r: Reading) -> list[str]:
    if not r.ran:
        lines = [
            f"**Not measured on {r.date}**: the search could not run ({_cell(r.unresolved)}). "
            "This is no reading, and in particular not a zero."
        ]
    elif r.count is None:
        lines = [
            f"**No count on {r.date}**: the search ran but {_cell(r.unresolved)}, so a count "
            "would be a guess. The files it did read are listed below."
        ]
    else:
        repos = "repository" if r.count == 1 else "repositories"
        lines = [
            f"**{r.count} {repos} outside this project displayed the badge on {r.date}** "
            f"(method `{METHOD}`)."
        ]
        if r.count == 0:
            lines.append(
                "Zero is a reading: every query ran whole and every file it found was read; "
                "none of them displays the badge."
            )
    if r.last_resolved is not None and (r.count is None or r.last_resolved.date != r.date):
        lines.append(
            f"The last completed reading, on {r.last_resolved.date}, "
            f"counted {r.last_resolved.repos}."
        )
    elif r.last_resolved is None and r.count is None:
        lines.append("No reading has completed yet.")
    return lines


def adoption_page(r: Reading) -> str:
    """``docs/adoption.md`` for a reading (every third-party string escaped by ``md_text`` or
    ``code_span``)."""
    p = r.project
    out = ["# Badge adoption", ""]
    for line in _headline(r):
        out += [line, ""]
    out += [
        "## What counts",
        "",
        f"A repository counts when one of its files, outside `{p.owner}`'s own repositories, "
        "shows a shields.io endpoint badge whose JSON is served from this project's "
        f"`badges/` (`{p.raw_badges}/...`), or whose link leads back to this project "
        f"(`github.com/{p.repo}` or `{p.pages}`). A file that only names the project is a "
        "mention and does not count. Percent-escapes are undone before reading, as the README "
        "snippet encodes the badge URL. Each repository counts once however many files show "
        "the badge; sightings are kept by repository and path, with the first and last day "
        "each was seen, and only those seen on the reading's day count.",
        "",
    ]
    if r.ran:
        out += ["## Queries", "", "| query | hits | read | complete |", "|---|---:|---:|---|"]
        for q in r.queries:
            hits = "failed: " + _cell(q.error) if q.error is not None else str(q.hits)
            done = "no" if q.truncated or q.error is not None else "yes"
            out.append(f"| {code_span(q.query, CELL_MAX)} | {hits} | {q.read} | {done} |")
        out.append("")
        out += [f"## Files examined ({len(r.examined)})", ""]
        if r.examined:
            out += ["| repository | path | found |", "|---|---|---|"]
            for e in sorted(r.examined, key=lambda x: (x.repo.lower(), x.path)):
                found = (
                    "unreadable: " + _cell(e.error)
                    if e.error is not None
                    else (e.kind or "nothing (the index was stale)")
                )
                out.append(
                    f"| {code_span(e.repo, CELL_MAX)} | {code_span(e.path, CELL_MAX)} | {found} |"
                )
        else:
            out.append("The queries found no file outside this project.")
        out.append("")
    else:
        out += ["## Queries it would run", ""]
        out += [f"- {code_span(q, CELL_MAX)}" for q in queries(p)]
        out.append("")
    earlier = [s for s in r.sightings if s.last_seen != r.date or not r.ran]
    if earlier:
        out += [
            "## Sightings not seen on this reading",
            "",
            "| repository | path | kind | first seen | last seen |",
            "|---|---|---|---|---|",
        ]
        for s in earlier:
            out.append(
                f"| {code_span(s.repo, CELL_MAX)} | {code_span(s.path, CELL_MAX)} | {s.kind} "
                f"| {s.first_seen} | {s.last_seen} |"
            )
        out.append("")
    out += [
        "## What it cannot see",
        "",
        "GitHub code search covers the default branch of public repositories it has indexed; "
        "forks, private repositories, sites outside GitHub and files it has not indexed yet are "
        "invisible to it, and its index can lag behind a repository by days. The count is a floor "
        "of what is visible, never an estimate of the rest.",
        "",
    ]
    if r.limits:
        out += [f"Limits of this reading: {md_text(r.limits)}.", ""]
    out += [
        "---",
        f"Method `{METHOD}`; regenerated by `mcpcost adoption`; state in "
        "`results/badge-adoption.json`.",
    ]
    return "\n".join(out) + "\n"
