"""``mcpcost audit``: what the servers in your MCP configs cost, per config file, and the gates.

Order of work: flags are parsed; ``--baseline`` and ``--claude`` are read and shape-checked; the
configs are found (or the ``--config`` files read) with the clients' settings files; only then is
anything launched, and the audit itself is ``mcpcost.audit.compose.run_audit``, as the library
and the Action run it: this module chooses the measure function (``--docker``, sign-in) and
renders.
Results go to stdout (human text, ``--json`` or ``--markdown``), progress to stderr. Exit 0 ok;
1 a gate failed (``--fail-on-unmeasured``: a live server without a number, each named on stderr)
or nothing could be audited (no config with a live server, or every server failed); 2 usage or
unreadable input. Secrets never reach any output: env and header names only, commands and URLs
masked.

``--docker`` runs each stdio server in a fresh container per capture
(``mcpcost.measuring.containers``, as ``sweep --docker``): the config's env VALUES go into the
container's environment (never to a host process), the server's cwd and the argv paths that exist
under the project, the home directory or the config's own directory are mounted read-only at the
same path. Commands that are themselves ``docker run`` run on the host as written; remote servers
are reached from the host. ``--json`` then carries each server's ``isolation``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from mcpcost.audit.baseline import parse_baseline
from mcpcost.audit.compose import (
    Audit,
    AuditInputs,
    AuditOptions,
    GateRequest,
    MeasureLaunch,
    read_inputs,
    run_audit,
)
from mcpcost.audit.gates import Gate
from mcpcost.audit.progress import progress_for
from mcpcost.cli.audit_args import build_parser, client_names
from mcpcost.cli.auth_cmd import login_settings, signed_in_measure
from mcpcost.cli.container_args import (
    container_trust,
    open_engine,
    require_docker_for,
)
from mcpcost.cli.io import read_source
from mcpcost.cli.streams import terminal_width
from mcpcost.configs.config_file import ConfigFile
from mcpcost.configs.discovery import TRUST_FLAG, withheld
from mcpcost.core.divergence import parse_divergence
from mcpcost.core.jsonvalue import parse_json
from mcpcost.errors import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    InputError,
    OutputError,
    UsageError,
)
from mcpcost.escaping.terminal import terminal_line
from mcpcost.measuring import MeasureOptions
from mcpcost.measuring.containers import ContainerOptions, container_measure, engine_address
from mcpcost.render.renderer import RENDERERS
from mcpcost.render.report_layout import DEFAULT_WIDTH, Layout, OutputFormat
from mcpcost.render.run_report import run_report
from mcpcost.render.sarif_report import entry_lines, render_sarif
from mcpcost.runtime.clock import iso_utc, utc_now
from mcpcost.runtime.output_tree import atomic_write

if TYPE_CHECKING:
    from datetime import datetime

    from mcpcost.audit.baseline import Baseline
    from mcpcost.audit.gates import GateFinding
    from mcpcost.audit.report_model import AuditReport
    from mcpcost.core.divergence import DivergenceRun
    from mcpcost.core.model import Isolation


def load_baseline(path: str) -> Baseline:
    """Read and shape-check a baseline before anything is launched; InputError (exit 2)."""

    try:
        data = read_source(path)
    except InputError as exc:
        raise InputError(f"cannot read baseline {exc}") from None
    try:
        return parse_baseline(parse_json(data))
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None


def load_divergence(source: str) -> DivergenceRun:

    data = read_source(source)
    try:
        return parse_divergence(parse_json(data))
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None


def find_inputs(
    args: argparse.Namespace,
    *,
    home: Path,
    cwd: Path,
    platform: str,
    environ: Mapping[str, str],
) -> AuditInputs:
    """The configs to audit and the clients' settings files (``compose.read_inputs``)."""
    if args.config and args.client:
        raise UsageError(
            "mcpcost audit: --client filters discovery; it cannot be combined with --config"
        )
    clients = client_names(args.client)
    return read_inputs(
        args.config or None,
        home=home,
        cwd=cwd,
        platform=platform,
        environ=environ,
        clients=set(clients) or None,
        trust_project=args.trust_project,
    )


