"""The official MCP registry as a sweep source: remotes and packages, every entry with a status.

``GET {base}/v0.1/servers?limit=100&version=latest`` is paged through ``metadata.nextCursor``
(``next_cursor`` in old responses; empty or missing ends). An entry whose
``_meta["io.modelcontextprotocol.registry/official"].status`` is ``deleted`` is not swept at
all (the registry lists deleted entries only when asked, or when ``updated_since`` is given,
which turns ``include_deleted`` on): it is counted, never recorded, so a sweep that is shown
them publishes what one that is not shown them publishes. One that is otherwise not ``active``
(deprecated) is recorded ``inactive`` and never launched. Of an active entry, every
``remotes[]`` item over ``streamable-http`` or ``sse`` is measured, unless its URL holds
``{variables}``: those stand for the user's own tenant or host, so such a remote is
``needs-config`` (a default is an example, not the user's endpoint); and so is its first
launchable ``packages[]`` item (``sweep/registry_packages.py`` builds the launch). What cannot
be launched is recorded with its status and the reason (``needs-config``, ``other``) by the
pre-check, which writes the record without starting anything.

Each entry keeps its own rows: two entries that name the same endpoint are each measured (or
each recorded, one of them behind a required header), since each is an entry a user can pick.
The registry's ``statusMessage`` and ``statusChangedAt`` and the chosen package's
``postInstallInstructions`` travel with the entry's record (``registryEntry``, the dataset's
``source``), shortened and with their whitespace collapsed: they are the registry's text.

A remote that declares a required header is an auth wall before anything is sent; one that
answers ``initialize`` with 401 and OAuth protected-resource metadata is one too. Both are
recorded as ``remote-auth-wall``; nothing ever tries to log in.

The registry's pages are read within ``MAX_PAGE_BYTES`` and ``PAGE_TIMEOUT_S`` each
(``page_reader``). Every URL an entry names is the world's, not the user's: the auth-wall probe
and the measurements go through a session and transports that keep to an address policy
(``runtime.addresses``; the CLI's ``--allow-private-addresses``), and what such a server answers
with an error status is never published.
"""

from __future__ import annotations

import datetime as dt
import re
import shlex
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import urlencode

import requests

from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.model import Isolation, Measurement
from mcpcost.core.names import name_problem
from mcpcost.core.plural import counted
from mcpcost.core.redact import redact_url
from mcpcost.core.spec import TransportName
from mcpcost.core.status import Status
from mcpcost.errors import InputError
from mcpcost.runtime.addresses import PUBLIC_ONLY, AddressPolicy
from mcpcost.runtime.clock import iso_utc
from mcpcost.runtime.http_body import BodyReadFailed, ReadLimits, read_body
from mcpcost.sweep.catalog import Catalog, CatalogEntry
from mcpcost.sweep.registry_packages import (
    PackageLaunch,
    RegistryType,
    choose_package,
    plan_package,
)
from mcpcost.sweep.runner import Job, MeasureJob
from mcpcost.transports.http_answers import names_resource_metadata, probe_oauth_metadata
from mcpcost.transports.network_failures import classify_request_failure
from mcpcost.transports.session import CLIENT_INFO, LEGACY_VERSION

OFFICIAL_META = "io.modelcontextprotocol.registry/official"
PAGE_LIMIT = 100
MAX_PAGES = 1000
MAX_PAGE_BYTES = 16 << 20  # one page of at most PAGE_LIMIT entries, decoded
PAGE_TIMEOUT_S = 30.0  # one page, connection to last byte
# The registry's remote types and the transports that speak them.
TRANSPORTS = {"streamable-http": TransportName.HTTP, "sse": TransportName.SSE}
_TEMPLATE_VAR = re.compile(r"\{[^}]*\}")
DELETED = "deleted"  # the registry status of an entry that is not swept
DETAIL_CHARS = 500  # registry text kept in a record, after its whitespace is collapsed
MAX_INSTRUCTIONS = 8  # postInstallInstructions kept per entry
_SLUG_BAD = re.compile(r"[^a-z0-9._-]+")

GetJSON = Callable[[str], Any]


@dataclass(frozen=True, slots=True)
class RegistryRemote:
    """One measurable remote endpoint of an active registry entry."""

    slug: str
    server_name: str
    version: str
    url: str
    transport: TransportName  # http or sse
    required_headers: tuple[str, ...]
    repo: str | None
    details: Mapping[str, Any] = field(default_factory=dict)  # registry_details


