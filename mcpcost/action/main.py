"""Entry point: ``main()`` builds the real collaborators; ``run()`` does the work and returns the
exit code (0 pass or nothing to do, 1 the gate failed, 2 bad input or a refused event).

Order matters: measure, judge, then write outputs, the summary, annotations, the comment and the
badge, and only then return the gate's verdict. Comment and badge failures only warn.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
import time
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, TextIO

import requests

from mcpcost.action import engine
from mcpcost.action.badge_commit import commit_badge
from mcpcost.action.comment import headline_config, marker, render_comment
from mcpcost.action.engine import MeasureServer, measure_configs, with_cwd
from mcpcost.action.github import GitHubClient, GitHubError
from mcpcost.action.gitrefs import Git, matching
from mcpcost.action.judge import Judgement, config_views, entry_lines, judge, verdict_of
from mcpcost.action.outcome import Outcome
from mcpcost.action.routing import Activity, route
from mcpcost.action.runner_files import (
    Annotation,
    append_text,
    capped_annotations,
    mask_commands,
    neutralize_log_line,
    render_outputs,
    workflow_command,
)
from mcpcost.action.settings import CommentMode, Settings, SettingsError
from mcpcost.action.sharing import needs_worktree, place
from mcpcost.action.sticky import upsert_comment
from mcpcost.action.summary import render_summary
from mcpcost.audit.config_file import ConfigFile
from mcpcost.audit.render_json import report_to_json
from mcpcost.core.badge import render_badge
from mcpcost.core.jsonvalue import stringify_pretty
from mcpcost.errors import InputError, McpcostError

COMMENT_PERMISSION = "pull-requests: write (or issues: write)"
BADGE_PERMISSION = "contents: write"
ARTIFACT_PERMISSION = "actions: read"
MAX_ARTIFACT_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True, kw_only=True)
class Runner:
    """What the runner tells a step through its environment."""

    event_name: str
    payload: Mapping[str, Any]
    repository: str
    sha: str
    ref: str
    workspace: str
    output_path: str | None
    summary_path: str | None
    api_url: str
    server_url: str
    run_id: str | None
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Runner:
        payload: Any = {}
        event_path = environ.get("GITHUB_EVENT_PATH")
        if event_path:
            try:
                with open(event_path, encoding="utf-8") as handle:
                    payload = json.load(handle)
            except (OSError, ValueError) as exc:
                raise InputError(f"cannot read the event payload {event_path}: {exc}") from None
        return cls(
            event_name=environ.get("GITHUB_EVENT_NAME", ""),
            payload=payload if isinstance(payload, dict) else {},
            repository=environ.get("GITHUB_REPOSITORY", ""),
            sha=environ.get("GITHUB_SHA", ""),
            ref=environ.get("GITHUB_REF", ""),
            workspace=environ.get("GITHUB_WORKSPACE") or os.getcwd(),
            output_path=environ.get("GITHUB_OUTPUT") or None,
            summary_path=environ.get("GITHUB_STEP_SUMMARY") or None,
            api_url=environ.get("GITHUB_API_URL") or "https://api.github.com",
            server_url=environ.get("GITHUB_SERVER_URL") or "https://github.com",
            run_id=environ.get("GITHUB_RUN_ID") or None,
            environ=environ,
        )

    @property
    def run_url(self) -> str | None:
        if not self.run_id or not self.repository:
            return None
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"


class Log:
    def __init__(self, out: TextIO) -> None:
        self.out = out

    def line(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def info(self, text: str) -> None:
        self.line(neutralize_log_line(text))

    def command(self, name: str, text: str, **props: str | int | None) -> None:
        self.line(workflow_command(name, text, **props))


def main() -> int:
    """Build the real collaborators from the environment and run."""
    environ = dict(os.environ)
    log = Log(sys.stdout)
    try:
        settings = Settings.from_environ(environ)
        runner = Runner.from_environ(environ)
    except (SettingsError, InputError) as exc:
        log.command("error", str(exc))
        out = environ.get("GITHUB_OUTPUT")
        if out:
            append_text(out, render_outputs({"status": "error", "failure-reasons": str(exc)}))
        return 2
    gh = GitHubClient(
        session=requests.Session(),
        api_url=runner.api_url,
        token=settings.github_token,
        sleep=time.sleep,
        clock=time.time,
    )
    git = Git(os.path.join(runner.workspace))
    return run(settings, runner, gh=gh, git=git, measure=engine.default_measure_server, log=log)


def run(
    settings: Settings,
    runner: Runner,
    *,
    gh: GitHubClient,
    git: Git,
    measure: MeasureServer,
    log: Log,
) -> int:
    decision = route(
        runner.event_name,
        runner.payload,
        ref=runner.ref,
        badge=settings.badge,
        allow_pull_request_target=settings.allow_pull_request_target,
    )
    log.info(f"mcp-context-cost: {decision.reason}")
    outputs: dict[str, str] = {}
    try:
        if decision.activity is Activity.REFUSE:
            log.command("error", decision.reason)
            outputs.update(status="error", **{"failure-reasons": decision.reason})
            return 2
        if decision.activity is Activity.SKIP:
            outputs["status"] = "skipped"
            return 0
        if decision.activity is Activity.POST_COMMENT:
            return post_saved_comment(settings, runner, gh=gh, log=log, outputs=outputs)
        judged = measure_and_judge(
            settings,
            runner,
            git=git,
            measure=measure,
            log=log,
            compare=decision.activity is Activity.COMPARE_PR,
        )
        outcome = judged.outcome
        publish(
            settings,
            runner,
            judged,
            gh=gh,
            log=log,
            outputs=outputs,
            commit_badge_now=decision.commit_badge,
        )
        return 0 if outcome.verdict.passed else 1
    except (McpcostError, OSError) as exc:
        log.command("error", str(exc))
        outputs.update(status="error", **{"failure-reasons": str(exc)})
        return 2
    finally:
        if runner.output_path and outputs:
            append_text(runner.output_path, render_outputs(outputs))


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
    patterns = settings.config or engine.project_config_paths()
    paths = matching(git.files(sha), [prefix + p for p in patterns])
    configs: dict[str, ConfigFile] = {}
    workspace = os.path.normpath(
        os.path.join(runner.workspace if root is None else root, settings.working_directory)
    )
    for path in paths:
        text = git.read(sha, path)
        if text is not None:
            parsed = engine.parse_config(
                path[len(prefix) :], text, environ=runner.environ, workspace=workspace
            )
            configs[path] = replace(parsed, source=path)
    return configs


@dataclass(frozen=True)
class Judged:
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
        generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
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
) -> dict[str, Any]:
    launches = {e.spec.launch_key() for c in configs for e in c.live_entries if e.spec}
    log.info(f"measuring {len(launches)} distinct launches across {len(configs)} config files")
    return measure_configs(
        configs, measure, timeout_s=settings.timeout, concurrency=settings.concurrency
    )


def _version() -> str:
    from mcpcost import __version__

    return __version__


def write_atomic(path: str, text: str, owner_of: str | None = None) -> None:
    """Write via a temp file in the same directory; hand it to the workspace's owner if root."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    if owner_of is not None and os.geteuid() == 0:
        st = os.stat(owner_of)
        for p in (directory, path):
            os.chown(p, st.st_uid, st.st_gid)


