"""Measuring both sides of a change: configs read from git at each commit, then one audit
(``mcpcost.audit.compose.run_audit``, as ``mcpcost audit`` runs it) with the base side as the
head's baseline, written as the audit's JSON report with the run's findings
(``mcpcost.render.run_report``): the one document the Action publishes, saves and renders.

Head's servers run in the workspace. A base launch that equals a head launch and names nothing
the pull request changed shares head's measurement; every other base launch runs in a detached
worktree of the base commit (``mcpcost.action.sharing``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from mcpcost.action.gitrefs import Git, matching
from mcpcost.action.repo_configs import parse_config, project_config_paths, with_cwd
from mcpcost.action.runner_env import Log, Runner
from mcpcost.action.runner_files import mask_commands
from mcpcost.action.settings import Settings
from mcpcost.action.sharing import needs_worktree, place, touched_entries
from mcpcost.audit.compose import (
    Audit,
    AuditInputs,
    AuditOptions,
    BaseSide,
    GateRequest,
    distinct_launches,
    run_audit,
)
from mcpcost.audit.gates import Gate
from mcpcost.audit.lens_sessions import measured_server, server_views
from mcpcost.configs.clients import KNOWN_CLIENTS
from mcpcost.configs.config_file import ClientName, ConfigFile
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.errors import InputError
from mcpcost.measuring.server import MeasureOptions, measure_server
from mcpcost.measuring.signed_in import environment_sign_in
from mcpcost.render.json_report import model_view_to_json
from mcpcost.render.run_report import run_report
from mcpcost.render.sarif_report import entry_lines
from mcpcost.runtime.clock import iso_utc, utc_now

# How the Action measures one server: ``measure_server``'s own shape, the timeout given per call
# (the Action's ``timeout`` input); the audit's ``MeasureLaunch`` binds it.
MeasureServer = Callable[[ServerSpec, float], Measurement]


def default_measure_server(spec: ServerSpec, timeout_s: float) -> Measurement:
    """``measure_server``; remote servers signed in with ``MCPCOST_OAUTH_*`` credentials from the
    step's environment when there are any, their secrets sent only to the authorization server
    ``MCPCOST_OAUTH_ISSUER`` names (a pull request may name any remote: docs/AUTH.md)."""
    sign_in = environment_sign_in(spec, os.environ, issuer_required=True)
    return measure_server(spec, MeasureOptions(timeout_s=timeout_s, sign_in=sign_in))


PERSISTED_TOKEN_WARNING = (
    "the checkout keeps its token in .git/config, where the servers this pull request names "
    "can read it; check out with `persist-credentials: false` (docs/SECURITY.md)"
)


def runner_masks(specs: Iterable[ServerSpec]) -> list[str]:
    """``::add-mask::`` lines for the secrets the configs reached (variable references and
    ``envFile`` values: ``ServerSpec.secrets``), never for a value the config spells out: that
    is in the repository already, and masking it would let a pull request choose which words
    (``FAIL``, ``error``...) are blanked in the whole job's log."""
    return mask_commands(v for spec in specs for v in spec.secrets)


def _pr(runner: Runner) -> tuple[int, str, str]:
    pr = runner.payload.get("pull_request")
    if not isinstance(pr, dict):
        raise InputError("the event payload has no pull_request object")
    try:
        return int(pr["number"]), str(pr["base"]["sha"]), str(pr["head"]["sha"])
    except (KeyError, TypeError, ValueError):
        raise InputError("the pull_request payload lacks number, base.sha or head.sha") from None


def load_configs(
    settings: Settings, runner: Runner, git: Git, sha: str, *, root: str | None = None
) -> dict[str, ConfigFile]:
    """The configs at ``sha``, parsed with ``root`` (default: the runner's workspace) joined
    with the working directory as ``${workspaceFolder}`` and the working directory."""
    prefix = (
        "" if settings.working_directory == "." else settings.working_directory.rstrip("/") + "/"
    )
    patterns = settings.config or project_config_paths()
    paths = matching(git.files(sha), [prefix + p for p in patterns])
    configs: dict[str, ConfigFile] = {}
    tree = os.path.normpath(runner.workspace if root is None else root)
    workspace = os.path.normpath(os.path.join(tree, settings.working_directory))
    for path in paths:
        text = git.read(sha, path)
        if text is not None:
            parsed = parse_config(
                path[len(prefix) :], text, environ=runner.environ, workspace=workspace, tree=tree
            )
            configs[path] = replace(parsed, source=path)
    return configs


