"""``mcpcost measure``: measure one MCP server, a stdio command or a URL.

    mcpcost measure [--name N] [--timeout SECONDS] [--env NAME[=VALUE]]... [--env-from NAME]...
                    [--env-file FILE] [--cwd DIR] [--out DIR] [--json] -- COMMAND [ARG...]
    mcpcost measure --url URL [--header "Name: value"]... [--header-file FILE]
                    [--transport auto|http|sse] ...
    --protocol auto|legacy|modern   which protocol era to negotiate (default auto)
    --command "LAUNCH LINE"         the reference's spelling of -- COMMAND (split with shlex)
    --remote URL                    the reference's spelling of --url
    --docker [--image IMG] [--docker-host URL] [--ca-bundle PATH|auto]
                                    run a stdio server in a container (as sweep --docker does)
    --client NAME[,NAME...]|all     the server through each client's lens (docs/CLIENTS.md):
                                    tokens up front and deferred, regime, findings

A thin adapter over ``mcpcost.measuring.measure_server``. ``--json`` prints measurement.json on
stdout; ``--out DIR`` writes ``DIR/results/<name>/measurement.json`` and ``DIR/badges/<name>.json``
atomically; otherwise one summary line. Progress goes to stderr. Env and header values never
appear in any output or file (names do). Exit 0 measured/dynamic, 1 a failure status, 2 usage.

Secret values and the process list: whatever is on ``mcpcost measure``'s own command line
(``--env NAME=VALUE``, ``--header "Name: value"``, the server command) can be read by every
local user in ``ps``. ``--env-from NAME`` (the value of NAME in mcpcost's own environment),
``--env-file FILE`` (dotenv lines) and ``--header-file FILE`` ("Name: value" lines) keep the
values off it.

With ``--docker`` each capture runs in a fresh container (``mcpcost.measuring.containers``): the
``--env`` values go into the container, and argv paths and ``--cwd`` under the current directory
or the home directory are mounted read-only at the same path. A command that is itself
``docker run`` runs on the host as written.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from mcpcost.cli.args import ArgParser, positive_float
from mcpcost.cli.auth_cmd import (
    add_login_arguments,
    login_settings,
    make_authorizer,
    sign_in_first,
)
from mcpcost.cli.container_args import (
    add_container_arguments,
    container_trust,
    open_engine,
    require_docker_for,
)
from mcpcost.cli.measure_clients import (
    client_table,
    client_views,
    lens_clients,
    render_client_views,
)
from mcpcost.cli.measure_inputs import (
    check_name,
    check_out_dir,
    env_from_sources,
    header_file_lines,
    name_from_command,
    name_from_url,
    parse_headers,
    split_command,
)
from mcpcost.cli.wording import plain_reason
from mcpcost.core.badge import badge_file_text
from mcpcost.core.model import ListingKind, Measurement, render_measurement
from mcpcost.core.plural import counted
from mcpcost.core.spec import REMOTE_TRANSPORTS, EraChoice, ServerSpec, TransportName
from mcpcost.errors import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE, InputError, UsageError
from mcpcost.escaping.terminal import terminal_line
from mcpcost.measuring import MeasureOptions, measure_server
from mcpcost.measuring.containers import ContainerOptions, container_measure, engine_address, place
from mcpcost.runtime.output_tree import open_tree

if TYPE_CHECKING:
    from mcpcost.measuring import MeasureOptions
    from mcpcost.measuring.containers import HostTrust


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost measure",
        description="Measure the tools/list token cost of one MCP server (two concurrent "
        "captures; measured, dynamic or a failure status).",
        epilog="Put the server command after -- (or give it as one line with --command). "
        "Exit codes: 0 measured or dynamic, 1 a failure status, 2 usage.",
    )
    p.add_argument("--name", help="result name (default: derived from the command or host)")
    p.add_argument(
        "--timeout",
        type=positive_float,
        default=60.0,
        metavar="SECONDS",
        help="budget per capture in seconds (default 60; one retry at double)",
    )
    p.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="environment for a stdio server; a bare NAME passes 'dummy'. VALUE is "
        "visible to other local users in ps: use --env-from or --env-file for "
        "secrets",
    )
    p.add_argument(
        "--env-from",
        action="append",
        default=[],
        metavar="NAME",
        help="pass NAME with its value in mcpcost's own environment (not in ps)",
    )
    p.add_argument(
        "--env-file",
        metavar="FILE",
        help="environment for a stdio server from KEY=value lines (not in ps)",
    )
    p.add_argument("--cwd", metavar="DIR", help="working directory of a stdio server")
    p.add_argument(
        "--command",
        dest="command_line",
        metavar="'LAUNCH LINE'",
        help="the server command as one line, split like a POSIX shell (no shell "
        "runs); instead of -- COMMAND ARGS",
    )
    p.add_argument(
        "--url",
        "--remote",
        dest="url",
        metavar="URL",
        help="measure a remote server at this http(s) URL (--remote is an alias)",
    )
    p.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'Name: value'",
        help="an HTTP header for a remote server (kept out of outputs, but visible "
        "to other local users in ps: use --header-file for secrets)",
    )
    p.add_argument(
        "--header-file",
        metavar="FILE",
        help="HTTP headers for a remote server, one 'Name: value' a line; blank "
        "and # lines skipped (not in ps)",
    )
    p.add_argument(
        "--transport",
        choices=REMOTE_TRANSPORTS,
        default=None,
        help="remote transport (default auto: Streamable HTTP, then legacy SSE)",
    )
    p.add_argument(
        "--protocol",
        choices=tuple(EraChoice),
        default=EraChoice.AUTO,
        help="protocol era: auto (initialize first, 2026-07-28 if refused), legacy "
        "or modern (server/discover only)",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        help="write results/<name>/measurement.json and badges/<name>.json under DIR",
    )
    p.add_argument("--json", action="store_true", help="print measurement.json on stdout")
    p.add_argument("--no-retry", action="store_true", help="do not retry a timeout")
    p.add_argument(
        "--client",
        action="append",
        default=[],
        metavar="NAME[,NAME...]|all",
        help="show the server through these clients' lenses (what each one's model gets, "
        "under its defaults): tokens up front and deferred, regime, findings; with --json "
        'an object with "clients" instead of measurement.json (repeatable, or a comma list)',
    )
    add_login_arguments(p)
    add_container_arguments(
        p,
        docker_help="run the stdio server in a container (fresh per capture; --env values go "
        "into it; argv paths under the current or home directory are mounted read-only)",
    )
    p.add_argument("command", nargs="*", help="the server command (after --)")
    return p


def parse_flags(flags: list[str]) -> argparse.Namespace:
    """The flags before ``--``. A server command given without ``--`` (``measure npx -y pkg``)
    reaches argparse as a word and then an unknown flag (``-y``); that is named as such, with
    the command line it meant, instead of as a flag of ours that does not exist."""
    parser = build_parser()
    args, extra = parser.parse_known_args(flags)
    if not extra:
        return args
    first = next((flags.index(w) for w in extra if w.startswith("-") and w in flags), None)
    if first is not None:
        before = parser.parse_known_args(flags[:first])[0]
        if before.command:
            start = flags.index(before.command[0])
            meant = shlex.join(["mcpcost", "measure", *flags[:start], "--", *flags[start:]])
            raise UsageError(
                f"mcpcost measure: {flags[first]} is not a flag of mcpcost measure; the server "
                f"command and its own flags go after --: {terminal_line(meant)}"
            )
    named: argparse.Namespace = parser.parse_args(flags)  # raises, naming the unknown flag
    return named


def spec_from_args(
    flags: list[str], command: list[str], environ: Mapping[str, str] | None = None
) -> tuple[ServerSpec, argparse.Namespace]:
    args = parse_flags(flags)
    own_env = os.environ if environ is None else environ
    command = [*args.command, *command]
    if args.command_line is not None:
        if command:
            raise UsageError(
                "mcpcost measure: give either --command LINE or a command after --, not both"
            )
        try:
            command = shlex.split(args.command_line)
        except ValueError as exc:
            raise UsageError(f"mcpcost measure: --command cannot be split ({exc})") from None
        if not command:
            raise UsageError("mcpcost measure: --command is empty")
    if args.out is not None:
        check_out_dir(args.out)
        if args.name is not None:
            check_name(args.name)
    if args.docker and args.url is not None:
        raise UsageError("mcpcost measure: --docker applies to stdio commands, not --url")
    require_docker_for(args, "mcpcost measure", ("image", "ca_bundle"))
    if args.url is not None and command:
        raise UsageError("mcpcost measure: give either --url or a command after --, not both")
    if args.url is None and not command:
        raise UsageError(
            "mcpcost measure: give a command after -- (or --command LINE, or --url URL)"
        )
    if args.url is not None:
        if not re.match(r"^https?://[^/\s]+", args.url):
            raise UsageError(f"mcpcost measure: --url must be an http(s) URL, got {args.url!r}")
        if args.env or args.env_from or args.env_file or args.cwd:
            raise UsageError(
                "mcpcost measure: --env, --env-from, --env-file and --cwd apply to "
                "stdio commands only"
            )
        headers: dict[str, str] = {}
        if args.header_file:
            try:
                headers = parse_headers(header_file_lines(args.header_file))
            except UsageError:
                raise InputError(
                    f"mcpcost measure: --header-file {args.header_file}: every "
                    "line needs 'Name: value'"
                ) from None
        headers.update(parse_headers(args.header))
        name = args.name if args.name is not None else name_from_url(args.url)
        spec = ServerSpec.remote(
            name, args.url, transport=args.transport or TransportName.AUTO, headers=headers
        )
        return spec, args
    if args.header or args.header_file or args.transport:
        raise UsageError(
            "mcpcost measure: --header, --header-file and --transport apply to --url only"
        )
    if args.cwd is not None and not Path(args.cwd).is_dir():
        raise InputError(f"mcpcost measure: --cwd {args.cwd}: not a directory")
    env = env_from_sources(args.env, args.env_from, args.env_file, own_env)
    name = args.name if args.name is not None else name_from_command(command)
    return ServerSpec.stdio(
        name, command, env=env, cwd=args.cwd, launch_command=args.command_line
    ), args


def write_outputs(out_dir: Path, name: str, measurement: Measurement) -> tuple[Path, Path | None]:
    """Write the measurement under ``out_dir``, and its badge when it has a number (a failure
    is recorded, never shown on a badge); both in one transaction."""
    result_rel = f"results/{name}/measurement.json"
    badge_rel = f"badges/{name}.json" if measurement.has_number else None
    with open_tree(out_dir) as txn:
        txn.put(result_rel, render_measurement(measurement))
        if badge_rel is not None:
            txn.put(badge_rel, badge_file_text(measurement))
        txn.commit()
    return out_dir / result_rel, None if badge_rel is None else out_dir / badge_rel


# An environment variable's name as a server's error names it (BRAVE_API_KEY, GITHUB_TOKEN).
_ENV_NAME = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
_SECRET_ENDINGS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PAT")


def env_hint(m: Measurement, given: Sequence[str], own_env: Mapping[str, str]) -> str | None:
    """One line for a server that failed naming a variable it was not given: ``measure``
    passes the shell's environment to no server, so the fix is ``--env-from NAME``."""
    if m.has_number or not m.notes:
        return None
    names = []
    for found in _ENV_NAME.finditer(m.notes):
        name = found.group(0)
        if name in given or name in names:
            continue
        if name in own_env or name.endswith(_SECRET_ENDINGS):
            names.append(name)
    if not names:
        return None
    flags = " ".join(f"--env-from {n}" for n in names[:3])
    return (
        f"hint: the server names {', '.join(names[:3])}; measure does not pass your shell's "
        f"environment to a server: add {flags}"
    )


