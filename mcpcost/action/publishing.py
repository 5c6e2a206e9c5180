"""Publishing a result: the outputs, report files, job summary, annotations, the pull-request
comment and the badge, every one of them from the audit's JSON report (``run_report``'s
document, the only shape the Action exchanges); and the fork-safe second phase, which reads a
report an earlier run saved back against the report's schema and posts its comment. Comment
and badge failures only warn: the gate's verdict is the step's answer.
"""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path
from typing import Any

from mcpcost.action.badge_commit import commit_badge
from mcpcost.action.runner_env import Log, Runner
from mcpcost.action.runner_files import (
    SUMMARY_LIMIT,
    Annotation,
    AnnotationLevel,
    RunStatus,
    append_text,
    capped_annotations,
    fit_summary,
)
from mcpcost.action.settings import CommentMode, Settings
from mcpcost.action.sticky import upsert_comment
from mcpcost.audit.compose import Audit
from mcpcost.configs.clients.presentation import Effect
from mcpcost.core.badge import render_badge
from mcpcost.core.jsonvalue import stringify_pretty
from mcpcost.errors import InputError
from mcpcost.render.json_report import report_to_json
from mcpcost.render.report_markdown import (
    Doc,
    changed,
    failures,
    headline,
    marker,
    passed,
    render_comment,
    render_summary,
    shown_sessions,
    unreadable,
)
from mcpcost.render.report_reader import read_report
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


def should_create(mode: CommentMode, doc: Doc) -> bool:
    if mode is CommentMode.ALWAYS:
        return True
    if mode is CommentMode.ON_FAILURE:
        return not passed(doc)
    if mode is CommentMode.AUTO:
        return changed(doc) or not passed(doc)
    return False


def status(doc: Doc) -> RunStatus:
    if unreadable(doc):
        return RunStatus.ERROR
    return RunStatus.PASS if passed(doc) else RunStatus.FAIL


def scalar_outputs(doc: Doc) -> dict[str, str]:
    """The step's outputs, from the report: the headline config's numbers, the failures, the
    breaking lens findings, and per shown session what its model gets (``sessions``, JSON)."""
    head = headline(doc)
    truths = shown_sessions(doc)
    out = {
        "status": status(doc),
        "head-tokens": str(head.head or 0) if head else "0",
        "failure-reasons": "\n".join(f["text"] for f in failures(doc)),
        "limit-findings": str(
            sum(1 for t in truths for f in t.findings if Effect(f["effect"]).breaks)
        ),
    }
    if "diff" in doc and head is not None:
        out["base-tokens"] = str(head.base or 0)
        out["delta"] = str(head.delta or 0)
        out["delta-percent"] = f"{head.percent:.2f}" if head.percent is not None else ""
    return out


def publish(
    settings: Settings,
    runner: Runner,
    doc: Doc,
    audit: Audit,
    *,
    gh: GitHubClient,
    log: Log,
    outputs: dict[str, str],
    commit_badge_now: bool,
) -> None:
    outputs.update(scalar_outputs(doc))
    report_path = os.path.join(settings.output_dir, "report.json")
    write_workspace_file(runner.workspace, report_path, stringify_pretty(doc) + "\n")
    outputs["report-path"] = report_path
    if audit.base is not None:  # the base side's own report, as `mcpcost audit --json` writes it
        write_workspace_file(
            runner.workspace,
            os.path.join(settings.output_dir, "audit-base.json"),
            stringify_pretty(report_to_json(audit.base)) + "\n",
        )
    rendered = render_comment(doc, key=settings.comment_key)
    number = (doc.get("run") or {}).get("prNumber")
    if number is not None:
        comment_path = os.path.join(settings.output_dir, "comment.md")
        write_workspace_file(runner.workspace, comment_path, rendered.body)
        outputs["comment-path"] = comment_path
    if settings.summary and runner.summary_path:
        append_text(runner.summary_path, fit_summary(render_summary(doc), SUMMARY_LIMIT))
    if settings.sarif:
        write_sarif_file(settings.sarif, doc, runner.workspace)
        outputs["sarif-path"] = settings.sarif
    if settings.annotations:
        write_annotations(doc, log)
    for f in failures(doc):
        log.info(f"FAIL: {f['text']}")
    if number is not None and settings.comment is not CommentMode.NEVER:
        post(
            settings,
            runner,
            gh,
            number,
            rendered.body,
            should_create(settings.comment, doc),
            log,
            outputs,
        )
    if commit_badge_now:
        heads = [c["totalTokens"] for c in doc["configs"]]
        badge = render_badge(max(heads, default=None), settings.badge_label)
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


