"""Publishing a result: the outputs, report files, job summary, annotations, the pull-request
comment and the badge; and the fork-safe second phase, which posts a comment saved by an
earlier run. Comment and badge failures only warn: the gate's verdict is the step's answer.
"""

from __future__ import annotations

import io
import os
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcpcost.action.badge_commit import commit_badge
from mcpcost.action.comment import headline_config, marker, render_comment
from mcpcost.action.measure_sides import Judged
from mcpcost.action.outcome import Outcome
from mcpcost.action.runner_env import Log, Runner
from mcpcost.action.runner_files import (
    Annotation,
    AnnotationLevel,
    RunStatus,
    append_text,
    capped_annotations,
)
from mcpcost.action.settings import CommentMode, Settings
from mcpcost.action.sticky import upsert_comment
from mcpcost.action.summary import render_summary
from mcpcost.core.badge import render_badge
from mcpcost.core.jsonvalue import parse_json, stringify_pretty
from mcpcost.errors import InputError, JSONSyntaxError
from mcpcost.render.json_report import report_to_json
from mcpcost.render.sarif_report import render_sarif
from mcpcost.runtime.github import GitHubClient, GitHubError
from mcpcost.runtime.output_tree import write_in_tree
from mcpcost.runtime.world_files import read_world_file

COMMENT_PERMISSION = "pull-requests: write (or issues: write)"
BADGE_PERMISSION = "contents: write"
ARTIFACT_PERMISSION = "actions: read"
MAX_ARTIFACT_BYTES = 20 * 1024 * 1024


def write_workspace_file(workspace: str, rel: str, text: str) -> None:
    """Write ``workspace/rel`` through the one file boundary (atomic, no symbolic link below
    the workspace); when running as root, hand what was written to the workspace's owner."""
    write_in_tree(Path(workspace), rel, text)
    if os.geteuid() == 0:
        st = os.stat(workspace)
        path = os.path.join(workspace, rel)
        for p in (os.path.dirname(path), path):
            os.chown(p, st.st_uid, st.st_gid, follow_symlinks=False)


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
        "status": RunStatus.ERROR
        if outcome.verdict.unreadable
        else RunStatus.PASS
        if outcome.verdict.passed
        else RunStatus.FAIL,
        "head-tokens": str(head.head_total or 0) if head else "0",
        "failure-reasons": reasons,
        "limit-findings": str(sum(len(x.view.breaking) for x in outcome.lenses)),
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
    write_workspace_file(runner.workspace, report_path, stringify_pretty(outcome.to_dict()) + "\n")
    outputs["report-path"] = report_path
    # the audit's own reports, exactly as `mcpcost audit --json` writes them
    audits = [("audit.json", report_to_json(j.head, j.diff, j.gates))]
    if j.base is not None:
        audits.append(("audit-base.json", report_to_json(j.base)))
    for name, data in audits:
        write_workspace_file(
            runner.workspace,
            os.path.join(settings.output_dir, name),
            stringify_pretty(data) + "\n",
        )
    rendered = render_comment(outcome, key=settings.comment_key)
    if outcome.pr_number is not None:
        comment_path = os.path.join(settings.output_dir, "comment.md")
        write_workspace_file(runner.workspace, comment_path, rendered.body)
        outputs["comment-path"] = comment_path
    if settings.summary and runner.summary_path:
        append_text(runner.summary_path, render_summary(outcome))
    if settings.sarif:
        write_sarif_file(settings.sarif, outcome, runner.workspace)
        outputs["sarif-path"] = settings.sarif
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


def write_sarif_file(path: str, outcome: Outcome, workspace: str) -> None:
    """The ``sarif`` input: failures as errors, warnings and known unknowns as warnings,
    repository-relative."""
    default = next((c.source for c in outcome.configs if c.source), None)
    v = outcome.verdict
    text = render_sarif(v.failures, (*v.warnings, *v.known_unknowns), default_source=default)
    write_workspace_file(workspace, path, text)


def write_annotations(outcome: Outcome, log: Log) -> None:
    notes = [
        Annotation(
            level=(
                AnnotationLevel.ERROR if r in outcome.verdict.failures else AnnotationLevel.WARNING
            ),
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
        log.annotate(note)
    if dropped:
        log.info(f"{dropped} more annotations are in the job summary")


def _saved_outcome(settings: Settings, runner: Runner, gh: GitHubClient, run_id: int) -> Any:
    """The saved outcome document: from ``artifact-path``, else from the run's artifact."""
    if settings.artifact_path:
        path = os.path.join(settings.artifact_path, "report.json")
        try:
            data = read_world_file(path, max_bytes=MAX_ARTIFACT_BYTES)
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
        return _untrusted_report(data)
    aid = gh.run_artifact_id(runner.repository, run_id, settings.artifact_name)
    if aid is None:
        raise InputError(f"run {run_id} saved no artifact named {settings.artifact_name!r}")
    data = gh.artifact_zip(runner.repository, aid)
    if len(data) > MAX_ARTIFACT_BYTES:
        raise InputError("the artifact is too large")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            info = archive.getinfo("report.json")
            if info.file_size > MAX_ARTIFACT_BYTES:
                raise InputError("report.json in the artifact is too large")
            data = archive.read(info)
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise InputError(f"the artifact has no readable report.json: {exc}") from None
    return _untrusted_report(data)


def _untrusted_report(data: bytes) -> Any:
    """The saved report.json, written by a run that executed a pull request's code: parsed with
    the one bounded reader (``core.jsonvalue.parse_json``, at most 512 levels), one line on
    anything else."""
    try:
        return parse_json(data)
    except JSONSyntaxError as exc:
        raise InputError(f"the saved report.json is not readable JSON: {exc}") from None


def bind_to_run(gh: GitHubClient, repository: str, number: int, wr: dict[str, Any]) -> None:
    """The saved result names pull request ``number``: it is this run's only when that pull
    request's head is the run's head commit, pushed from the run's head repository. (A commit
    can be the head of several pull requests, and the saved file was written by a run that
    executed one pull request's code: the number alone proves nothing.)"""
    head = gh.pull_head(repository, number)
    if head is None or head[0] != wr["head_sha"]:
        raise InputError(f"pull request #{number} does not have head {wr['head_sha'][:12]}")
    run_repo = wr.get("head_repository")
    name = run_repo.get("full_name") if isinstance(run_repo, dict) else None
    if not isinstance(name, str) or head[1] != name:
        raise InputError(
            f"pull request #{number} comes from another repository than this run's head; "
            "not posting the saved result"
        )


def post_saved_comment(
    settings: Settings, runner: Runner, *, gh: GitHubClient, log: Log, outputs: dict[str, str]
) -> int:
    """The fork-safe second phase (``workflow_run``): post the outcome an earlier run saved, once
    it is shown to belong to this run's head commit and pull request."""
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
        outputs["status"] = RunStatus.ERROR
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
    bind_to_run(gh, runner.repository, number, wr)
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
