"""The official MCP registry as a sweep source: remote servers, auth walls classified.

``GET {base}/v0.1/servers?limit=100&version=latest`` is paged through ``metadata.nextCursor``
(``next_cursor`` in old responses; empty or missing ends). Only entries whose
``_meta["io.modelcontextprotocol.registry/official"].status`` is ``active`` are kept, and of
those only ``remotes[]`` over ``streamable-http`` or ``sse`` whose URL has no unresolved
``{variable}``. A remote that declares a required header is an auth wall before anything is sent;
one that answers ``initialize`` with 401 and OAuth protected-resource metadata is one too. Both
are recorded as ``remote-auth-wall``; nothing ever tries to log in.

The registry's pages are read within ``MAX_PAGE_BYTES`` and ``PAGE_TIMEOUT_S`` each
(``page_reader``). Every URL an entry names is the world's, not the user's: the auth-wall probe
and the measurements go through a session and transports that keep to an address policy
(``runtime.addresses``; the CLI's ``--allow-private-addresses``), and what such a server answers
with an error status is never published.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import urlencode

import requests

from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.model import Isolation, Measurement
from mcpcost.core.patterns import LazyPattern
from mcpcost.core.record import Record
from mcpcost.core.redact import redact_url
from mcpcost.core.spec import TransportName
from mcpcost.core.status import Status
from mcpcost.errors import InputError
from mcpcost.runtime.clock import iso_utc
from mcpcost.runtime.http_body import BodyReadFailed, ReadLimits, read_body
from mcpcost.sweep.catalog import Catalog, CatalogEntry
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
_TEMPLATE_VAR = LazyPattern(r"\{[^}]*\}")
_SLUG_BAD = LazyPattern(r"[^a-z0-9._-]+")

GetJSON = Callable[[str], Any]


class RegistryRemote(Record, frozen=True):
    """One measurable remote endpoint of an active registry entry."""

    slug: str
    server_name: str
    version: str
    url: str
    transport: TransportName  # http or sse
    required_headers: tuple[str, ...]
    repo: str | None


class RegistryListing(Record, frozen=True):
    remotes: tuple[RegistryRemote, ...]
    pages: int
    entries: int
    inactive: int
    needs_config: int


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


def fetch_entries(
    base: str, get_json: GetJSON, *, max_pages: int = MAX_PAGES
) -> tuple[list[Any], int]:
    """Every ``servers[]`` item across pages; guards against cursor loops."""
    items: list[Any] = []
    pages = 0
    for page in stream_pages(base, get_json, max_pages=max_pages):
        items.extend(page)
        pages += 1
    return items, pages


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


def slugify(text: str) -> str:
    slug = _SLUG_BAD.sub("-", text.lower()).strip("-.") or "server"
    return slug[:90]


def listing_from(
    items: list[Any],
    pages: int,
    *,
    seen_urls: set[str] | None = None,
    slugs: set[str] | None = None,
) -> RegistryListing:
    """Active entries' remotes, de-duplicated by URL, with stable unique slugs.

    A stream of pages passes the same ``seen_urls`` and ``slugs`` for each page, so that the
    de-duplication and the slugs are those of the whole registry."""
    remotes: list[RegistryRemote] = []
    seen_urls = set() if seen_urls is None else seen_urls
    slugs = set() if slugs is None else slugs
    inactive = needs_config = 0
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("server"), dict):
            continue
        official = _obj(_obj(item.get("_meta")).get(OFFICIAL_META))
        if official.get("status", "active") != "active":
            inactive += 1
            continue
        server = item["server"]
        name = server.get("name")
        if not isinstance(name, str) or not name:
            continue
        version = server.get("version") if isinstance(server.get("version"), str) else ""
        repo_obj = server.get("repository")
        repo = repo_obj.get("url") if isinstance(repo_obj, dict) else None
        for remote in server.get("remotes") or []:
            if not isinstance(remote, dict):
                continue
            transport = TRANSPORTS.get(str(remote.get("type")))
            url = remote.get("url")
            if transport is None or not isinstance(url, str) or not url.startswith("http"):
                continue
            if _TEMPLATE_VAR.search(url):
                needs_config += 1
                continue
            if url in seen_urls:
                continue
            seen_urls.add(url)
            headers = tuple(
                str(h.get("name"))
                for h in remote.get("headers") or []
                if isinstance(h, dict) and h.get("isRequired") is True and h.get("name")
            )
            base = slugify(name)
            slug = base if base not in slugs else f"{base}-{transport}"
            n = 2
            while slug in slugs:
                slug, n = f"{base}-{n}", n + 1
            slugs.add(slug)
            remotes.append(
                RegistryRemote(
                    slug,
                    name,
                    version,
                    url,
                    transport,
                    headers,
                    repo if isinstance(repo, str) else None,
                )
            )
    return RegistryListing(tuple(remotes), pages, len(items), inactive, needs_config)


def catalog_from(listing: RegistryListing, source: str) -> Catalog:
    entries = tuple(
        CatalogEntry(
            name=r.slug,
            command=r.url,
            url=r.url,
            transport=r.transport,
            package=f"{r.server_name}@{r.version}" if r.version else r.server_name,
            category="registry",
            repo=r.repo,
            version=r.version or None,
        )
        for r in listing.remotes
    )
    return Catalog(entries, source)


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
) -> Callable[[CatalogEntry], Measurement | None]:
    """Classify auth walls before measuring: required headers first, then the 401 probe."""

    def check(entry: CatalogEntry) -> Measurement | None:
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