def should_create(mode: CommentMode, outcome: Outcome) -> bool:
    if mode is CommentMode.ALWAYS:
        return True
    if mode is CommentMode.ON_FAILURE:
        return not outcome.verdict.passed
    if mode is CommentMode.AUTO:
        return outcome.changed or not outcome.verdict.passed
    return False


def scalar_outputs(outcome: Outcome) -> dict[str, str]:
    head = headline_config(outcome)
    reasons = "\n".join(r.text for r in outcome.verdict.failures)
    out = {
        "status": "pass" if outcome.verdict.passed else "fail",
        "head-tokens": str(head.head_total or 0) if head else "0",
        "failure-reasons": reasons,
    }
    if outcome.compared and head is not None:
        out["base-tokens"] = str(head.base_total or 0)
        out["delta"] = str(head.delta or 0)
        out["delta-percent"] = f"{head.percent:.2f}" if head.percent is not None else ""
    return out


def publish(
    settings: Settings,
    runner: Runner,
    judged: Judged,
    *,
    gh: GitHubClient,
    log: Log,
    outputs: dict[str, str],
    commit_badge_now: bool,
) -> None:
    outcome, j = judged.outcome, judged.judgement
    outputs.update(scalar_outputs(outcome))
    report_path = os.path.join(settings.output_dir, "report.json")
    write_atomic(
        os.path.join(runner.workspace, report_path),
        stringify_pretty(outcome.to_dict()) + "\n",
        runner.workspace,
    )
    outputs["report-path"] = report_path
    # the engine's own reports, exactly as `mcpcost audit --json` writes them
    audits = [("audit.json", report_to_json(j.head, j.diff, j.gates))]
    if j.base is not None:
        audits.append(("audit-base.json", report_to_json(j.base)))
    for name, data in audits:
        write_atomic(
            os.path.join(runner.workspace, settings.output_dir, name),
            stringify_pretty(data) + "\n",
            runner.workspace,
        )
    rendered = render_comment(outcome, key=settings.comment_key)
    if outcome.pr_number is not None:
        comment_path = os.path.join(settings.output_dir, "comment.md")
        write_atomic(os.path.join(runner.workspace, comment_path), rendered.body, runner.workspace)
        outputs["comment-path"] = comment_path
    if settings.summary and runner.summary_path:
        append_text(runner.summary_path, render_summary(outcome))
    if settings.annotations:
        write_annotations(outcome, log)
    for reason in outcome.verdict.failures:
        log.info(f"FAIL: {reason.text}")
    if outcome.pr_number is not None and settings.comment is not CommentMode.NEVER:
        post(
            settings,
            runner,
            gh,
            outcome.pr_number,
            rendered.body,
            should_create(settings.comment, outcome),
            log,
            outputs,
        )
    if commit_badge_now:
        head = max(
            (c.head_total for c in outcome.configs if c.head_total is not None), default=None
        )
        badge = render_badge(head, settings.badge_label)
        outputs["badge-json"] = badge
        if settings.dry_run:
            log.info(f"dry run: would commit {settings.badge_path} to {settings.badge_branch}")
        else:
            try:
                done = commit_badge(
                    gh,
                    runner.repository,
                    branch=settings.badge_branch,
                    path=settings.badge_path,
                    content=badge + "\n",
                    message="Update MCP context cost badge",
                )
                log.info(f"badge: {done.action} on {settings.badge_branch}")
            except GitHubError as exc:
                log.command(
                    "warning",
                    f"could not commit the badge ({exc}); the job needs "
                    f"`permissions: {BADGE_PERMISSION}`",
                )