def gate_request(args: argparse.Namespace) -> GateRequest:
    return GateRequest(
        budget=args.budget,
        budget_judges="full" if args.budget_full else "upfront",
        max_increase=args.max_increase,
        max_increase_percent=args.max_increase_percent,
        require_measured=args.fail_on_unmeasured,
        limits=args.fail_on_limits,
    )


def run(
    argv: list[str],
    out: TextIO,
    err: TextIO,
    *,
    measure: MeasureLaunch | None = None,
    environ: Mapping[str, str] | None = None,
    home: Path | None = None,
    cwd: Path | None = None,
    platform: str | None = None,
    now: Callable[[], datetime] | None = None,
) -> int:
    args = build_parser().parse_args(argv)
    require_docker_for(args, "mcpcost audit", ("image", "docker_host", "ca_bundle"))
    if (
        args.max_increase is not None or args.max_increase_percent is not None
    ) and not args.baseline:
        raise UsageError("mcpcost audit: --max-increase needs --baseline REPORT.json")
    if args.budget_full and args.budget is None:
        raise UsageError(
            "mcpcost audit: --budget-full says what --budget N judges; give --budget N"
        )
    if args.list_configs and args.sarif:
        raise UsageError("mcpcost audit: --sarif reports an audit; --list-configs launches none")
    env = dict(os.environ if environ is None else environ)
    home_dir = home or Path.home()
    cwd_dir = cwd or Path.cwd()
    plat = platform or sys.platform
    baseline = load_baseline(args.baseline) if args.baseline else None
    divergence = load_divergence(args.claude) if args.claude else None
    inputs = find_inputs(args, home=home_dir, cwd=cwd_dir, platform=plat, environ=env)
    files = list(inputs.configs)
    held = withheld(files)
    if held and not args.list_configs:
        err.write(
            f"{len(held)} server(s) of project configs held back (mcpcost starts a "
            "project config's servers only where its client would start them unasked): "
            f"{', '.join(name for _, name in held)}; {TRUST_FLAG} starts them\n"
        )
    if args.list_configs:
        from mcpcost.cli.config_listing import listing_json, listing_text

        out.write(listing_json(files) if args.json else listing_text(files))
        return EXIT_OK if files else EXIT_CHECK_FAILED
    with contextlib.ExitStack() as stack:
        if args.docker and measure is None:
            measure = _container_measure(args, env, home_dir, cwd_dir, files, err, stack)
            if measure is None:
                return EXIT_USAGE
        elif measure is None:
            measure = _host_measure(args, env, err)

        options = AuditOptions(
            concurrency=args.concurrency,
            context_window=args.context,
            divergence=divergence,
            gates=gate_request(args),
            generated_at=iso_utc((now or utc_now)()),
        )
        audit = run_audit(
            inputs,
            measure=measure,
            options=options,
            baseline=baseline,
            progress=progress_for(err),
        )
        return _render(args, out, err, files, audit, env, cwd_dir)


def _host_measure(args: argparse.Namespace, env: dict[str, str], err: TextIO) -> MeasureLaunch:
    """Each server measured on this machine, signed in where the flags ask (checked before
    anything is launched, so a usage error launches nothing)."""
    sign_in = login_settings(args, env)
    return signed_in_measure(MeasureOptions(timeout_s=args.timeout), sign_in, env, err)


def _render(
    args: argparse.Namespace,
    out: TextIO,
    err: TextIO,
    files: list[ConfigFile],
    audit: Audit,
    env: dict[str, str],
    cwd: Path,
) -> int:
    """The audit as the flags ask: text, ``--json`` or ``--markdown`` on stdout (the renderer
    table's), SARIF to a file, reasons on stderr; the exit code."""
    form = output_format(args)
    render = RENDERERS[form]()
    layout = Layout(by_file=args.by_file, width=text_width(env, out), details=args.details)
    report, diff, gates = audit.report, audit.diff, audit.gates
    if not report.configs:
        if form is OutputFormat.JSON:  # the empty report; the human formats say so on stderr
            out.write(render(report, None, None, layout))
        if args.sarif:
            write_sarif(args.sarif, audit, files, (), cwd)
        from mcpcost.cli.config_listing import nothing_found

        err.write(nothing_found(files, bool(args.config)))
        return EXIT_USAGE if report.unreadable else EXIT_CHECK_FAILED
    if args.docker:
        err.write(isolation_summary(launch_isolations(report)) + "\n")

    wants_gates = gate_request(args).any
    shown = gates if wants_gates else None
    # a config that cannot be read fails the run whatever was asked
    failing = tuple(f for f in gates.findings if wants_gates or f.gate is Gate.UNREADABLE)
    if args.sarif:
        write_sarif(args.sarif, audit, files, failing, cwd)
    out.write(render(report, diff, shown, layout))
    # the budget and increase blocks already print their own reasons
    shown_elsewhere = {
        *(gates.budget.findings if gates.budget else ()),
        *(gates.increase.findings if gates.increase else ()),
    }
    for finding in failing:
        if finding not in shown_elsewhere:
            err.write(f"{finding.gate.upper()} FAIL: {terminal_line(finding.text)}\n")
    if report.unreadable:  # a config that cannot be read hides its servers: unreadable input
        return EXIT_USAGE
    if not report.measured_any:
        err.write("no server could be measured: nothing was audited\n")
        return EXIT_CHECK_FAILED
    return EXIT_OK if gates.passed else EXIT_CHECK_FAILED


