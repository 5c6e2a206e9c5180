"""``mcpcost snapshot``: a server's cost, committed beside its code, checked on every change.

    mcpcost snapshot [--update | --check] [--file PATH] [--gates PATH] [--floor TOKENS]
                     [--format text|json|markdown|sarif] [--json] [MEASURE FLAGS] [-- COMMAND...]

The server is the one after ``--`` (or ``--command``, ``--url`` and the other flags of
``mcpcost measure``), else the gate file's ``[server]`` (``GATE_FILE``, or ``[tool.mcpcost]``
in ``pyproject.toml``); each of the gate file's profiles is measured (docs/AUTHORS.md).

- no mode: measure, compare with the snapshot when there is one, apply the gates; write nothing.
- ``--update``: measure and (re)write the snapshot atomically; no gates.
- ``--check``: as no mode, and a server that no longer matches the snapshot fails.

Exit 0 pass, 1 a gate said no (or ``--check`` found a mismatch), 2 could not run (usage, an
unreadable or unknown-keyed gate file or snapshot, a server without a number).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from mcpcost.audit.lens_sessions import measured_server, server_views
from mcpcost.author.budget_gates import evaluate_gates
from mcpcost.author.fixes import all_fixes
from mcpcost.author.gate_file import GATE_FILE, PYPROJECT, Gates, parse_gate_file
from mcpcost.author.snapshot import (
    DEFAULT_PROFILE,
    DEFAULT_SNAPSHOT,
    SnapshotFile,
    check_profiles,
    comparable,
    parse_snapshot,
    profile_line,
    profile_snapshot,
    render_snapshot,
    tool_lines,
)
from mcpcost.author.snapshot_run import (
    SnapshotRun,
    markdown_lines,
    mismatch_failures,
    render_json,
    sarif_log,
    text_lines,
)
from mcpcost.cli.args import ArgParser
from mcpcost.cli.measure_clients import lens_clients
from mcpcost.cli.measure_cmd import spec_from_args
from mcpcost.cli.measure_inputs import split_command
from mcpcost.core.badge import render_badge
from mcpcost.core.jsonvalue import stringify_pretty
from mcpcost.core.model import ENCODING, METHODOLOGY_VERSION
from mcpcost.core.spec import ServerSpec, TransportName
from mcpcost.core.status import Status
from mcpcost.errors import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE, InputError, UsageError
from mcpcost.escaping.terminal import terminal_line
from mcpcost.measuring.server import MeasureOptions, measure_server
from mcpcost.runtime.output_tree import atomic_write
from mcpcost.runtime.world_files import read_world_file
from mcpcost.version import __version__

MAX_FILE_BYTES = 16 << 20  # a snapshot or a gate file
FORMATS = ("text", "json", "markdown", "sarif")

if TYPE_CHECKING:
    from mcpcost.audit.model_view import LensFinding
    from mcpcost.author.fixes import Fix
    from mcpcost.author.gate_file import GateFile
    from mcpcost.author.snapshot import ProfileSnapshot
    from mcpcost.author.snapshot_run import SnapshotRun
    from mcpcost.configs.config_file import ClientName
    from mcpcost.core.model import Measurement
    from mcpcost.core.spec import ServerSpec

Planned = tuple[str, "ServerSpec", float]  # a profile, its launch, its budget in seconds


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost snapshot",
        description="Record a server's tool-definition cost in a committed file and check "
        "changes against it and against the gate file.",
        epilog="The server's flags are those of mcpcost measure (the command after --). "
        "Exit codes: 0 pass, 1 a gate said no or --check found a change, 2 could not run.",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--update", action="store_true", help="(re)write the snapshot file")
    mode.add_argument(
        "--check", action="store_true", help="fail (exit 1) when the server no longer matches"
    )
    p.add_argument("--file", metavar="PATH", help="the snapshot (default: mcpcost.snapshot.json)")
    p.add_argument(
        "--gates",
        metavar="PATH",
        help="the gate file (default: mcpcost.toml, else pyproject.toml's [tool.mcpcost])",
    )
    p.add_argument("--floor", type=int, metavar="TOKENS", help="list moves of at least this")
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument("--json", action="store_true", help="the same as --format json")
    p.add_argument(
        "--badge",
        metavar="PATH",
        help="also write a shields.io endpoint badge (the range with several profiles)",
    )
    p.add_argument(
        "--fixes",
        action="store_true",
        help="list fixes, each with its saving counted on the transformed capture",
    )
    p.add_argument(
        "--sarif", metavar="PATH", help="also write the SARIF log to PATH (one measurement)"
    )
    return p


def _read(path: Path) -> str | None:
    """A file's text (None: there is none), bounded; an unreadable one is an input error."""

    try:
        return read_world_file(path, max_bytes=MAX_FILE_BYTES).decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"mcpcost snapshot: cannot read {path}: {reason}") from None