def _commits(
    settings: Settings, runner: Runner, git: Git, log: Log, compare: bool
) -> tuple[int | None, str | None, str, dict[str, ConfigFile] | None]:
    """The pull request number, base and head commits, and base's configs (when comparing)."""
    pr_number: int | None = None
    base: dict[str, ConfigFile] | None = None
    if compare:
        pr_number, base_sha, head_sha = _pr(runner)
        if git.persisted_credentials():
            log.command("warning", PERSISTED_TOKEN_WARNING)
        git.ensure_commit(base_sha)
        git.ensure_commit(head_sha)
        base = load_configs(settings, runner, git, base_sha)
        return pr_number, base_sha, head_sha, base
    head_sha = runner.sha or git.run("rev-parse", "HEAD").stdout.decode().strip()
    return pr_number, None, head_sha, base


def measure_and_judge(
    settings: Settings, runner: Runner, *, git: Git, measure: MeasureServer, log: Log, compare: bool
) -> tuple[dict[str, Any], Audit]:
    """Read both sides' configs from git, audit head with base as its baseline, and return the
    report document (``run_report``: findings judged by ``fail-on``, the run's commits and pull
    request) with the audit it was written from."""
    pr_number, base_sha, head_sha, base = _commits(settings, runner, git, log, compare)
    head_configs = load_configs(settings, runner, git, head_sha)
    workspace = os.path.normpath(os.path.join(runner.workspace, settings.working_directory))
    head = [with_cwd(c, workspace) for c in head_configs.values()]
    specs = [e.spec for c in [*(base or {}).values(), *head] for e in c.entries if e.spec]
    for line in runner_masks(specs):
        log.line(line)
    base_side: list[ConfigFile] | None = None
    server_lenses: list[dict[str, Any]] = []
    touched: frozenset[tuple[str, str]] = frozenset()
    if base is not None and base_sha is not None:
        changed = git.changed_files(base_sha, head_sha)
        repo_root = os.path.normpath(runner.workspace)
        in_tree = needs_worktree(
            list(base.values()),
            workspace=workspace,
            repo_root=repo_root,
            head_keys={e.spec.launch_key() for c in head for e in c.live_entries if e.spec},
            changed=changed,
        )
        touched = touched_entries(
            list(head_configs.values()), workspace=workspace, repo_root=repo_root, changed=changed
        )
        local = sum(
            1 for c in base.values() for e in c.live_entries if e.spec and not e.spec.is_remote
        )
        log.info(
            f"base side: {local - len(in_tree)} of {local} local launches share head's "
            f"measurement; {len(in_tree)} run from a worktree of the base commit"
        )
        if in_tree:
            # they run base's files: a detached worktree, never the user's checkout
            # named like the checkout, so ${workspaceFolderBasename} expands the same there
            with git.worktree(
                base_sha,
                runner.environ.get("RUNNER_TEMP") or None,
                name=os.path.basename(os.path.normpath(runner.workspace)),
            ) as tree:
                there = os.path.normpath(os.path.join(tree, settings.working_directory))
                # parsed again against the worktree: ${workspaceFolder} must name base's files
                in_base_tree = load_configs(settings, runner, git, base_sha, root=tree)
                try:
                    base_side = [
                        place(c, in_base_tree[path], here=workspace, there=there, moved=in_tree)
                        for path, c in base.items()
                    ]
                except (KeyError, ValueError) as exc:
                    raise InputError(f"cannot place the base side in its worktree: {exc}") from None
                audit = _audit(settings, head, base_side, measure, log, touched)
        else:
            base_side = [with_cwd(c, workspace) for c in base.values()]
            audit = _audit(settings, head, base_side, measure, log, touched)
    else:
        audit, server_lenses = _audit_head_only(settings, head, measure, log)
    run = {
        "repository": runner.repository,
        "prNumber": pr_number,
        "baseSha": base_sha,
        "headSha": head_sha,
        "runUrl": runner.run_url,
        "clients": list(settings.clients),
    }
    return _report_document(settings, audit, head, run, server_lenses), audit