def output_format(args: argparse.Namespace) -> OutputFormat:
    """The stdout format the flags ask for (``--json`` and ``--markdown`` exclude each other)."""
    if args.json:
        return OutputFormat.JSON
    return OutputFormat.MARKDOWN if args.markdown else OutputFormat.TEXT


def text_width(environ: Mapping[str, str], out: TextIO) -> int:
    """The width the text report fits (``streams.terminal_width``, the report's default)."""
    return terminal_width(environ, out, DEFAULT_WIDTH)


def write_sarif(
    path: str, audit: Audit, files: list[ConfigFile], failing: tuple[GateFinding, ...], cwd: Path
) -> None:
    """``--sarif``: the one SARIF builder over the JSON report with its judged findings: what
    fails the run (``failing``: the gates asked for, and any unreadable config) as errors;
    every other server without a number, and every client-lens finding that breaks something
    but was not gated, as warnings; the lens findings that break nothing as notes."""

    doc = run_report(audit, lines=entry_lines(files), fail_on={f.gate for f in failing})
    default = files[0].source if files else None
    text = render_sarif(doc, base_dir=cwd.resolve(), default_source=default)
    try:
        atomic_write(path, text)
    except OutputError as exc:
        raise OutputError(f"mcpcost audit: --sarif: {exc}") from None


def launch_isolations(report: AuditReport) -> list[Isolation]:
    """How each distinct launch of the report was run (one entry per launch)."""
    seen: dict[str, Isolation] = {}
    for config in report.configs:
        for server in (*config.servers, *config.skipped):
            if server.launch_key is not None and server.isolation is not None:
                seen.setdefault(server.launch_key, server.isolation)
    return list(seen.values())


def isolation_summary(isolations: Iterable[Isolation]) -> str:
    """One line: how many launches ran in our containers, as their own docker run, on the host."""
    found = list(isolations)
    boxed = sum(1 for i in found if i.docker and i.image is not None)
    own = sum(1 for i in found if i.docker and i.image is None)
    host = len(found) - boxed - own
    return (
        f"--docker: {boxed} launch(es) in containers, {own} as their own docker run on the "
        f"host, {host} on the host (remote)"
    )


def _container_measure(
    args: argparse.Namespace,
    env: dict[str, str],
    home: Path,
    cwd: Path,
    files: list[ConfigFile],
    err: TextIO,
    stack: contextlib.ExitStack,
) -> MeasureLaunch | None:
    """The ``--docker`` measure function, or None (after one line on stderr) without an engine."""

    trust = container_trust("mcpcost audit", args.ca_bundle, env)
    docker_host = engine_address(args.docker_host, env)
    config_dirs = [os.path.dirname(os.path.abspath(f.source)) for f in files]
    roots = tuple(dict.fromkeys([str(cwd), str(home), *config_dirs]))
    options = ContainerOptions(
        image_override=args.image,
        docker_host=docker_host,
        trust=trust,
        roots=roots,
        home=str(home),
        base_dir=str(cwd),
    )
    engine = open_engine("mcpcost audit", docker_host, err, stack)
    if engine is None:
        return None
    err.write(f"--docker: stdio servers run in containers (engine {engine.label})\n")
    return container_measure(engine.launcher, options, MeasureOptions(timeout_s=args.timeout))