def find_gate_file(explicit: str | None, here: Path) -> tuple[GateFile | None, Path]:
    """The gate file (``GateFile`` or None) and the directory its paths are relative to."""

    if explicit is not None:
        path = Path(explicit)
        text = _read(path)
        if text is None:
            raise InputError(f"mcpcost snapshot: --gates {explicit}: no such file")
        return (
            parse_gate_file(text, str(path), pyproject=path.name == PYPROJECT),
            path.parent,
        )
    text = _read(here / GATE_FILE)
    if text is not None:
        return parse_gate_file(text, GATE_FILE), here
    text = _read(here / PYPROJECT)
    if text is not None:
        return parse_gate_file(text, PYPROJECT, pyproject=True), here
    return None, here


def run(
    argv: list[str], out: TextIO, err: TextIO, *, environ: Mapping[str, str] | None = None
) -> int:

    flags, command = split_command(argv)
    own, rest = build_parser().parse_known_args(flags)
    fmt = "json" if own.json else own.format
    env = dict(os.environ if environ is None else environ)
    here = Path.cwd()
    gate_file, base = find_gate_file(own.gates, here)
    floor = own.floor if own.floor is not None else (gate_file.floor if gate_file else 10)
    if floor < 0:
        raise UsageError("mcpcost snapshot: --floor must be 0 or more")
    if own.file is not None:
        shown: str = own.file
        snap_path = Path(own.file)
    else:
        shown = gate_file.snapshot if gate_file and gate_file.snapshot else DEFAULT_SNAPSHOT
        snap_path = base / shown

    gates = gate_file.gates if gate_file is not None else Gates()
    clients = _clients(gates.clients)
    specs = _profile_specs(rest, command, gate_file, base, env)
    live = _measure(specs, err)
    if live is None:
        return EXIT_USAGE
    profiles, measurements = live

    if own.update:
        snapshot = SnapshotFile(
            methodology_version=METHODOLOGY_VERSION,
            encoding=ENCODING,
            tool_version=__version__,
            profiles=tuple(profiles),
        )
        atomic_write(snap_path, render_snapshot(snapshot))
        total = ", ".join(f"{p.profile} {p.total_tokens:,}" for p in profiles)
        err.write(f"wrote {terminal_line(shown)} ({terminal_line(total)} tokens)\n")
        return EXIT_OK

    text = _read(snap_path)
    if text is None:
        if own.check:
            raise InputError(
                f"mcpcost snapshot: no snapshot at {shown}: record one with mcpcost snapshot "
                "--update"
            )
        committed = SnapshotFile(
            methodology_version=METHODOLOGY_VERSION,
            encoding=ENCODING,
            tool_version=__version__,
            profiles=(),
        )
    else:
        committed = parse_snapshot(text, shown)
        why = comparable(committed)
        if why is not None:
            raise InputError(f"mcpcost snapshot: {shown}: {why}")
    checks = check_profiles(committed, profiles, floor=floor)
    if gates.needs_snapshot and text is None:
        raise InputError(
            f"mcpcost snapshot: the gates compare with {shown}, which does not exist: record "
            "it with mcpcost snapshot --update"
        )
    findings = _client_findings(clients, specs, measurements)
    failures = evaluate_gates(gates, checks, findings)
    if own.check:
        failures = (*mismatch_failures(checks), *failures)
    outcome = SnapshotRun(
        snapshot_path=shown,
        checks=checks,
        failures=failures,
        checking=own.check,
        gates_run=gates.any,
        fixes=_fixes(specs, measurements) if own.fixes else (),
    )
    sarif = ""
    if fmt == "sarif" or own.sarif:
        lines = tool_lines(text or "")
        where = {c.profile: profile_line(text or "", c.profile) for c in checks}
        sarif = stringify_pretty(sarif_log(outcome, lines, where)) + "\n"
    if own.sarif:
        atomic_write(Path(own.sarif), sarif)
    if own.badge:
        atomic_write(Path(own.badge), _badge(outcome) + "\n")
    if fmt == "json":
        out.write(render_json(outcome))
    elif fmt == "markdown":
        out.write("\n".join(markdown_lines(outcome)) + "\n")
    elif fmt == "sarif":
        out.write(sarif)
    else:
        out.write("".join(terminal_line(line) + "\n" for line in text_lines(outcome)))
    return EXIT_OK if outcome.passed else EXIT_CHECK_FAILED


