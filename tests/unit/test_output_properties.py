"""One property per output sink: arbitrary text in, the sink's rule checked on what comes out.

The rules (docs/SECURITY.md): a terminal sink prints no control, ANSI/OSC or bidi character raw
and an untrusted value never forges a line; a CI log sink prints no line the runner reads as a
workflow command; a Markdown sink renders (with GitHub's own cmark-gfm) no element, link, image,
mention or comment of the text's making and keeps its table row whole; an HTML sink autoescapes;
a JSON sink keeps every value exactly and stays terminal-safe.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import DictLoader

from mcpcost.action.runner_env import Log
from mcpcost.cli.streams import SafeStream
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.model import METHODOLOGY_URL
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.escaping.markdown import code_span, md_text
from mcpcost.escaping.terminal import terminal_line, terminal_text
from mcpcost.render.markdown_report import render_markdown
from mcpcost.render.text_report import render_text
from mcpcost.runtime.templating import environment
from tests.helpers.audit_builders import config, entry, failed, measured
from tests.helpers.output_corpus import (
    CASES,
    ci_log_violations,
    markdown_violations,
    render_gfm,
    terminal_violations,
)

# Pieces that make the dangerous inputs common: escape sequences, command markers, Markdown
# and HTML syntax, entities, URLs, bidi controls, line breaks, backslashes and pipes.
PIECES = [
    *CASES.values(),
    "\x1b",
    "\x9b",
    "\r",
    "\n",
    "\t",
    "\u202e",
    "\u2066",
    "\u2028",
    "::",
    "##[",
    "#",
    "[",
    "]",
    "(",
    ")",
    "<",
    ">",
    "!",
    "&",
    ";",
    "`",
    "|",
    "\\",
    "@",
    "www.",
    "https://",
    "<!--",
    " ",
    "a",
    "é",
]
hostile_text = st.lists(st.sampled_from(PIECES), max_size=12).map("".join) | st.text(max_size=80)


def _write_all(stream: SafeStream, chunks: list[str]) -> None:
    for chunk in chunks:
        stream.write(chunk)
    stream.finish()


# --------------------------------------------------------------------- terminal


@given(st.lists(hostile_text, max_size=6))
@settings(deadline=None)  # the machine is shared: time is not the property
def test_terminal_sink(chunks: list[str]) -> None:
    raw = io.StringIO()
    _write_all(SafeStream(raw, ci_log=False), chunks)
    out = raw.getvalue()
    assert terminal_violations(out) == []
    text = "".join(chunks)
    if not terminal_violations(text):
        assert out == text  # safe text passes unchanged
    assert out.count("\n") == text.count("\n")
    line = terminal_line(text)
    assert "\n" not in line and terminal_violations(line) == []


@given(hostile_text, hostile_text, hostile_text)
@settings(max_examples=60, deadline=None)
def test_audit_text_sink(server: str, tool: str, note: str) -> None:
    def measure(spec: ServerSpec) -> Any:
        if spec.argv[-1] == "ok":
            schema = {"type": "object"}
            return measured(spec, [{"name": tool, "description": note, "inputSchema": schema}])
        return failed(spec, Status.STARTUP_FAILURE, notes=note)

    name = server or "s"
    cfg = config("cursor", f"/p/{server}.json", entry(name, "ok"), entry("x", "bad"))
    # wide enough that no line is cut to the terminal's width (a cut is the renderer's choice)
    out = render_text(_report(cfg, measure), width=100_000, details=True)
    assert terminal_violations(out) == []
    # each value stays on its line, escaped as one unit: it cannot forge a line of its own
    assert terminal_line(name) in out and terminal_line(tool) in out
    assert any(line.startswith("    x: startup-failure — ") for line in out.split("\n"))


def _report(cfg: Any, measure: Any) -> Any:
    from mcpcost.audit.compose import AuditInputs, AuditOptions, run_audit

    options = AuditOptions(concurrency=1, generated_at="2026-11-30T00:00:00Z")
    return run_audit(AuditInputs(configs=(cfg,)), measure=measure, options=options).report


# --------------------------------------------------------------------- CI log


@given(st.lists(hostile_text, max_size=6), st.integers(min_value=0, max_value=5))
@settings(deadline=None)  # the machine is shared: time is not the property
def test_ci_log_sink(chunks: list[str], split: int) -> None:
    raw = io.StringIO()
    _write_all(SafeStream(raw, ci_log=True), chunks)
    out = raw.getvalue()
    assert ci_log_violations(out) == [] and terminal_violations(out) == []
    # where the writes are cut makes no difference
    text = "".join(chunks)
    again = io.StringIO()
    _write_all(SafeStream(again, ci_log=True), [text[:split], text[split:]])
    assert again.getvalue() == out


@given(hostile_text)
@settings(deadline=None)  # the machine is shared: time is not the property
def test_action_log_sink(text: str) -> None:
    raw = io.StringIO()
    log = Log(raw)
    log.info(text)
    log.command("warning", text, file=text or None, title="MCP context cost")
    info, command, end = raw.getvalue().split("\n")
    assert end == ""
    assert ci_log_violations(info) == [] and terminal_violations(info) == []
    assert command.startswith("::warning ") and terminal_violations(command) == []
    # the message cannot end the command early or add a second one
    assert command.count("::") >= 2 and "\r" not in command


# --------------------------------------------------------------------- Markdown


@given(hostile_text)
@settings(max_examples=150, deadline=None)
def test_markdown_sink(text: str) -> None:
    row = f"| {code_span(text, 80)} | {md_text(text, 160)} |"
    doc = f"| name | note |\n|---|---|\n{row}\n\n- {md_text(text)}\n"
    assert markdown_violations(doc) == []
    html = render_gfm(doc)
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert body.count("<td>") == 2 and body.count("<tr>") == 1  # the row stays whole
    assert "<!--" not in doc


@given(hostile_text, hostile_text)
@settings(max_examples=40, deadline=None)
def test_audit_markdown_sink(server: str, note: str) -> None:
    def measure(spec: ServerSpec) -> Any:
        return failed(spec, Status.STARTUP_FAILURE, notes=note)

    cfg = config("cursor", f"/p/{server}.json", entry(server or "s", "bad"))
    md = render_markdown(_report(cfg, measure))
    assert markdown_violations(md, own_links=(METHODOLOGY_URL,)) == []


# --------------------------------------------------------------------- HTML


@given(hostile_text)
@settings(deadline=None)  # the machine is shared: time is not the property
def test_html_sink(text: str) -> None:
    env = environment().overlay(
        loader=DictLoader({"probe.html.j2": '<td title="{{ v }}">{{ v }}</td>'})
    )
    out = env.get_template("probe.html.j2").render(v=text)
    inner = out[len("<td title=") : -len("</td>")]
    assert "<" not in inner and ">" not in inner.split(">", 1)[1]
    assert re.fullmatch(r'"[^"]*">[^<>]*', inner)


# --------------------------------------------------------------------- JSON


@given(hostile_text)
@settings(deadline=None)  # the machine is shared: time is not the property
def test_json_sink(text: str) -> None:
    doc = stringify({"name": text, "tools": [text]})
    shown = terminal_text(doc)
    assert terminal_violations(shown) == []
    assert json.loads(shown) == {"name": text, "tools": [text]}