def summary_line(name: str, m: Measurement) -> str:
    """The result on one line, then the notes' further lines (the server's error keeps its line
    breaks), each indented and escaped for the terminal on its own."""
    if m.has_number:
        head = (
            f"{name}: {counted(m.total_tokens or 0, 'token', grouped=False)} across "
            f"{counted(m.tool_count or 0, 'tool')} ({m.status})"
        )
        lines = [head, *(f"  note: {n}" for n in (m.notes or "").splitlines() if n.strip())]
    else:
        first, *rest = (plain_reason(m.notes) if m.notes else "no details").splitlines() or [""]
        lines = [f"{name}: {m.status} — {first}", *(f"  {n}" for n in rest if n.strip())]
    return "\n".join(terminal_line(line) for line in lines)


def listings_line(m: Measurement) -> str | None:
    """What the server listed beside its tools (never in the number), or None."""
    if not m.listings:
        return None
    parts = []
    for kind in ListingKind:
        listing = m.listings.get(kind)
        if listing is None:
            continue
        if listing.error is not None:
            parts.append(f"{kind.words}: {plain_reason(listing.error)}")
        else:
            listed = counted(listing.count or 0, kind.word, kind.words)
            # an empty list's few tokens ("[]") are not worth a figure beside "0 prompts"
            cost = f" ({counted(listing.tokens or 0, 'token')})" if listing.count else ""
            parts.append(listed + cost)
    return terminal_line("  also listed, not in the number: " + "; ".join(parts))


