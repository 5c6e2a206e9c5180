"""Entry point: ``main()`` builds the real collaborators; ``run()`` does the work and returns the
exit code (0 pass or nothing to do, 1 the gate failed, 2 bad input, including a config file that
cannot be read, or a refused event).

It only wires the parts: routing (``routing``), measuring both sides and judging
(``measure_sides``), publishing (``publishing``). Order matters: measure, judge, then write outputs,
the summary, annotations, the comment and the badge, and only then return the gate's verdict.
"""

from __future__ import annotations

import os
import sys
import time
import traceback

import requests

from mcpcost.action.gitrefs import Git
from mcpcost.action.measure_sides import MeasureServer, default_measure_server, measure_and_judge
from mcpcost.action.publishing import post_saved_comment, publish
from mcpcost.action.routing import Activity, route
from mcpcost.action.runner_env import Log, Runner
from mcpcost.action.runner_files import RunStatus, append_text, render_outputs
from mcpcost.action.settings import Settings, SettingsError
from mcpcost.action.untrusted_launches import isolated_measure, undumpable
from mcpcost.errors import InputError, McpcostError
from mcpcost.render.report_markdown import passed, unreadable
from mcpcost.runtime.github import GitHubClient


def main() -> int:
    """Build the real collaborators from the environment and run. The pull request's local
    servers are measured in isolated children (``mcpcost.action.untrusted_launches``), never here."""
    undumpable()
    environ = dict(os.environ)
    log = Log(sys.stdout)
    try:
        settings = Settings.from_environ(environ)
        runner = Runner.from_environ(environ)
    except (SettingsError, InputError) as exc:
        log.command("error", str(exc))
        out = environ.get("GITHUB_OUTPUT")
        if out:
            append_text(
                out, render_outputs({"status": RunStatus.ERROR, "failure-reasons": str(exc)})
            )
        return 2
    gh = GitHubClient(
        session=requests.Session(),
        api_url=runner.api_url,
        token=settings.github_token,
        sleep=time.sleep,
        clock=time.time,
    )
    git = Git(runner.workspace, token=settings.github_token, server_url=runner.server_url)
    try:
        measure = isolated_measure(default_measure_server, environ)
        return run(settings, runner, gh=gh, git=git, measure=measure, log=log)
    except Exception as exc:  # a defect of ours: reported through the log, never a raw traceback
        report_crash(log, exc, runner.output_path)
        return 2


def report_crash(log: Log, exc: Exception, output_path: str | None) -> None:
    """An unexpected exception as the step's log shows it: one error annotation, then the
    traceback a line at a time through ``Log.info``, so text from a server or a config that
    reached the exception's message can neither inject a workflow command nor hide itself."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    summary = f"mcp-context-cost failed unexpectedly ({type(exc).__name__}: {first})"
    log.command("error", summary + "; please report it with the log below")
    for block in traceback.format_exception(exc):
        for text in block.rstrip("\n").splitlines():
            log.info(text)
    if output_path:
        append_text(
            output_path, render_outputs({"status": RunStatus.ERROR, "failure-reasons": summary})
        )


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
            outputs.update(status=RunStatus.ERROR, **{"failure-reasons": decision.reason})
            return 2
        if decision.activity is Activity.SKIP:
            outputs["status"] = RunStatus.SKIPPED
            return 0
        if decision.activity is Activity.POST_COMMENT:
            return post_saved_comment(settings, runner, gh=gh, log=log, outputs=outputs)
        doc, audit = measure_and_judge(
            settings,
            runner,
            git=git,
            measure=measure,
            log=log,
            compare=decision.activity is Activity.COMPARE_PR,
        )
        publish(
            settings,
            runner,
            doc,
            audit,
            gh=gh,
            log=log,
            outputs=outputs,
            commit_badge_now=decision.commit_badge,
        )
        if unreadable(doc):
            return 2  # a config that cannot be read is bad input, as for `mcpcost audit`
        return 0 if passed(doc) else 1
    except (McpcostError, OSError) as exc:
        log.command("error", str(exc))
        outputs.update(status=RunStatus.ERROR, **{"failure-reasons": str(exc)})
        return 2
    finally:
        if runner.output_path and outputs:
            append_text(runner.output_path, render_outputs(outputs))
