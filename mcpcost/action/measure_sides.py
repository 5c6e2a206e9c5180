"""Measuring both sides of a change: configs read from git at each commit, every distinct
launch measured once, and the engine's judgement turned into the Action's ``Outcome``.

Head's servers run in the workspace. A base launch that equals a head launch and names nothing
the pull request changed shares head's measurement; every other base launch runs in a detached
worktree of the base commit (``mcpcost.action.sharing``).
"""

from __future__ import annotations

import os

from mcpcost.action import engine_seam
from mcpcost.action.engine_seam import MeasureServer, measure_configs, with_cwd
from mcpcost.action.gitrefs import Git, matching
from mcpcost.action.judge import Judgement, config_views, judge, verdict_of
from mcpcost.action.outcome import Outcome
from mcpcost.action.runner_env import Log, Runner
from mcpcost.action.runner_files import mask_commands
from mcpcost.action.settings import Settings
from mcpcost.action.sharing import needs_worktree, place
from mcpcost.configs.config_file import ConfigFile
from mcpcost.core.model import Measurement
from mcpcost.core.record import Record, replace
from mcpcost.errors import InputError
from mcpcost.render.sarif_report import entry_lines
from mcpcost.runtime.clock import iso_utc, utc_now


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
    patterns = settings.config or engine_seam.project_config_paths()
    paths = matching(git.files(sha), [prefix + p for p in patterns])
    configs: dict[str, ConfigFile] = {}
    workspace = os.path.normpath(
        os.path.join(runner.workspace if root is None else root, settings.working_directory)
    )
    for path in paths:
        text = git.read(sha, path)
        if text is not None:
            parsed = engine_seam.parse_config(
                path[len(prefix) :], text, environ=runner.environ, workspace=workspace
            )
            configs[path] = replace(parsed, source=path)
    return configs


class Judged(Record, frozen=True):
    outcome: Outcome
    judgement: Judgement


def measure_and_judge(
    settings: Settings, runner: Runner, *, git: Git, measure: MeasureServer, log: Log, compare: bool
) -> Judged:
    """Read both sides' configs from git, measure every distinct launch once, ask the engine."""
    pr_number: int | None = None
    base: dict[str, ConfigFile] | None = None
    if compare:
        pr_number, base_sha, head_sha = _pr(runner)
        git.ensure_commit(base_sha)
        git.ensure_commit(head_sha)
        base = load_configs(settings, runner, git, base_sha)
    else:
        base_sha, head_sha = (
            None,
            runner.sha or git.run("rev-parse", "HEAD").stdout.decode().strip(),
        )
    head_configs = load_configs(settings, runner, git, head_sha)
    workspace = os.path.normpath(os.path.join(runner.workspace, settings.working_directory))
    head = [with_cwd(c, workspace) for c in head_configs.values()]
    specs = [e.spec for c in [*(base or {}).values(), *head] for e in c.entries if e.spec]
    for line in mask_commands(v for spec in specs for v in spec.secret_values):
        log.line(line)
    base_side: list[ConfigFile] | None = None
    if base is not None and base_sha is not None:
        in_tree = needs_worktree(
            list(base.values()),
            workspace=workspace,
            repo_root=os.path.normpath(runner.workspace),
            head_keys={e.spec.launch_key() for c in head for e in c.live_entries if e.spec},
            changed=git.changed_files(base_sha, head_sha),
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
                measurements = _measure(settings, [*base_side, *head], measure, log)
        else:
            base_side = [with_cwd(c, workspace) for c in base.values()]
            measurements = _measure(settings, [*base_side, *head], measure, log)
    else:
        measurements = _measure(settings, head, measure, log)
    judgement = judge(
        base_side,
        head,
        measurements,
        budget=settings.budget,
        max_increase=settings.max_increase,
        max_increase_percent=settings.max_increase_percent,
        generated_at=iso_utc(utc_now()),
    )
    lines = entry_lines(head)
    problems = tuple(f"{c.source}: {p}" for c in head for p in c.problems)
    outcome = Outcome(
        configs=config_views(judgement, lines),
        verdict=verdict_of(judgement, settings.fail_on, lines),
        compared=compare,
        head_sha=head_sha,
        base_sha=base_sha,
        pr_number=pr_number,
        repository=runner.repository,
        run_url=runner.run_url,
        budget=settings.budget,
        max_increase=settings.max_increase,
        max_increase_percent=settings.max_increase_percent,
        versions={"mcp-context-cost": _version()},
        problems=problems,
    )
    return Judged(outcome, judgement)


def _measure(
    settings: Settings, configs: list[ConfigFile], measure: MeasureServer, log: Log
) -> dict[str, Measurement]:
    launches = {e.spec.launch_key() for c in configs for e in c.live_entries if e.spec}
    log.info(f"measuring {len(launches)} distinct launches across {len(configs)} config files")
    return measure_configs(
        configs, measure, timeout_s=settings.timeout, concurrency=settings.concurrency
    )


def _version() -> str:
    from mcpcost.version import __version__

    return __version__
