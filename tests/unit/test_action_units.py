"""Pure parts of the Action: settings, routing truth table, escaping, outputs, presence and outcome
(the workflows under actionlint and zizmor: tests/integration/test_action_workflows_lint.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from mcpcost.action.routing import Activity, route
from mcpcost.action.runner_files import (
    Annotation,
    AnnotationLevel,
    capped_annotations,
    render_outputs,
    workflow_command,
)
from mcpcost.action.settings import CommentMode, Settings, SettingsError
from mcpcost.audit.gates import Gate
from mcpcost.errors import InputError
from mcpcost.escaping.markdown import code_span, md_text

PAYLOAD = {"repository": {"default_branch": "main"}}


@pytest.mark.parametrize(
    ("event", "ref", "badge", "allow", "activity", "commit_badge"),
    [
        ("pull_request", "refs/pull/1/merge", False, False, Activity.COMPARE_PR, False),
        ("pull_request", "refs/pull/1/merge", True, False, Activity.COMPARE_PR, False),
        ("pull_request_target", "refs/heads/main", False, False, Activity.REFUSE, False),
        ("pull_request_target", "refs/heads/main", False, True, Activity.COMPARE_PR, False),
        ("push", "refs/heads/main", True, False, Activity.MEASURE_HEAD, True),
        ("push", "refs/heads/feature", True, False, Activity.MEASURE_HEAD, False),
        ("push", "refs/heads/main", False, False, Activity.MEASURE_HEAD, False),
        ("schedule", "refs/heads/main", True, False, Activity.MEASURE_HEAD, True),
        ("workflow_dispatch", "refs/heads/main", True, False, Activity.MEASURE_HEAD, True),
        ("workflow_run", "refs/heads/main", True, False, Activity.POST_COMMENT, False),
        ("issues", "refs/heads/main", False, False, Activity.SKIP, False),
    ],
)
def test_routing_truth_table(
    event: str, ref: str, badge: bool, allow: bool, activity: Activity, commit_badge: bool
) -> None:
    r = route(event, PAYLOAD, ref=ref, badge=badge, allow_pull_request_target=allow)
    assert (r.activity, r.commit_badge) == (activity, commit_badge)


def test_settings_read_hyphenated_and_underscore_names() -> None:
    s = Settings.from_environ(
        {
            "INPUT_MAX-INCREASE": "2,000",
            "INPUT_MAX_INCREASE_PERCENT": "5%",
            "INPUT_FAIL-ON": "budget, increase",
            "INPUT_COMMENT": "on-failure",
            "INPUT_CONFIG": ".mcp.json\n\n.vscode/*.json\n",
            "INPUT_BUDGET": "",
            "INPUT_GITHUB-TOKEN": "ghs_x",
        }
    )
    assert s.max_increase == 2000 and s.max_increase_percent == 5.0 and s.budget is None
    assert s.fail_on == frozenset({"budget", "increase"}) and s.comment is CommentMode.ON_FAILURE
    assert s.config == (".mcp.json", ".vscode/*.json")
    assert "ghs_x" not in repr(s)
    assert Settings.from_environ({"INPUT_FAIL-ON": "none"}).fail_on == frozenset()


@pytest.mark.parametrize(
    ("name", "value", "fragment"),
    [
        ("BUDGET", "-1", "input budget"),
        ("FAIL-ON", "budget,speed", "input fail-on"),
        ("COMMENT", "sometimes", "input comment"),
        ("CONFIG", "../outside.json", "input config"),
        ("TIMEOUT", "0", "input timeout"),
        ("COMMENT-KEY", "a b", "input comment-key"),
        ("BADGE-BRANCH", "bad..name", "input badge-branch"),
        ("DRY-RUN", "maybe", "input dry-run"),
    ],
)
def test_bad_settings_name_the_input(name: str, value: str, fragment: str) -> None:
    with pytest.raises(SettingsError, match=fragment):
        Settings.from_environ({f"INPUT_{name}": value})


def test_escaping_untrusted_text() -> None:
    nasty = "@octocat <img src=x> | `x` #12\n::error::boom"
    md = md_text(nasty, 160)
    assert "@octocat" not in md and "\n" not in md
    assert all(md[i - 1] == "\\" for i, ch in enumerate(md) if ch in "<>")
    assert "| " not in md.replace("\\|", "")
    c = code_span("a|b`c@d", 80)
    assert c == "`a\\|b'c@d`"
    cmd = workflow_command("warning", "50%\n::error::x", file="a,b:c", line=3)
    assert cmd == "::warning file=a%2Cb%3Ac,line=3::50%25%0A::error::x"


def test_outputs_use_fresh_delimiters_not_in_the_value() -> None:
    seq = iter(["EOF", "EOF", "D2"])
    text = render_outputs({"x": "line\nEOF\nmore"}, new_delimiter=lambda: next(seq))
    assert text == "x<<D2\nline\nEOF\nmore\nD2\n"


def test_annotations_capped_per_level() -> None:
    notes = [Annotation(level=AnnotationLevel.WARNING, message=str(i)) for i in range(13)]
    notes += [Annotation(level=AnnotationLevel.ERROR, message="e")]
    kept, dropped = capped_annotations(notes)
    assert len(kept) == 11 and dropped == 3


def test_presence_reads_absent_and_empty_configs_from_both_sides() -> None:
    from mcpcost.action.repo_configs import parse_config
    from mcpcost.audit.compose import side_presence

    def cfg(source: str, servers: dict[str, object] | str) -> Any:
        text = servers if isinstance(servers, str) else json.dumps({"mcpServers": servers})
        parsed = parse_config(".mcp.json", text, environ={}, workspace="/w")
        return replace(parsed, source=source)

    one = {"x": {"command": "x"}}
    base = [
        cfg("kept", one),
        cfg("gone", one),
        cfg("emptied", one),
        cfg("was-empty", {}),
        cfg("broken", one),
    ]
    head = [
        cfg("kept", one),
        cfg("new", one),
        cfg("emptied", {}),
        cfg("was-empty", one),
        cfg("broken", "{not json"),
    ]
    p = side_presence(base, head)
    assert p.empty_before == {"new", "was-empty"}
    assert p.empty_now == {"gone", "emptied"}  # an unreadable file is never known empty
    assert (p.added, p.removed, p.emptied) == ({"new"}, {"gone"}, {"emptied"})


def test_the_report_of_base_against_head_reads_back_and_renders_each_sessions_truth() -> None:
    """Base and head go through the one audit composition; the saved document is the audit's
    JSON report (with the run's findings, commits and each config's change), it reads back
    strictly against the schema, and the comment says per session what its model gets."""
    from mcpcost.action.repo_configs import parse_config
    from mcpcost.audit.compose import AuditInputs, BaseSide, run_audit
    from mcpcost.core.jsonvalue import stringify_pretty
    from mcpcost.render.report_markdown import config_rows, render_comment
    from mcpcost.render.report_reader import read_report
    from mcpcost.render.run_report import run_report
    from mcpcost.render.session_truth import sessions_truth
    from tests.helpers.audit_builders import measured, tools

    def cfg(path: str, names: list[str]) -> Any:
        servers = {n: {"command": "node", "args": [f"{n}.js"]} for n in names}
        return parse_config(path, json.dumps({"mcpServers": servers}), environ={}, workspace="/w")

    head = (cfg(".mcp.json", ["a", "b"]), cfg(".cursor/mcp.json", ["c"]))
    base = (cfg(".mcp.json", ["a"]),)
    audit = run_audit(
        AuditInputs(configs=head),
        measure=lambda spec: measured(spec, tools(spec.name, 2)),
        baseline=BaseSide(configs=base),
    )
    run = {
        "repository": "o/r",
        "prNumber": 3,
        "baseSha": "b" * 40,
        "headSha": "a" * 40,
        "runUrl": None,
        "clients": [],
    }
    doc = run_report(audit, lines={}, fail_on=frozenset(Gate), run=run)
    back = read_report(stringify_pretty(doc).encode())
    rows = {r.source: r for r in config_rows(back)}
    assert rows[".cursor/mcp.json"].change == "new config"
    assert rows[".mcp.json"].delta == (rows[".mcp.json"].head or 0) - (rows[".mcp.json"].base or 0)
    body = render_comment(back, key="k", limit=10**6).body
    for t in sessions_truth(back):
        floor = "≥" if t.is_floor else ""
        assert f"- {t.label}: **What the model gets: {floor}{t.upfront_tokens:,} tokens up" in body
    bad = json.loads(json.dumps(doc))
    bad["diff"]["configs"][0]["change"] = "<b>owned</b>"
    with pytest.raises(InputError, match="not one of the values allowed"):
        read_report(json.dumps(bad).encode())
    unknown = {**json.loads(json.dumps(doc)), "outcome": {}}
    with pytest.raises(InputError, match="'outcome' is not a field here"):
        read_report(json.dumps(unknown).encode())
