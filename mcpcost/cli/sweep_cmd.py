"""``mcpcost sweep``: measure a servers.yaml catalog (or a shard of it, or the MCP registry)."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from pathlib import Path
from typing import Any, TextIO

from mcpcost.cli.args import ArgParser, positive_float, positive_int
from mcpcost.cli.container_args import (
    add_container_arguments,
    container_trust,
    open_engine,
    require_docker_for,
)
from mcpcost.core.terminal import terminal_line
from mcpcost.errors import EXIT_USAGE, UsageError
from mcpcost.measuring.containers import engine_address
from mcpcost.sweep.catalog import Catalog, read_catalog
from mcpcost.sweep.runner import SweepOptions, run_sweep
from mcpcost.sweep.shard import parse_shard, select_shard

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
    from mcpcost.cli.divergence_cmd import open_counter
    from mcpcost.core.divergence import COLUMNS, CountApi

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
    from mcpcost.cli import divergence_cmd
    from mcpcost.sweep.publish import publish

    worst = 0
    for api in apis:
        code = divergence_cmd.run(["--out", out, "--api", api], err, err, environ=env)
        worst = max(worst, code)
    publish(Path(out), catalog)
    return worst


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
    open_url = None
    mark_registry = False
    if args.registry:
        from mcpcost.runtime.addresses import AddressPolicy
        from mcpcost.runtime.http_session import BoundedSession
        from mcpcost.sweep.registry_source import (
            catalog_from,
            fetch_entries,
            listing_from,
            make_pre_check,
            page_reader,
            probe_auth_wall,
            registry_summary,
        )
        from mcpcost.transports.open import world_url_opener

        policy = AddressPolicy(allow_private=args.allow_private_addresses)
        # the registry is the user's choice; the URLs its entries name are the world's
        get_json = page_reader(stack.enter_context(BoundedSession()))
        session = stack.enter_context(BoundedSession(policy))
        open_url = world_url_opener(policy)
        items, pages = fetch_entries(args.registry, get_json)
        listing = listing_from(items, pages)
        progress(registry_summary(listing))
        catalog: Catalog = catalog_from(listing, args.registry)
        pre_check = make_pre_check(
            {r.slug: r for r in listing.remotes},
            lambda url: probe_auth_wall(session, url, args.timeout),
            clock,
            int(args.timeout * 1000),
            {r.slug: r for r in listing.recorded},
        )
        mark_registry = True
    else:
        catalog = read_catalog(args.servers)
    selected = list(catalog.entries)
    if args.only:
        selected = list(
            catalog.only([n.strip() for n in args.only.split(",") if n.strip()]).entries
        )
    sweepable = [e for e in selected if e.sweepable]
    if args.shard:
        choice = parse_shard(args.shard)
        index = choice.resolve(clock().date())
        sweepable = select_shard(sweepable, choice.count, index)
        progress(
            f"shard {index}/{choice.count}"
            + (" (from the date)" if choice.index is None else "")
            + f": {', '.join(e.name for e in sweepable) or '(empty)'}"
        )
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
    from mcpcost.sweep.measure_adapter import make_measure

    measure = make_measure(launcher, clock, open_url=open_url)
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
        catalog,
        sweepable,
        root,
        measure,
        options,
        clock=clock,
        progress=progress,
        publish_pages=not args.no_publish,
        pre_check=pre_check,
    )
    return outcome.exit_code, catalog