def _clients(names: Sequence[str]) -> list[ClientName]:
    """The clients the gates name, checked before anything is measured."""
    if not names:
        return []

    return lens_clients(list(names))


def _profile_specs(
    rest: list[str],
    command: list[str],
    gf: GateFile | None,
    base: Path,
    env: Mapping[str, str],
) -> list[Planned]:
    """(profile, launch, timeout) for each profile to measure."""

    if rest or command:
        spec, args = spec_from_args(rest, command, env)
        timeout: float = args.timeout
    elif gf is not None and gf.server is not None:
        s = gf.server
        timeout = s.timeout
        name = s.name or base.resolve().name or "server"
        if s.url is not None:
            spec = ServerSpec.remote(name, s.url, transport=TransportName.AUTO)
        else:
            cwd = str((base / s.cwd).resolve()) if s.cwd else str(base.resolve())
            spec = ServerSpec.stdio(name, list(s.command), env=s.env, cwd=cwd)
    else:
        raise UsageError(
            "mcpcost snapshot: give the server (a command after --, or --url), or a [server] "
            "table in mcpcost.toml (or [tool.mcpcost.server] in pyproject.toml)"
        )
    if gf is None or not gf.profiles:
        return [(DEFAULT_PROFILE, spec, timeout)]
    out: list[Planned] = []
    for p in gf.profiles:
        if spec.is_remote and (p.args or p.env):
            raise UsageError(
                f"mcpcost snapshot: profile {p.name}: args and env apply to a command, not a URL"
            )
        if spec.is_remote:
            out.append((p.name, spec, timeout))
            continue
        merged = dict(spec.env) | dict(p.env)
        out.append(
            (
                p.name,
                ServerSpec.stdio(spec.name, [*spec.argv, *p.args], env=merged, cwd=spec.cwd),
                timeout,
            )
        )
    return out


def _measure(
    specs: Sequence[Planned], err: TextIO
) -> tuple[list[ProfileSnapshot], dict[str, Measurement]] | None:
    """Each profile measured, in order; None (after a line on stderr) when one has no number."""

    profiles: list[ProfileSnapshot] = []
    measurements: dict[str, Measurement] = {}
    for name, spec, timeout in specs:
        err.write(f"measuring profile {terminal_line(name)}: {terminal_line(spec.display())}\n")
        m = measure_server(spec, MeasureOptions(timeout_s=timeout))
        if not m.has_number:
            err.write(
                f"mcpcost snapshot: profile {terminal_line(name)}: {m.status}: "
                f"{terminal_line((m.notes or 'no details').splitlines()[0])}\n"
            )
            return None
        if m.status is Status.DYNAMIC:
            err.write(
                f"note: profile {terminal_line(name)} served two different tool lists; the "
                "snapshot holds the first\n"
            )
        profiles.append(profile_snapshot(name, spec.name, m))
        measurements[name] = m
    return profiles, measurements


def _badge(o: SnapshotRun) -> str:
    """The range's badge with several profiles, else the one profile's number."""

    if o.range is not None:
        return o.range.badge
    live = [c.live for c in o.checks if c.live is not None]
    return render_badge(live[0].total_tokens if live else None)


def _fixes(
    specs: Sequence[Planned], measurements: Mapping[str, Measurement]
) -> tuple[tuple[str, Fix], ...]:
    """Each profile's fixes, counted on its own capture."""

    out: list[tuple[str, Fix]] = []
    for profile, spec, _ in specs:
        capture = measurements[profile].raw_tools_capture
        if isinstance(capture, list):
            out += [(profile, f) for f in all_fixes(capture, spec.name)]
    return tuple(out)


def _client_findings(
    clients: Sequence[ClientName], specs: Sequence[Planned], measurements: Mapping[str, Measurement]
) -> dict[str, list[tuple[str, LensFinding]]]:
    """Per profile, (client label, finding) of each client the gates name, under its defaults
    (the server under its own name, as a client's config would name it)."""
    if not clients:
        return {}

    out: dict[str, list[tuple[str, LensFinding]]] = {}
    for profile, spec, _ in specs:
        m = measurements[profile]
        views = server_views(measured_server(spec.name, m), m.total_tokens or 0, clients)
        out[profile] = [(v.label, f) for v in views for f in v.model_view.findings]
    return out