@dataclass(frozen=True, slots=True)
class RegistryPackage:
    """The launchable package of an active registry entry (one per entry)."""

    slug: str
    server_name: str
    version: str
    launch: PackageLaunch
    repo: str | None
    details: Mapping[str, Any] = field(default_factory=dict)  # and postInstallInstructions

    @property
    def command(self) -> str:
        return shlex.join(self.launch.argv)


@dataclass(frozen=True, slots=True)
class RegistryRecord:
    """An entry (or one of its remotes or packages) recorded with a status and never launched:
    inactive, needs-config or other; ``launch`` says what it would have been, without values."""

    slug: str
    server_name: str
    version: str
    status: Status
    reason: str
    launch: str
    repo: str | None
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RegistryListing:
    remotes: tuple[RegistryRemote, ...]
    pages: int
    entries: int
    packages: tuple[RegistryPackage, ...] = ()
    recorded: tuple[RegistryRecord, ...] = ()
    deleted: int = 0  # entries the registry marks deleted: counted, not swept

    def count(self, status: Status) -> int:
        return sum(1 for r in self.recorded if r.status is status)

    @property
    def inactive(self) -> int:
        return self.count(Status.INACTIVE)

    @property
    def needs_config(self) -> int:
        return self.count(Status.NEEDS_CONFIG)


def page_url(base: str, cursor: str | None) -> str:
    params = {"limit": str(PAGE_LIMIT), "version": "latest"}
    if cursor:
        params["cursor"] = cursor
    return base.rstrip("/") + "/v0.1/servers?" + urlencode(params)


def page_reader(session: requests.Session) -> GetJSON:
    """``GetJSON`` over HTTP: one registry page, read within ``MAX_PAGE_BYTES`` and
    ``PAGE_TIMEOUT_S``; any failure is one ``InputError`` line."""

    def get_json(url: str) -> Any:
        shown = redact_url(url)
        try:
            with session.get(url, timeout=PAGE_TIMEOUT_S) as resp:
                if resp.status_code != 200:
                    raise InputError(f"registry answered HTTP {resp.status_code} for {shown}")
                body = read_body(resp, ReadLimits(MAX_PAGE_BYTES, PAGE_TIMEOUT_S))
        except requests.RequestException as exc:
            _, what = classify_request_failure(exc, url)
            raise InputError(f"registry request failed: {what}") from None
        except BodyReadFailed as exc:
            raise InputError(f"registry page {shown}: {exc}") from None
        return parse_json(body)

    return get_json


def stream_pages(
    base: str, get_json: GetJSON, *, max_pages: int = MAX_PAGES
) -> Iterator[list[Any]]:
    """Each page's ``servers[]`` items, a page read only when the previous one is used up (a
    sweep holds one page, not the registry); guards against cursor loops."""
    cursor: str | None = None
    seen: set[str] = set()
    pages = 0
    while True:
        pages += 1
        if pages > max_pages:
            raise InputError(f"registry {base}: more than {max_pages} pages")
        doc = get_json(page_url(base, cursor))
        if not isinstance(doc, dict) or not isinstance(doc.get("servers"), list):
            raise InputError(f"registry {base}: page {pages} has no 'servers' list")
        yield doc["servers"]
        meta = _obj(doc.get("metadata"))
        nxt = meta.get("nextCursor", meta.get("next_cursor"))
        if not isinstance(nxt, str) or not nxt:
            return
        if nxt in seen:
            raise InputError(f"registry {base}: cursor {nxt!r} repeated")
        seen.add(nxt)
        cursor = nxt


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def slugify(text: str) -> str:
    slug = _SLUG_BAD.sub("-", text.lower()).strip("-.") or "server"
    return slug[:90]


class RecordKind(StrEnum):
    """What a record without a launch stands for; a slug's suffix when the name is taken."""

    INACTIVE = "inactive"
    REMOTE = "remote"
    PACKAGE = "package"
    ENTRY = "entry"


# a slug's suffix: a record's kind, a measured remote's transport, a package's registry type
SlugKind = RecordKind | TransportName | RegistryType