def post(
    settings: Settings,
    runner: Runner,
    gh: GitHubClient,
    number: int,
    body: str,
    create: bool,
    log: Log,
    outputs: dict[str, str],
) -> None:
    if settings.dry_run:
        log.info("dry run: the comment is in comment-path, nothing posted")
        return
    try:
        result = upsert_comment(
            gh, runner.repository, number, marker(settings.comment_key), body, create=create
        )
    except GitHubError as exc:
        hint = (
            f"; the job needs `permissions: {COMMENT_PERMISSION}`"
            if exc.status in (403, 404)
            else ""
        )
        fork = (
            " (a pull request from a fork gets a read-only token: post from a workflow_run job, see examples/workflows)"
            if exc.status == 403
            else ""
        )
        log.command("warning", f"could not post the comment: {exc}{hint}{fork}")
        return
    log.info(f"comment: {result.action}")
    if result.comment_id is not None:
        outputs["comment-id"] = str(result.comment_id)
    if result.url:
        outputs["comment-url"] = result.url


def write_annotations(outcome: Outcome, log: Log) -> None:
    notes = [
        Annotation(
            level="error" if r in outcome.verdict.failures else "warning",
            message=r.text,
            file=r.source,
            line=r.line,
            title="MCP context cost",
        )
        for r in (*outcome.verdict.failures, *outcome.verdict.warnings)
        if r.line is not None
    ]
    kept, dropped = capped_annotations(notes)
    for note in kept:
        log.line(note.render())
    if dropped:
        log.info(f"{dropped} more annotations are in the job summary")


