"""The library's audit call: config files (or discovery) in, an ``AuditReport`` value out.

``audit_configs(paths)`` reads the given config files, or, with no paths, finds the known
clients' configs as ``mcpcost audit`` does; it measures every distinct launch once with
``measure_server`` (or the ``measure`` function given) and returns the report. It prints
nothing; progress goes to an optional observer. Renderers and gates take the report it returns.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from mcpcost.audit.engine import DEFAULT_CONCURRENCY, MeasureFn, run_audit
from mcpcost.audit.progress import ProgressObserver
from mcpcost.configs.clients import ParseContext
from mcpcost.configs.clients.claude_code import settings_paths
from mcpcost.configs.config_file import ConfigFile, ConfigState
from mcpcost.configs.discovery import discover, load_explicit
from mcpcost.errors import InputError

if TYPE_CHECKING:
    from mcpcost.audit.deferral import SettingsSource
    from mcpcost.audit.report_model import AuditReport
    from mcpcost.runtime.clock import Clock

DEFAULT_TIMEOUT_S = 60.0


def read_if_exists(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        return None


def load_configs(
    paths: Sequence[str | os.PathLike[str]] | None,
    *,
    home: Path,
    cwd: Path,
    platform: str,
    environ: Mapping[str, str],
    clients: Collection[str] | None = None,
    trust_project: bool = False,
) -> list[ConfigFile]:
    """The given config files, parsed (InputError when one cannot be read), or with ``paths``
    None every known client's config found here (``clients`` narrows discovery). Files named
    in ``paths`` are the caller's choice and run; discovered project-level files run only as far
    as the client itself would run them, or entirely with ``trust_project``."""
    if paths is None:
        return discover(
            home=home,
            cwd=cwd,
            platform=platform,
            environ=environ,
            clients=clients,
            trust_project=trust_project,
        )
    if clients is not None:
        raise ValueError("clients narrows discovery; it cannot be combined with paths")
    context = ParseContext(
        environ=dict(environ),
        home=str(home),
        cwd=str(cwd),
        platform=platform,
        project_key=str(cwd),
        realpath=os.path.realpath,
    )
    files = load_explicit([Path(p) for p in paths], context=context)
    for f in files:
        if f.state == ConfigState.ERROR:
            if not (Path(f.source).exists() or Path(f.source).is_symlink()):
                raise InputError(f"{f.source}: no such file")
            raise InputError(f"{f.source}: {f.error or 'cannot be read'}")
    return files


def audit_configs(
    paths: Sequence[str | os.PathLike[str]] | None = None,
    *,
    measure: MeasureFn | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    concurrency: int = DEFAULT_CONCURRENCY,
    context_window: int | None = None,
    clients: Collection[str] | None = None,
    home: Path | None = None,
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
    platform: str | None = None,
    progress: ProgressObserver | None = None,
    now: Clock | None = None,
    trust_project: bool = False,
) -> AuditReport:
    """Audit config files (or, with no ``paths``, the configs discovery finds) and return the
    report. ``home``, ``cwd``, ``environ`` and ``platform`` default to this process's own;
    ``context_window`` (the size shares are computed against) to 200,000.

    A discovered project-level config (``.mcp.json``, ``.vscode/mcp.json``... in ``cwd``) came
    with the repository, so its servers are launched only when the client itself would run them
    (Claude Code's recorded approvals) or with ``trust_project=True``; the others appear in the
    report, not launched, with the reason."""
    env = dict(os.environ if environ is None else environ)
    home_dir = home or Path.home()
    cwd_dir = cwd or Path.cwd()
    plat = platform or sys.platform
    files = load_configs(
        paths,
        home=home_dir,
        cwd=cwd_dir,
        platform=plat,
        environ=env,
        clients=clients,
        trust_project=trust_project,
    )
    from mcpcost.measuring.server import measure_server
    from mcpcost.runtime.clock import iso_utc, utc_now

    return run_audit(
        files,
        measure=measure or partial(measure_server, timeout_s=timeout_s),
        concurrency=concurrency,
        context_window=context_window,
        progress=progress,
        generated_at=iso_utc((now or utc_now)()),
        shell_environ=env,
        settings=read_settings(home=home_dir, cwd=cwd_dir, platform=plat, environ=env),
    )


def read_settings(
    *, home: Path, cwd: Path, platform: str, environ: Mapping[str, str]
) -> tuple[SettingsSource, ...]:
    """The settings files that decide deferral for this home and project (absent ones skipped,
    unreadable ones recorded as such)."""
    from mcpcost.audit.deferral import read_settings_sources

    paths = settings_paths(home=str(home), cwd=str(cwd), platform=platform, environ=environ)
    return read_settings_sources(paths, read_if_exists)