def run(
    argv: list[str], out: TextIO, err: TextIO, *, environ: Mapping[str, str] | None = None
) -> int:

    flags, command = split_command(argv)
    spec, args = spec_from_args(flags, command, environ)
    clients = lens_clients(args.client)
    env = dict(os.environ if environ is None else environ)
    trust = container_trust("mcpcost measure", args.ca_bundle, env) if args.docker else None
    timeout: float = args.timeout
    launch = terminal_line(spec.display())
    err.write(f"measuring {spec.name}: {launch} (two captures, {timeout:g}s budget)\n")
    options = MeasureOptions(
        timeout_s=timeout, retry_timeouts=not args.no_retry, protocol=args.protocol
    )
    with contextlib.ExitStack() as stack:
        if args.docker:
            measured = _measure_in_container(spec, args, env, trust, options, err, stack)
            if measured is None:
                return EXIT_USAGE
            measurement = measured
        else:
            from mcpcost.measuring.containers import (
                engine_address,
                is_self_docker,
                self_docker_isolation,
                with_docker_host,
            )

            docker_host = engine_address(args.docker_host, env)
            run_spec = spec
            if docker_host is not None and not spec.is_remote and is_self_docker(spec.argv):
                run_spec = with_docker_host(spec, docker_host)
                options = dataclasses.replace(options, isolation=self_docker_isolation(docker_host))
            if spec.url is not None:
                authorizer = make_authorizer(spec.url, login_settings(args, env), env, err)
                sign_in_first(authorizer, spec.url, err)
                options = dataclasses.replace(options, sign_in=authorizer)
            # measure_server masks env/header values in notes; launchCommand is spec.display().
            measurement = measure_server(run_spec, options)
            if run_spec is not spec and measurement.has_number:
                measurement = measurement.with_(env_var_names=spec.env_names)
    if args.out is not None:
        try:
            paths = write_outputs(Path(args.out), spec.name, measurement)
        except OSError as exc:
            raise InputError(
                f"mcpcost measure: cannot write under {args.out}: {exc.strerror or exc}"
            ) from None
        if paths[1] is None:
            err.write(f"wrote {terminal_line(paths[0])} (no badge: no number)\n")
        else:
            err.write(f"wrote {terminal_line(paths[0])} and {terminal_line(paths[1])}\n")
    if clients and measurement.has_number:
        views = client_views(spec.name, measurement, clients)
        if args.json:
            out.write(render_client_views(spec.name, measurement, views))
        else:
            out.write(summary_line(spec.name, measurement) + "\n")
            out.write(client_table(views))
    elif args.json:
        out.write(render_measurement(measurement))
    else:
        out.write(summary_line(spec.name, measurement) + "\n")
        also = listings_line(measurement)
        if also is not None:
            out.write(also + "\n")
    hint = None if spec.is_remote else env_hint(measurement, spec.env_names, env)
    if hint is not None:
        err.write(terminal_line(hint) + "\n")
    return EXIT_OK if measurement.has_number else EXIT_CHECK_FAILED


def _measure_in_container(
    spec: ServerSpec,
    args: argparse.Namespace,
    env: dict[str, str],
    trust: HostTrust | None,
    options: MeasureOptions,
    err: TextIO,
    stack: contextlib.ExitStack,
) -> Measurement | None:
    """``--docker``: the measurement, or None (after one line on stderr) without an engine."""

    docker_host = engine_address(args.docker_host, env)
    here = os.getcwd()
    home = env.get("HOME") or str(Path.home())
    roots = (here, home, *((os.path.abspath(args.cwd),) if args.cwd else ()))
    containers = ContainerOptions(
        image_override=args.image,
        docker_host=docker_host,
        trust=trust,
        roots=roots,
        home=home,
        base_dir=here,
    )
    placement = place(spec, containers)
    if placement.plan is None:
        err.write("the command is itself a docker run: it runs on the host as written\n")
    else:
        err.write(f"in a container: {placement.isolation.image} ({placement.isolation.note})\n")
    engine = open_engine("mcpcost measure", docker_host, err, stack)
    if engine is None:
        return None
    return container_measure(engine.launcher, containers, options)(spec)