def write_sarif_file(path: str, doc: Doc, workspace: str) -> None:
    """The ``sarif`` input: the report's findings (``render_sarif``, as ``audit --sarif``
    writes them), repository-relative."""
    default = next((c["source"] for c in doc["configs"] if c["source"]), None)
    write_workspace_file(workspace, path, render_sarif(doc, default_source=default))


_ANNOTATED = {"error": AnnotationLevel.ERROR, "warning": AnnotationLevel.WARNING}


def write_annotations(doc: Doc, log: Log) -> None:
    """A ``::error`` per failing finding and a ``::warning`` per other warning that points at a
    config line (known unknowns are carried over, never annotated)."""
    notes = [
        Annotation(
            level=_ANNOTATED[f["level"]],
            message=f["text"],
            file=f["source"],
            line=f["line"],
            title="MCP context cost",
        )
        for f in sorted(doc.get("findings", ()), key=lambda f: f["level"] != "error")
        if f["line"] is not None
        and f["source"] is not None
        and (f["level"] == "error" or (f["level"] == "warning" and f["gate"] != "known-unknown"))
    ]
    kept, dropped = capped_annotations(notes)
    for note in kept:
        log.annotate(note)
    if dropped:
        log.info(f"{dropped} more annotations are in the job summary")


def _saved_report(settings: Settings, runner: Runner, gh: GitHubClient, run_id: int) -> Doc:
    """The saved report: from ``artifact-path``, else from the run's artifact; read back
    against the report's schema (a pull request's code wrote it)."""
    if settings.artifact_path:
        path = os.path.join(settings.artifact_path, "report.json")
        try:
            data = read_world_file(path, max_bytes=MAX_ARTIFACT_BYTES)
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
        return read_report(data, what="the saved report.json")
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
    return read_report(data, what="the saved report.json")


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
        saved = _saved_report(settings, runner, gh, int(wr["id"]))
    except GitHubError as exc:
        log.command(
            "warning",
            f"could not download the artifact: {exc}; the job needs "
            f"`permissions: {ARTIFACT_PERMISSION}`",
        )
        outputs["status"] = RunStatus.ERROR
        return 0
    run = saved.get("run")
    if run is None:
        raise InputError("the saved report.json names no run (it is not the Action's report)")
    if run["headSha"] != wr["head_sha"]:
        raise InputError(
            f"the saved result is for {run['headSha'][:12]}, but the run was for "
            f"{wr['head_sha'][:12]}; not posting it"
        )
    number = run["prNumber"]
    listed = [p.get("number") for p in wr.get("pull_requests") or [] if isinstance(p, dict)]
    if number is None or (listed and number not in listed):
        raise InputError("the saved result names no pull request of this run")
    bind_to_run(gh, runner.repository, number, wr)
    trusted_url = wr.get("html_url") if isinstance(wr.get("html_url"), str) else None
    doc = {**saved, "run": {**run, "runUrl": trusted_url, "repository": runner.repository}}
    outputs.update(scalar_outputs(doc))
    rendered = render_comment(doc, key=settings.comment_key)
    if settings.comment is not CommentMode.NEVER:
        post(
            settings,
            runner,
            gh,
            number,
            rendered.body,
            should_create(settings.comment, doc),
            log,
            outputs,
        )
    if settings.summary and runner.summary_path:
        append_text(runner.summary_path, fit_summary(render_summary(doc), SUMMARY_LIMIT))
    return 0
