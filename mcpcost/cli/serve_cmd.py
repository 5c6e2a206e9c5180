"""``mcpcost serve``: an HTTP API that measures remote MCP servers on demand, exactly, and serves
a published tree.

    mcpcost serve [--host 127.0.0.1] [--port 8080] [--out DIR] [--max-concurrent N]
                  [--timeout SECONDS] [--cache-seconds S] [--rate-limit N] [--refresh-seconds S]
                  [--allow-http] [--allow-private-addresses] [--forwarded-allow-ips IPS]

Bound to loopback unless ``--host`` says otherwise. Logs are JSON lines on stderr (the first
names the address it listens on). It runs until SIGINT or SIGTERM. Needs the ``serve`` extra
(uvicorn and starlette); without it the command says so in one line and exits 2. The API, its
bounds and a deployment are in docs/SERVE.md; the package is ``mcpcost.serve``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TextIO

from mcpcost.cli.args import (
    ArgParser,
    non_negative_float,
    non_negative_int,
    port_number,
    positive_float,
    positive_int,
)
from mcpcost.errors import EXIT_OK, InputError, UsageError
from mcpcost.serve.options import DEFAULT_HOST, DEFAULT_PORT, ServeSettings

EXTRA_MODULES = ("uvicorn", "starlette")


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost serve",
        description="Serve an HTTP API: POST/GET /api/measure measures one remote MCP server "
        "(exact o200k_base tokens), /data.json and /api/servers/NAME serve a published tree, "
        "/healthz, /openapi.json.",
        epilog="Runs until interrupted. docs/SERVE.md shows a deployment behind a reverse proxy.",
    )
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    p.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_PORT,
        help=f"port to bind (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    p.add_argument("--out", metavar="DIR", help="serve this published tree (results/, badges/)")
    p.add_argument(
        "--max-concurrent",
        type=positive_int,
        default=4,
        metavar="N",
        help="measurements run at once; past it 429 with Retry-After (default 4)",
    )
    p.add_argument(
        "--timeout",
        type=positive_float,
        default=30.0,
        metavar="SECONDS",
        help="deadline of each measurement's captures (default 30; no retry)",
    )
    p.add_argument(
        "--cache-seconds",
        type=non_negative_float,
        default=300.0,
        metavar="S",
        help="keep each URL's answer this long (default 300; 0 keeps none)",
    )
    p.add_argument(
        "--rate-limit",
        type=non_negative_int,
        default=30,
        metavar="N",
        help="measurements one client may start a minute (default 30; 0: no limit)",
    )
    p.add_argument(
        "--refresh-seconds",
        type=positive_float,
        default=60.0,
        metavar="S",
        help="read the published tree again this often when it changed (default 60)",
    )
    p.add_argument(
        "--allow-http",
        action="store_true",
        help="also measure plain http:// URLs (default: https only)",
    )
    p.add_argument(
        "--allow-private-addresses",
        action="store_true",
        help="let measured URLs reach loopback, private, link-local and unique-local addresses "
        "(tests, an internal deployment); cloud metadata addresses stay refused",
    )
    p.add_argument(
        "--forwarded-allow-ips",
        metavar="IPS",
        help="comma-separated proxy addresses whose X-Forwarded-For names the client (the "
        "reverse proxy in front); without it the connecting peer is the client",
    )
    return p


def settings_from(argv: list[str]) -> ServeSettings:
    args = build_parser().parse_args(argv)
    proxies = args.forwarded_allow_ips
    if proxies is not None and "*" in (p.strip() for p in proxies.split(",")):
        raise UsageError(
            "mcpcost serve: --forwarded-allow-ips '*' would let every client choose the "
            "address it is counted as; name the reverse proxy's address"
        )
    out = None
    if args.out is not None:
        out = Path(args.out)
        if not out.is_dir():
            raise InputError(f"mcpcost serve: --out {args.out}: not a directory")
    return ServeSettings(
        host=args.host,
        port=args.port,
        out=out,
        allow_private_addresses=args.allow_private_addresses,
        allow_http=args.allow_http,
        max_concurrent=args.max_concurrent,
        timeout_s=args.timeout,
        cache_seconds=args.cache_seconds,
        rate_per_minute=args.rate_limit,
        refresh_seconds=args.refresh_seconds,
        forwarded_allow_ips=args.forwarded_allow_ips,
    )


def run(argv: list[str], out: TextIO, err: TextIO) -> int:
    settings = settings_from(argv)
    missing = [m for m in EXTRA_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(
            f"mcpcost serve needs {' and '.join(missing)}: pip install 'mcp-context-cost[serve]'"
        )
    from mcpcost.serve.listener import listening_socket, serve

    try:
        sock = listening_socket(settings.host, settings.port)
    except OSError as exc:
        raise InputError(
            f"mcpcost serve: cannot listen on {settings.host}:{settings.port}: "
            f"{exc.strerror or exc}"
        ) from None
    with sock:
        serve(settings, sock, err)
    return EXIT_OK