class _Slugs:
    """Stable unique slugs: the entry's name, then ``name-<kind>``, then ``name-<n>``; a name
    the published tree keeps for itself (``core.names.RESERVED_NAMES``) is never one."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def take(self, name: str, kind: SlugKind) -> str:
        base = slugify(name)
        slug = base if self._free(base) else f"{base}-{kind}"
        n = 2
        while not self._free(slug):
            slug, n = f"{base}-{n}", n + 1
        self.taken.add(slug)
        return slug

    def _free(self, slug: str) -> bool:
        """Not taken, and a name a result may have (never one of the tree's own files)."""
        return slug not in self.taken and name_problem(slug) is None


def url_variables(url: str) -> list[str]:
    """The ``{variables}`` a remote's URL holds, in order."""
    return [str(m.group(0))[1:-1] for m in _TEMPLATE_VAR.finditer(url)]


def _detail_text(value: Any) -> str | None:
    """Registry text as a record keeps it: whitespace collapsed, at most ``DETAIL_CHARS``."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())[:DETAIL_CHARS]
    return text or None


def post_install_instructions(package: Any) -> list[dict[str, Any]]:
    """A package's ``postInstallInstructions`` (informational; nothing is run): each
    ``{description, command?, documentation?, optional?}``, at most ``MAX_INSTRUCTIONS``."""
    kept: list[dict[str, Any]] = []
    for item in _list(_obj(package).get("postInstallInstructions"))[:MAX_INSTRUCTIONS]:
        one = _obj(item)
        description = _detail_text(one.get("description"))
        if description is None:
            continue
        out: dict[str, Any] = {"description": description}
        for key in ("command", "documentation"):
            text = _detail_text(one.get(key))
            if text is not None:
                out[key] = text
        if isinstance(one.get("optional"), bool):
            out["optional"] = one["optional"]
        kept.append(out)
    return kept


def registry_details(official: Mapping[str, Any]) -> dict[str, Any]:
    """What a record keeps of the registry's own metadata for an entry: its status when it is
    not ``active``, ``statusMessage`` and ``statusChangedAt``."""
    details: dict[str, Any] = {}
    status = official.get("status", "active")
    if status != "active":
        details["status"] = _detail_text(status) or "not active"
    for key in ("statusMessage", "statusChangedAt"):
        text = _detail_text(official.get(key))
        if text is not None:
            details[key] = text
    return details


class Seen:
    """What stays the same across the pages of one registry read as a stream: the slugs taken
    (``listing_from``'s ``seen``), so a slug is unique registry-wide, and the address policy of
    the hosts entries name."""

    def __init__(self, policy: AddressPolicy = PUBLIC_ONLY) -> None:
        self.slugs = _Slugs()
        self.policy = policy  # what an OCI image's registry host must pass


class _Collected:
    """What ``listing_from`` gathers across entries."""

    def __init__(self, seen: Seen | None = None) -> None:
        seen = Seen() if seen is None else seen
        self.remotes: list[RegistryRemote] = []
        self.packages: list[RegistryPackage] = []
        self.recorded: list[RegistryRecord] = []
        self.deleted = 0
        self.slugs = seen.slugs
        self.policy = seen.policy


def _collect_entry(server: dict[str, Any], official: Mapping[str, Any], out: _Collected) -> None:
    name = server.get("name")
    if not isinstance(name, str) or not name:
        return
    registry_status = official.get("status", "active")
    if registry_status == DELETED:
        out.deleted += 1
        return
    raw_version = server.get("version")
    version = raw_version if isinstance(raw_version, str) else ""
    repo_url = _obj(server.get("repository")).get("url")
    repo = repo_url if isinstance(repo_url, str) else None
    details = registry_details(official)

    def record(
        kind: RecordKind,
        status: Status,
        reason: str,
        launch: str,
        more: Mapping[str, Any] | None = None,
    ) -> None:
        slug = out.slugs.take(name, kind)
        out.recorded.append(
            RegistryRecord(
                slug,
                name,
                version,
                status,
                reason,
                launch,
                repo,
                details={**details, **(more or {})},
            )
        )

    if registry_status != "active":
        shown = details["status"][:40]
        record(RecordKind.INACTIVE, Status.INACTIVE, f"registry status {shown}; not launched", name)
        return
    raw_remotes = _list(server.get("remotes"))
    urls: set[str] = set()  # one entry naming the same endpoint twice is measured once
    for remote in raw_remotes:
        if not isinstance(remote, dict):
            continue
        kind = str(remote.get("type"))
        transport = TRANSPORTS.get(kind)
        url = remote.get("url")
        if isinstance(url, str) and url_variables(url):
            names = ", ".join("{" + n + "}" for n in url_variables(url))
            why = f"URL holds {names[:80]}: the user's own value, which a sweep does not have"
            record(RecordKind.REMOTE, Status.NEEDS_CONFIG, why, url)
            continue
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            record(RecordKind.REMOTE, Status.OTHER, "remote without an http(s) URL", name)
            continue
        if transport is None:
            why = f"remote type {kind[:40]!r} is not one we speak"
            record(RecordKind.REMOTE, Status.OTHER, why, url)
            continue
        if url in urls:
            continue
        urls.add(url)
        headers = tuple(
            str(h.get("name"))
            for h in remote.get("headers") or []
            if isinstance(h, dict) and h.get("isRequired") is True and h.get("name")
        )
        slug = out.slugs.take(name, transport)
        out.remotes.append(
            RegistryRemote(slug, name, version, url, transport, headers, repo, details=details)
        )
    raw_packages = _list(server.get("packages"))
    plan = choose_package(raw_packages, out.policy)
    if plan is None:
        if not raw_remotes:
            why = "the entry lists no remotes and no packages"
            record(RecordKind.ENTRY, Status.OTHER, why, name)
        return
    chosen = next(p for p in raw_packages if plan_package(p, out.policy) == plan)
    instructions = post_install_instructions(chosen)
    more = {"postInstallInstructions": instructions} if instructions else {}
    if isinstance(plan, PackageLaunch):
        slug = out.slugs.take(name, plan.registry_type)
        out.packages.append(
            RegistryPackage(slug, name, version, plan, repo, details={**details, **more})
        )
    else:
        record(RecordKind.PACKAGE, plan.status, plan.reason, name, more)


def listing_from(items: list[Any], pages: int, *, seen: Seen | None = None) -> RegistryListing:
    """Every entry but the deleted ones: active entries' remotes and their first launchable
    package, and a record for what is not launched (inactive, needs-config, other). A registry
    read page by page passes the same ``seen`` for each page."""
    out = _Collected(seen)
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("server"), dict):
            continue
        official = _obj(_obj(item.get("_meta")).get(OFFICIAL_META))
        _collect_entry(item["server"], official, out)
    return RegistryListing(
        tuple(out.remotes),
        pages,
        len(items),
        tuple(out.packages),
        tuple(out.recorded),
        deleted=out.deleted,
    )


def registry_summary(listing: RegistryListing) -> str:
    """One progress line: what the registry listed and what the sweep will do with it."""
    counts = {status: listing.count(status) for status in RECORDED_STATUSES}
    return summary_line(
        listing.entries,
        listing.pages,
        len(listing.remotes),
        len(listing.packages),
        counts,
        deleted=listing.deleted,
    )


RECORDED_STATUSES = (Status.INACTIVE, Status.NEEDS_CONFIG, Status.OTHER)


def summary_line(
    entries: int,
    pages: int,
    remotes: int,
    packages: int,
    recorded: Mapping[Status, int],
    *,
    deleted: int = 0,
) -> str:
    """``registry_summary`` from the counts (a registry read as a stream keeps only those)."""
    shown = ", ".join(f"{recorded[s]} {s}" for s in RECORDED_STATUSES if recorded.get(s))
    passed = f"; {deleted} deleted in the registry, not swept" if deleted else ""
    return (
        f"registry: {counted(entries, 'entry', 'entries')} on "
        f"{counted(pages, 'page')}; "
        f"{counted(remotes, 'remote endpoint')} and "
        f"{counted(packages, 'package')} to measure; "
        f"recorded without launching: {shown or 'none'}{passed}"
    )


def catalog_from(listing: RegistryListing, source: str) -> Catalog:
    """Catalog entries for the listing: remotes, packages, then the records (measured by the
    pre-check, which writes their status without launching anything)."""
    entries: list[CatalogEntry] = []
    for r in listing.remotes:
        entries.append(
            CatalogEntry(
                name=r.slug,
                command=r.url,
                url=r.url,
                transport=r.transport,
                package=f"{r.server_name}@{r.version}" if r.version else r.server_name,
                category="registry",
                repo=r.repo,
                version=r.version or None,
                registry_name=r.server_name,
                registry_details=r.details,
            )
        )
    for p in listing.packages:
        entries.append(
            CatalogEntry(
                name=p.slug,
                command=p.command,
                env=p.launch.env,
                env_values=p.launch.env_values,
                package=f"{p.server_name}@{p.version}" if p.version else p.server_name,
                category="registry",
                repo=p.repo,
                version=p.version or None,
                registry_name=p.server_name,
                registry_details=p.details,
            )
        )
    for rec in listing.recorded:
        entries.append(
            CatalogEntry(
                name=rec.slug,
                command=rec.launch,
                package=f"{rec.server_name}@{rec.version}" if rec.version else rec.server_name,
                category="registry",
                repo=rec.repo,
                version=rec.version or None,
                registry_name=rec.server_name,
                registry_details=rec.details,
            )
        )
    return Catalog(tuple(entries), source)


def registry_entry_of(entry: CatalogEntry) -> dict[str, Any] | None:
    """The registry entry a catalog entry stands for, as measurement.json's ``registryEntry``:
    its name and version, and what the registry says of it (``registry_details``)."""
    if entry.registry_name is None:
        return None
    return {"name": entry.registry_name, "version": entry.version or "", **entry.registry_details}


def with_registry_entries(measure: MeasureJob) -> MeasureJob:
    """``measure`` with each measurement marked with the registry entry it was made for, so
    the record says where it came from after a merge of shards, whatever catalog a later
    publish is given."""

    def marked(job: Job) -> Measurement:
        return measure(job).with_(registry_entry=registry_entry_of(job.entry))

    return marked


def record_measurement(
    entry: CatalogEntry, rec: RegistryRecord, *, now: str, timeout_ms: int
) -> Measurement:
    """The published record of an entry that is not launched (no isolation: nothing ran)."""
    return Measurement(
        status=rec.status,
        server_name=entry.name,
        launch_command=redact_url(entry.command),
        measured_at=now,
        timeout_ms=timeout_ms,
        notes=rec.reason,
        registry_entry=registry_entry_of(entry),
    )


def auth_wall_record(entry: CatalogEntry, reason: str, *, now: str, timeout_ms: int) -> Measurement:
    return Measurement(
        status=Status.REMOTE_AUTH_WALL,
        server_name=entry.name,
        launch_command=redact_url(entry.command),
        measured_at=now,
        timeout_ms=timeout_ms,
        isolation=Isolation(docker=False),
        notes=reason,
        transport=entry.transport,
        registry_entry=registry_entry_of(entry),
    )


def initialize_body() -> bytes:
    """The ``initialize`` request a measurement opens with (same version and client info)."""
    params = {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
    return stringify({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}).encode()


def probe_auth_wall(session: requests.Session, url: str, timeout_s: float) -> str | None:
    """A reason when the endpoint answers 401 with OAuth metadata (header or well-known doc)."""
    try:
        with session.post(
            url,
            data=initialize_body(),
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
            timeout=timeout_s,
            stream=True,
        ) as resp:
            status = resp.status_code
            challenge = resp.headers.get("WWW-Authenticate", "")
    except requests.RequestException:
        return None
    if status != 401:
        return None
    if names_resource_metadata(challenge):
        return "401 with OAuth protected-resource metadata (WWW-Authenticate); not logged in"
    if probe_oauth_metadata(session, url, timeout_s):
        return "401 with OAuth protected-resource metadata (.well-known); not logged in"
    if challenge.lower().startswith("bearer"):
        return "401 with a Bearer challenge; not logged in"
    return None


def make_pre_check(
    remotes: Mapping[str, RegistryRemote],
    probe: Callable[[str], str | None],
    clock: Callable[[], dt.datetime],
    timeout_ms: int,
    recorded: Mapping[str, RegistryRecord] | None = None,
) -> Callable[[CatalogEntry], Measurement | None]:
    """Record what is not launched, then classify auth walls before measuring: required headers
    first, then the 401 probe."""

    def check(entry: CatalogEntry) -> Measurement | None:
        rec = (recorded or {}).get(entry.name)
        if rec is not None:
            return record_measurement(entry, rec, now=iso_utc(clock()), timeout_ms=timeout_ms)
        remote = remotes.get(entry.name)
        if remote is None:
            return None
        if remote.required_headers:
            reason = "registry declares required header(s) " + ", ".join(remote.required_headers)
        else:
            found = probe(remote.url)
            if found is None:
                return None
            reason = found
        return auth_wall_record(entry, reason, now=iso_utc(clock()), timeout_ms=timeout_ms)

    return check