def _audit_head_only(
    settings: Settings, head: list[ConfigFile], measure: MeasureServer, log: Log
) -> tuple[Audit, list[dict[str, Any]]]:
    """The audit of head alone, and each measured server through each client's lens."""
    measured: dict[str, Measurement] = {}

    def recording(spec: ServerSpec, timeout_s: float) -> Measurement:
        m = measured[spec.launch_key()] = measure(spec, timeout_s)
        return m

    audit = _audit(settings, head, None, recording, log)
    return audit, servers_through_clients(head, measured, settings.clients)


def _report_document(
    settings: Settings,
    audit: Audit,
    head: list[ConfigFile],
    run: dict[str, Any],
    server_lenses: list[dict[str, Any]],
) -> dict[str, Any]:
    """The run's report document, its sessions narrowed to the chosen clients (if any)."""
    keys = (
        {x.key for x in audit.report.sessions if x.client in settings.clients}
        if settings.clients
        else None
    )
    return run_report(
        audit,
        lines=entry_lines(head),
        fail_on=settings.fail_on,
        sessions=keys,
        run=run,
        server_lenses=server_lenses,
    )


def _audit(
    settings: Settings,
    head: list[ConfigFile],
    base: list[ConfigFile] | None,
    measure: MeasureServer,
    log: Log,
    touched: frozenset[tuple[str, str]] = frozenset(),
) -> Audit:
    """The audit of head, with base (when there is one) as its baseline: every distinct launch of
    both sides measured once. Settings files on the runner decide nothing about a repository's
    configs, so none are read (``settings=None``), nor the runner's environment."""
    configs = [*(base or ()), *head]
    launches = distinct_launches(configs)
    log.info(f"measuring {len(launches)} distinct launches across {len(configs)} config files")
    options = AuditOptions(
        concurrency=settings.concurrency,
        gates=GateRequest(
            budget=settings.budget,
            budget_judges="full" if settings.budget_full else "upfront",
            max_increase=settings.max_increase,
            max_increase_percent=settings.max_increase_percent,
            require_measured=True,
            limits=Gate.LIMITS in settings.fail_on,
        ),
        generated_at=iso_utc(utc_now()),
    )

    def one(spec: ServerSpec) -> Measurement:
        return measure(spec, settings.timeout)

    return run_audit(
        AuditInputs(configs=tuple(head)),
        measure=one,
        options=options,
        baseline=BaseSide(configs=tuple(base), touched=touched) if base is not None else None,
    )


def servers_through_clients(
    head: list[ConfigFile], measured: dict[str, Measurement], clients: tuple[str, ...]
) -> list[dict[str, Any]]:
    """Each measured head server alone through each client's lens (``clients``; empty: every
    known client) under the client's defaults, as ``mcpcost measure --client`` shows it: the
    report's ``serverLenses``, for the job summary of a server's own repository. One per
    launch."""

    names = [ClientName(c) for c in clients] or list(KNOWN_CLIENTS)
    out: dict[str, dict[str, Any]] = {}
    for config in head:
        for entry in config.live_entries:
            key = entry.spec.launch_key() if entry.spec else None
            m = measured.get(key or "")
            if key is None or key in out or m is None or not m.has_number:
                continue
            views = server_views(measured_server(entry.name, m), m.total_tokens or 0, names)
            out[key] = {
                "server": entry.name,
                "wireTokens": m.total_tokens or 0,
                "clients": [
                    {
                        "client": v.client,
                        "label": v.label,
                        "modelView": model_view_to_json(v.model_view),
                    }
                    for v in views
                ],
            }
    return list(out.values())