# --- workflow_run: the fork-safe second phase -----------------------------------------------


def _saved_outcome(settings: Settings, runner: Runner, gh: GitHubClient, run_id: int) -> Any:
    if settings.artifact_path:
        with open(os.path.join(settings.artifact_path, "report.json"), encoding="utf-8") as handle:
            return json.load(handle)
    artifacts = gh.request(
        "GET",
        f"/repos/{runner.repository}/actions/runs/{run_id}/artifacts",
        params={"name": settings.artifact_name, "per_page": 100},
    ).data
    found = [
        a
        for a in (artifacts or {}).get("artifacts", [])
        if a.get("name") == settings.artifact_name and not a.get("expired")
    ]
    if not found:
        raise InputError(f"run {run_id} saved no artifact named {settings.artifact_name!r}")
    aid = int(found[0]["id"])
    data = gh.request(
        "GET",
        f"/repos/{runner.repository}/actions/artifacts/{aid}/zip",
        accept="application/vnd.github+json",
    ).content
    if len(data) > MAX_ARTIFACT_BYTES:
        raise InputError("the artifact is too large")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            info = archive.getinfo("report.json")
            if info.file_size > MAX_ARTIFACT_BYTES:
                raise InputError("report.json in the artifact is too large")
            return json.loads(archive.read(info))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise InputError(f"the artifact has no readable report.json: {exc}") from None


def post_saved_comment(
    settings: Settings, runner: Runner, *, gh: GitHubClient, log: Log, outputs: dict[str, str]
) -> int:
    wr = runner.payload.get("workflow_run")
    if not isinstance(wr, dict) or not isinstance(wr.get("head_sha"), str):
        raise InputError("the workflow_run payload has no head_sha")
    try:
        saved = _saved_outcome(settings, runner, gh, int(wr["id"]))
    except GitHubError as exc:
        log.command(
            "warning",
            f"could not download the artifact: {exc}; the job needs "
            f"`permissions: {ARTIFACT_PERMISSION}`",
        )
        outputs["status"] = "error"
        return 0
    outcome = Outcome.from_dict(saved)
    if outcome.head_sha != wr["head_sha"]:
        raise InputError(
            f"the saved result is for {outcome.head_sha[:12]}, but the run was for "
            f"{wr['head_sha'][:12]}; not posting it"
        )
    number = outcome.pr_number
    listed = [p.get("number") for p in wr.get("pull_requests") or [] if isinstance(p, dict)]
    if number is None or (listed and number not in listed):
        raise InputError("the saved result names no pull request of this run")
    if not listed:  # forks: the payload often lists none; ask which PRs carry this head commit
        pulls = gh.request("GET", f"/repos/{runner.repository}/commits/{wr['head_sha']}/pulls").data
        if number not in [p.get("number") for p in pulls or []]:
            raise InputError(f"pull request #{number} does not have head {wr['head_sha'][:12]}")
    trusted_url = wr.get("html_url") if isinstance(wr.get("html_url"), str) else None
    outcome = replace(outcome, run_url=trusted_url, repository=runner.repository)
    outputs.update(scalar_outputs(outcome))
    rendered = render_comment(outcome, key=settings.comment_key)
    if settings.comment is not CommentMode.NEVER:
        post(
            settings,
            runner,
            gh,
            number,
            rendered.body,
            should_create(settings.comment, outcome),
            log,
            outputs,
        )
    if settings.summary and runner.summary_path:
        append_text(runner.summary_path, render_summary(outcome))
    return 0
