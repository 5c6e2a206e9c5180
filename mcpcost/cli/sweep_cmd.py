"""``mcpcost sweep``: measure a servers.yaml catalog (or a shard of it, or the MCP registry)."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from mcpcost.cli import divergence_cmd
from mcpcost.cli.args import ArgParser, positive_float, positive_int
from mcpcost.cli.container_args import (
    add_container_arguments,
    container_trust,
    open_engine,
    require_docker_for,
)
from mcpcost.cli.divergence_cmd import open_counter
from mcpcost.core.digest import sha256_hex
from mcpcost.core.divergence import COLUMNS, CountApi
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.errors import EXIT_USAGE, UsageError
from mcpcost.escaping.terminal import terminal_line
from mcpcost.measuring import MeasureOptions, measure_server
from mcpcost.measuring.containers import engine_address
from mcpcost.sweep.catalog import Catalog, CatalogEntry, read_catalog
from mcpcost.sweep.measure_adapter import make_measure
from mcpcost.sweep.measuring_pool import MeasuringPool, auto_processes
from mcpcost.sweep.publish import publish
from mcpcost.sweep.registry_source import (
    RECORDED_STATUSES,
    Seen,
    catalog_from,
    listing_from,
    summary_line,
)
from mcpcost.sweep.runner import PostCheck, SweepOptions, run_sweep
from mcpcost.sweep.shard import name_in_shard, parse_shard, select_shard

if TYPE_CHECKING:
    from mcpcost.runtime.addresses import AddressPolicy
    from mcpcost.sweep.registry_source import RegistryRecord, RegistryRemote

T = TypeVar("T")

__all__ = ["build_parser", "run"]


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost sweep",
        description="Measure every sweepable entry of a catalog, stage results/<name>/"
        "measurement.json and badges/<name>.json as each finishes, apply the harness guard, "
        "then fold history, regenerate the pages and publish everything in one commit "
        "(a killed sweep leaves the previous tree; see docs/GUARANTEES.md).",
    )
    p.add_argument("--servers", default="servers.yaml", metavar="FILE", help="catalog file")
    p.add_argument("--only", metavar="A,B", help="comma-separated entry names to sweep")
    p.add_argument(
        "--shard",
        metavar="K/N",
        help="sweep shard K (0-based) of N, round-robin; 'N' alone picks K from the date",
    )
    add_container_arguments(p, docker_help="run each server in a container")
    p.add_argument("--concurrency", type=positive_int, default=3, metavar="N")
    p.add_argument(
        "--processes",
        type=positive_int,
        default=None,
        metavar="N",
        help="measure remote endpoints in up to N processes (default: one per core, at most "
        "4 and at most --concurrency; 1 measures them in this process)",
    )
    p.add_argument(
        "--timeout", type=positive_float, default=60.0, metavar="SECONDS", help="default budget"
    )
    p.add_argument("--out", default=".", metavar="DIR", help="output root (default: .)")
    p.add_argument(
        "--registry",
        metavar="URL",
        help="sweep an MCP registry: its remotes and its npm, PyPI and OCI packages, launched as "
        "each entry asks (third-party code: use --docker); every entry gets a status",
    )
    p.add_argument(
        "--allow-private-addresses",
        action="store_true",
        help="with --registry: let entries reach loopback, private, link-local and unique-local "
        "addresses (tests, an internal registry); cloud metadata addresses stay refused",
    )
    p.add_argument(
        "--no-publish",
        action="store_true",
        help="write measurements and badges only (a matrix shard; 'mcpcost merge' publishes)",
    )
    p.add_argument(
        "--divergence",
        metavar="API[,API]",
        help="after a published sweep, run 'mcpcost divergence' for these count APIs "
        "(anthropic, openai) and publish again; their keys are checked before the sweep",
    )
    return p


def divergence_apis(text: str | None, env: dict[str, str]) -> list[str]:
    """The ``--divergence`` list, refused before any server starts when an API is unknown or
    its key or SDK is missing (``divergence_cmd.open_counter`` says which, in one line)."""
    if not text:
        return []

    apis = [a.strip() for a in text.split(",") if a.strip()]
    for api in apis:
        if api not in {str(a) for a in CountApi}:
            raise UsageError(
                f"mcpcost sweep: --divergence takes anthropic and/or openai, not {api!r}"
            )
        kind = CountApi(api)
        open_counter(kind, COLUMNS[kind].default_model, env)
    return apis


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def run(argv: list[str], out: TextIO, err: TextIO, *, environ: dict[str, str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    env = dict(os.environ) if environ is None else environ
    if args.shard and args.only:
        raise UsageError("mcpcost sweep: --shard and --only cannot be combined")
    require_docker_for(args, "mcpcost sweep", ("ca_bundle",))
    if args.divergence and args.no_publish:
        raise UsageError("mcpcost sweep: --divergence needs a published sweep (not --no-publish)")
    apis = divergence_apis(args.divergence, env)
    with contextlib.ExitStack() as stack:
        code, catalog = _run(args, env, err, stack)
    if code != 0 or not apis:
        return code
    return _after_sweep(args.out, catalog, apis, env, err)


def _after_sweep(
    out: str, catalog: Catalog | None, apis: list[str], env: dict[str, str], err: TextIO
) -> int:
    """Each divergence column over the tree just published, then the pages again."""

    worst = 0
    for api in apis:
        code = divergence_cmd.run(["--out", out, "--api", api], err, err, environ=env)
        worst = max(worst, code)
    publish(Path(out), catalog)
    return worst


class RegistryFeed:
    """The registry as a stream of catalog entries, read page by page as the sweep draws them.

    Holds one page, the slugs taken (unique registry-wide), the remotes and
    records drawn but not yet pre-checked, and, when the sweep publishes, the entries for its
    pages (a matrix shard, ``--no-publish``, keeps none).
    """

    def __init__(
        self,
        base: str,
        pages: Iterator[list[Any]],
        *,
        shard: tuple[int, int] | None,
        only: frozenset[str] | None = None,
        keep_entries: bool,
        progress: Callable[[str], None],
        policy: AddressPolicy | None = None,
    ) -> None:

        self.base = base
        self._pages = pages
        self._shard = shard
        self._only = only
        self._keep = keep_entries
        self._progress = progress
        self._seen = Seen() if policy is None else Seen(policy)
        self.remotes: dict[str, RegistryRemote] = {}  # drawn, not yet pre-checked
        self.recorded: dict[str, RegistryRecord] = {}
        self.entries: list[CatalogEntry] = []
        self.drawn = 0

    def __iter__(self) -> Iterator[CatalogEntry]:

        entries = pages = remotes = packages = deleted = 0
        recorded = dict.fromkeys(RECORDED_STATUSES, 0)
        for items in self._pages:
            pages += 1
            listing = listing_from(items, 1, seen=self._seen)
            entries += listing.entries
            remotes += len(listing.remotes)
            packages += len(listing.packages)
            deleted += listing.deleted
            for status in RECORDED_STATUSES:
                recorded[status] += listing.count(status)
            by_slug = {r.slug: r for r in listing.remotes}
            records = {r.slug: r for r in listing.recorded}
            for entry in catalog_from(listing, self.base).entries:
                if self._shard is not None and not name_in_shard(entry.name, *self._shard):
                    continue
                if self._only is not None and entry.name not in self._only:
                    continue
                if entry.name in by_slug:
                    self.remotes[entry.name] = by_slug[entry.name]
                if entry.name in records:
                    self.recorded[entry.name] = records[entry.name]
                if self._keep:
                    self.entries.append(entry)
                self.drawn += 1
                yield entry
        line = summary_line(entries, pages, remotes, packages, recorded, deleted=deleted)
        self._progress(line + (f"; {self.drawn} in this shard" if self._shard else ""))

    def catalog(self) -> Catalog:
        return Catalog(tuple(self.entries), self.base)


class _TakenOnce(Mapping[str, T]):
    """Entries drawn from the feed as the pre-check reads them: each is handed out once, then
    dropped, so what is held is what is in flight."""

    def __init__(self, held: dict[str, T]) -> None:
        self._held = held

    def __getitem__(self, name: str) -> T:
        return self._held.pop(name)

    def get(self, name: str, default: Any = None) -> Any:
        return self._held.pop(name, default)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._held))

    def __len__(self) -> int:
        return len(self._held)


def resume_key(source: str, selection: dict[str, Any], today: dt.date) -> str:
    """What names a sweep for resuming: its source, its selection and options, and the UTC day
    (a sweep killed on one day resumes that day; the next day's sweep starts afresh)."""

    doc = {"source": source, "selection": selection, "day": today.isoformat()}
    return sha256_hex(stringify(doc).encode("utf-8"))


def _run(
    args: Any, env: dict[str, str], err: TextIO, stack: contextlib.ExitStack
) -> tuple[int, Catalog | None]:
    root = Path(args.out)
    clock = _utcnow

    def progress(line: str) -> None:
        # names, notes and registry text in these lines come from the catalog and the servers
        err.write(terminal_line(line) + "\n")
        err.flush()

    pre_check = None
    url_policy = None  # the address policy of URLs from the world (a registry's)
    mark_registry = False
    checked_after: PostCheck | None = None
    timeout_ms = int(args.timeout * 1000)
    shard: tuple[int, int] | None = None
    if args.shard:
        choice = parse_shard(args.shard)
        shard = (choice.count, choice.resolve(clock().date()))
        progress(
            f"shard {shard[1]}/{shard[0]}" + (" (from the date)" if choice.index is None else "")
        )
    selection = {
        "shard": None if shard is None else f"{shard[1]}/{shard[0]}",
        "only": args.only,
        "docker": bool(args.docker),
        "image": args.image,
    }
    catalog: Catalog | None
    sweep_catalog: Catalog | Callable[[], Catalog | None]
    selected: Iterable[CatalogEntry]
    if args.registry:
        from mcpcost.runtime.addresses import AddressPolicy
        from mcpcost.runtime.clock import iso_utc
        from mcpcost.runtime.http_session import BoundedSession
        from mcpcost.sweep.registry_source import (
            auth_wall_record,
            make_pre_check,
            page_reader,
            probe_auth_wall,
            stream_pages,
        )

        policy = AddressPolicy(allow_private=args.allow_private_addresses)
        url_policy = policy
        # the registry is the user's choice; the URLs its entries name are the world's
        get_json = page_reader(stack.enter_context(BoundedSession()))
        session = stack.enter_context(BoundedSession(policy))
        feed = RegistryFeed(
            args.registry,
            stream_pages(args.registry, get_json),
            shard=shard,
            only=frozenset(n.strip() for n in args.only.split(",")) if args.only else None,
            keep_entries=not args.no_publish,
            progress=progress,
            policy=policy,
        )
        # Required headers are an auth wall before anything is sent. An endpoint is asked for
        # its OAuth metadata only when its measurement was refused with 401 or 403: probing
        # first would add a request to every entry that answers.
        pre_check = make_pre_check(
            _TakenOnce(feed.remotes),
            lambda _url: None,
            clock,
            timeout_ms,
            _TakenOnce(feed.recorded),
        )
        mark_registry = True

        def post_check(entry: CatalogEntry, m: Measurement) -> Measurement:
            if m.status is not Status.AUTH_REQUIRED or entry.url is None:
                return m
            reason = probe_auth_wall(session, entry.url, args.timeout)
            if reason is None:
                return m
            return auth_wall_record(entry, reason, now=iso_utc(clock()), timeout_ms=timeout_ms)

        catalog, sweep_catalog, selected = None, feed.catalog, feed
        checked_after = post_check
        source = f"registry {args.registry}"
    else:
        catalog = read_catalog(args.servers)
        entries = list(catalog.entries)
        if args.only:
            entries = list(
                catalog.only([n.strip() for n in args.only.split(",") if n.strip()]).entries
            )
        sweepable = [e for e in entries if e.sweepable]
        if shard is not None:
            sweepable = select_shard(sweepable, *shard)
            progress(f"shard entries: {', '.join(e.name for e in sweepable) or '(empty)'}")
        sweep_catalog, selected = catalog, sweepable
        source = f"catalog {catalog.source} " + stringify_names(catalog)
    docker_host = engine_address(args.docker_host, env)
    launcher = None
    trust = None
    if args.docker:
        trust = container_trust("mcpcost sweep", args.ca_bundle, env)
        bundle = trust.ca_bundle
        if args.ca_bundle is not None:
            progress(
                f"containers trust the CA bundle {bundle}"
                if bundle is not None
                else "--ca-bundle auto: no host CA bundle found; containers keep their own"
            )
        engine = open_engine("mcpcost sweep", docker_host, err, stack)
        if engine is None:
            return EXIT_USAGE, catalog
        launcher = engine.launcher

    measuring = MeasureOptions(url_policy=url_policy, now=clock)
    pool = None
    processes = args.processes or auto_processes(args.concurrency)
    if processes > 1:

        def measure_here(spec: ServerSpec, timeout_s: float) -> Measurement:
            return measure_server(spec, dataclasses.replace(measuring, timeout_s=timeout_s))

        pool = stack.enter_context(MeasuringPool(processes, url_policy, measure_here))
    measure = make_measure(launcher, measuring, pool=pool)
    if mark_registry:
        from mcpcost.sweep.registry_source import with_registry_entries

        measure = with_registry_entries(measure)

    options = SweepOptions(
        docker=args.docker,
        concurrency=args.concurrency,
        default_timeout_s=args.timeout,
        image_override=args.image,
        docker_host=docker_host,
        trust=trust,
    )
    outcome = run_sweep(
        sweep_catalog,
        selected,
        root,
        measure,
        options,
        clock=clock,
        progress=progress,
        publish_pages=not args.no_publish,
        pre_check=pre_check,
        post_check=checked_after,
        resume=resume_key(source, selection, clock().date()),
    )
    if args.registry and catalog is None and not args.no_publish:
        catalog = feed.catalog()
    return outcome.exit_code, catalog


def stringify_names(catalog: Catalog) -> str:
    """The catalog's entries as the resume key sees them (names and launches, in order)."""

    return stringify([[e.name, e.command, e.url] for e in catalog.entries])
