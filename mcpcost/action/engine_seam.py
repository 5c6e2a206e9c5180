"""The one seam between the Action and the audit/measuring engine.

Config parsing is the audit engine's ``parse_project_config``; measuring one server is the
measuring layer's ``measure_server``; measuring every distinct launch once is the audit engine's
``measure_all``. Servers run with their working directory in the tree of the side they belong
to (``with_cwd``): head's in the workspace; a base launch that is the same as a head launch and
names nothing the pull request changed shares head's measurement (``mcpcost.action.sharing``),
every other base launch runs in a detached worktree of the base commit.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

from mcpcost.audit.engine import distinct_launches, measure_all
from mcpcost.configs.clients import ParseContext
from mcpcost.configs.config_file import ConfigFile
from mcpcost.configs.discovery import PROJECT_CONFIG_PATHS, parse_project_config
from mcpcost.core.model import Measurement
from mcpcost.core.record import replace
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring.signed_in import measure_with_environment_sign_in

MeasureServer = Callable[[ServerSpec, float], Measurement]


def project_config_paths() -> tuple[str, ...]:
    """The repository-level config paths of every supported client (globs allowed)."""
    return tuple(PROJECT_CONFIG_PATHS)


def parse_config(
    relative_path: str, text: str, *, environ: Mapping[str, str], workspace: str
) -> ConfigFile:
    """One config read from a git blob, parsed by the audit engine."""
    context = ParseContext(
        environ=dict(environ),
        home=environ.get("HOME", "/github/home"),
        cwd=workspace,
        project_key=workspace,
    )
    return parse_project_config(relative_path, text, context)


def default_measure_server(spec: ServerSpec, timeout_s: float) -> Measurement:
    """``measure_server``; remote servers signed in with ``MCPCOST_OAUTH_*`` credentials from the
    step's environment when there are any (docs/AUTH.md)."""
    return measure_with_environment_sign_in(spec, timeout_s=timeout_s, environ=os.environ)


def with_cwd(config: ConfigFile, root: str) -> ConfigFile:
    """Every local launch of ``config`` run from ``root`` (a relative ``cwd`` resolved in it).

    An absolute ``cwd`` is kept; remote servers have none.
    """

    def moved(spec: ServerSpec | None) -> ServerSpec | None:
        if spec is None or spec.is_remote:
            return spec
        if spec.cwd is not None and os.path.isabs(spec.cwd):
            return spec
        return replace(spec, cwd=os.path.normpath(os.path.join(root, spec.cwd or ".")))

    entries = tuple(replace(e, spec=moved(e.spec)) for e in config.entries)
    return replace(config, entries=entries)


def measure_configs(
    configs: Sequence[ConfigFile], measure: MeasureServer, *, timeout_s: float, concurrency: int
) -> dict[str, Measurement]:
    """Every distinct launch across ``configs`` measured once, keyed by its launch key."""

    def one(spec: ServerSpec) -> Measurement:
        return measure(spec, timeout_s)

    return measure_all(distinct_launches(configs), one, concurrency=concurrency)
