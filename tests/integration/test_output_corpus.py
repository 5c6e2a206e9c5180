"""The hostile corpus (``tests/helpers/output_corpus.py``) through every output, from a real server.

A real stdio MCP server (``tests/servers/fixtures/hostile_server.py``) puts the corpus in its
server name, tool names, descriptions, instructions, JSON-RPC error and stderr (echoing a secret
its config gave it), and a config puts the corpus in its server names. The real CLI (a
subprocess), the real sweep publisher and the real Action entrypoint then write every output we
have; each output is checked against its sink's rule (docs/SECURITY.md), and each check also
confirms the hostile text did reach that output (escaped), so none of them can pass vacuously.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpcost.core.model import METHODOLOGY_URL
from mcpcost.escaping.markdown import code_span
from mcpcost.sweep.pages import CLIENTS_URL
from tests.helpers.output_corpus import (
    CASES,
    SECRET,
    ci_log_violations,
    markdown_violations,
    names,
    terminal_violations,
)
from tests.helpers.paths import ROOT

HOSTILE = ROOT / "tests" / "servers" / "fixtures" / "hostile_server.py"
ALL = "\n".join(CASES.values())
SECRET_VAR = "HOSTILE_SECRET"


def payload_file(tmp: Path, name: str, payload: dict[str, Any]) -> str:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return str(path)


def serving_payload() -> dict[str, Any]:
    return {
        "serverName": " ".join(CASES.values()),
        "serverVersion": CASES["bidi-override"],
        "instructions": ALL,
        "tools": [
            {
                "name": name,
                "description": value * 3,
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
            }
            for name, value in zip(names(), CASES.values(), strict=True)
        ],
    }


def hostile_servers(tmp: Path) -> dict[str, dict[str, Any]]:
    """A config's ``mcpServers``: every corpus name for one serving launch, and two failing
    servers (stderr with an echoed secret; a JSON-RPC error) named and worded by the corpus."""
    serve = payload_file(tmp, "serve", serving_payload())
    stderr = payload_file(tmp, "stderr", {"stderr": f"{ALL}\ntoken=${SECRET_VAR}", "exitCode": 1})
    error = payload_file(tmp, "error", {"listError": ALL})
    # each case both behind its key and bare, so some names start a line of the table
    servers: dict[str, dict[str, Any]] = {
        name: {"command": sys.executable, "args": [str(HOSTILE), serve]}
        for name in [*names(), *CASES.values()]
    }
    servers[f"fails {CASES['osc-window-title']}"] = {
        "command": sys.executable,
        "args": [str(HOSTILE), stderr],
        "env": {SECRET_VAR: SECRET},
    }
    servers[f"errors {CASES['html-break-out']}"] = {
        "command": sys.executable,
        "args": [str(HOSTILE), error],
    }
    return servers


def cli(
    args: list[str], *, cwd: Path, ci: bool = False, home: Path | None = None
) -> tuple[int, str, str]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home or cwd),
        "PYTHONPATH": str(ROOT),
        "LANG": "C.UTF-8",
    }
    if ci:
        env["GITHUB_ACTIONS"] = "true"
    proc = subprocess.run(
        [sys.executable, "-m", "mcpcost", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=180,
    )
    return proc.returncode, proc.stdout, proc.stderr


def assert_terminal_safe(text: str, where: str) -> None:
    assert terminal_violations(text) == [], f"{where}: raw control or bidi characters"
    assert SECRET not in text, f"{where}: the echoed secret"


@pytest.fixture(scope="module")
def hostile_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("hostile")
    path = tmp / "mcp.json"
    path.write_text(json.dumps({"mcpServers": hostile_servers(tmp)}), encoding="utf-8")
    return path


# --------------------------------------------------------------------- audit


@pytest.mark.parametrize("ci", [False, True], ids=["terminal", "github-actions"])
def test_audit_text_escapes_every_case(hostile_config: Path, ci: bool) -> None:
    code, out, err = cli(
        ["audit", "--config", str(hostile_config)], cwd=hostile_config.parent, ci=ci
    )
    assert code == 0, err
    for text, where in ((out, "stdout"), (err, "stderr")):
        assert_terminal_safe(text, where)
        if ci:
            assert ci_log_violations(text) == [], where
    # the hostile text reached the heaviest-tools lines, the table and the notes, escaped
    assert "\\x1b[31mred\\x1b[0m" in out and "\\u202e" in out and "\\x1b]0;pwned" in out
    assert "\\x1b]0;pwned" in err  # a progress line named the failing server
    if ci:  # a bare name starts a table row: the runner would have read it as a command
        assert "  \\u003a:error file=README.md,line=1::spoofed" in out
        assert "##\\u005berror]legacy" in out
    else:
        assert "  ::error file=README.md,line=1::spoofed" in out


def test_audit_json_keeps_every_value_and_stays_terminal_safe(hostile_config: Path) -> None:
    code, out, err = cli(
        ["audit", "--json", "--config", str(hostile_config)], cwd=hostile_config.parent, ci=True
    )
    assert code == 0, err
    assert_terminal_safe(out, "--json")
    assert ci_log_violations(out) == []
    report = json.loads(out)  # still valid JSON, and every value is the server's exact text
    (config,) = report["configs"]
    assert {s["name"] for s in config["servers"]} >= set(names())
    heaviest = {t["tool"] for t in config["heaviestTools"]}
    assert heaviest and heaviest <= set(names())


def test_audit_markdown_renders_nothing_hostile(hostile_config: Path) -> None:
    code, out, err = cli(
        ["audit", "--markdown", "--config", str(hostile_config)], cwd=hostile_config.parent
    )
    assert code == 0, err
    assert_terminal_safe(out, "--markdown")
    assert markdown_violations(out, own_links=(METHODOLOGY_URL,)) == []
    assert "`ansi-colour \\x1b[31mred\\x1b[0m`" in out
    # every name exactly as the Action's comment shows it (see the comment test below)
    assert all(code_span(name) in out for name in names())


def test_list_configs_text_and_json(hostile_config: Path) -> None:
    for ci in (False, True):
        code, out, err = cli(
            ["audit", "--list-configs", "--config", str(hostile_config)],
            cwd=hostile_config.parent,
            ci=ci,
        )
        assert code == 0, err
        assert_terminal_safe(out, "--list-configs")
        assert ci_log_violations(out) == [] or not ci
        assert "osc-window-title \\x1b]0;pwned title\\x07" in out
        # one line per server: a name cannot forge a line of its own
        assert "\n::warning::forged" not in out and "\nOVERWRITTEN" not in out
    code, out, _ = cli(
        ["audit", "--list-configs", "--json", "--config", str(hostile_config)],
        cwd=hostile_config.parent,
    )
    listed = {s["name"] for c in json.loads(out)["configs"] for s in c["servers"]}
    assert listed >= set(names())


# --------------------------------------------------------------------- measure and verify


def test_measure_notes_and_verify_server_name(tmp_path: Path) -> None:
    stderr = payload_file(
        tmp_path, "stderr", {"stderr": f"{ALL}\ntoken=${SECRET_VAR}", "exitCode": 1}
    )
    code, out, err = cli(
        [
            "measure",
            "--name",
            "fails",
            "--env",
            f"{SECRET_VAR}={SECRET}",
            "--",
            sys.executable,
            str(HOSTILE),
            stderr,
        ],
        cwd=tmp_path,
        ci=True,
    )
    assert code == 1, err
    assert_terminal_safe(out + err, "measure (failure)")
    assert ci_log_violations(out + err) == []
    # the server's line breaks are kept, but each of its lines is indented under ours, so no
    # line of its text can pass for one of mcpcost's own (or for a workflow command)
    first, *rest = out.splitlines()
    assert first.startswith("fails: startup-failure — ") and rest
    assert all(line.startswith("  ") for line in rest), rest
    assert any(":error file=README.md" in line for line in rest)
    serve = payload_file(tmp_path, "serve", serving_payload())
    code, out, err = cli(
        [
            "measure",
            "--name",
            "hostile",
            "--out",
            str(tmp_path / "tree"),
            "--",
            sys.executable,
            str(HOSTILE),
            serve,
        ],
        cwd=tmp_path,
    )
    assert code == 0, err
    measurement = tmp_path / "tree" / "results" / "hostile" / "measurement.json"
    code, out, err = cli(["verify", str(measurement)], cwd=tmp_path, ci=True)
    assert code == 0, err
    assert_terminal_safe(out + err, "verify")
    assert ci_log_violations(out) == []
    assert out.startswith("OK ") and "\\u202egpj.evil" in out and "\\u003a" not in out[:3]
    assert len([line for line in out.splitlines() if line.startswith("OK ")]) == 1


# --------------------------------------------------------------------- sweep pages


def test_sweep_pages(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    serve = payload_file(tmp_path, "serve", serving_payload())
    error = payload_file(tmp_path, "error", {"listError": f"{CASES['html-break-out']} {ALL}"})
    for name, payload in (("hostile", serve), ("broken", error)):
        cli(
            [
                "measure",
                "--name",
                name,
                "--out",
                str(tree),
                "--",
                sys.executable,
                str(HOSTILE),
                payload,
            ],
            cwd=tmp_path,
        )
    code, out, err = cli(["publish", "--out", str(tree)], cwd=tmp_path, ci=True)
    assert code == 0, err
    assert_terminal_safe(out + err, "publish")
    page = (tree / "docs" / "servers" / "hostile.md").read_text("utf-8")
    board = (tree / "results" / "leaderboard.md").read_text("utf-8")
    own = (
        "../docs/servers/hostile.md",
        "../../results/hostile/measurement.json",
        "../../badges/hostile.json",
        "index.md",
        "../../results/leaderboard.md",
        "estimator.json",
        CLIENTS_URL,  # how each client loads a server's definitions
    )
    for markdown in (page, board):
        # published pages are files in a repository: GitHub notifies no one from them
        found = markdown_violations(
            markdown, own_links=own, own_tags=frozenset({"h1"}), mentions_live=False
        )
        assert found == []
    assert "\\x1b" in page and "\\x1b" in board  # the tool names and the error note are there
    html = (tree / "docs" / "dashboard.html").read_text("utf-8")
    # autoescaped, and the server's version and error note visibly escaped
    assert "<h1>BIG</h1>" not in html and "&lt;/details&gt;&lt;h1&gt;BIG" in html
    assert "\\u202egpj.evil" in html
    # a server's terminal codes are dropped from its error note (the words stay); other
    # controls stay visibly escaped
    assert "\\x1b[31m" not in html and "red\\x1b" not in html
    assert terminal_violations(html) == []
    # the server's own page (the dashboard's rows link to it): the same boundary
    detail = (tree / "docs" / "servers" / "hostile.html").read_text("utf-8")
    assert "<h1>BIG</h1>" not in detail and "&lt;/details&gt;&lt;h1&gt;BIG" in detail
    assert "\\u202egpj.evil" in detail and terminal_violations(detail) == []
    ours = {"html", "head", "meta", "title", "style", "body", "p", "a", "h1", "h2", "div", "b"}
    ours |= {"span", "table", "thead", "tbody", "tr", "th", "td", "code", "pre", "i"}
    assert set(re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", detail)) <= ours
    links = set(re.findall(r'href="([^"]*)"', detail))
    assert links == {
        "../dashboard.html",
        "../../results/hostile/measurement.json",
        "../../badges/hostile.json",
        "../../results/leaderboard.md",
        CLIENTS_URL,
    }


# --------------------------------------------------------------------- the Action


def test_action_comment_summary_annotations_and_log(tmp_path: Path) -> None:
    from tests.action.github_fake import OPENAPI, WEBHOOKS, FakeGitHub
    from tests.action.runner_sim import Sim, git, pr_payload

    if not (OPENAPI.exists() and WEBHOOKS.exists()):
        pytest.skip("run `npm ci` in tests/action/npm for the GitHub API fake")
    fake = FakeGitHub().start()
    try:
        sim = Sim(tmp_path, fake)
        (sim.repo / ".mcp.json").write_text(json.dumps({"mcpServers": {}}) + "\n")
        git(sim.repo, "add", ".mcp.json")
        git(sim.repo, "commit", "-q", "-m", "base")
        base = git(sim.repo, "rev-parse", "HEAD")
        servers = hostile_servers(tmp_path)
        (sim.repo / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n")
        git(sim.repo, "commit", "-qam", "head")
        head = git(sim.repo, "rev-parse", "HEAD")
        code, log, outputs, summary = sim.run(
            "pull_request", pr_payload(7, base, head), head, **{"max-increase": "5"}
        )
    finally:
        fake.stop()
    assert code == 1, log
    (comment,) = fake.comments.values()
    body = comment["body"]
    run_url = "https://github.example/octo/repo/actions/runs/99"
    action_url = "https://github.com/mcp-context-cost/action"  # templates/action_link.md.j2
    for markdown, where in ((body, "comment"), (summary, "summary")):
        assert (
            markdown_violations(markdown, own_links=(run_url, action_url, METHODOLOGY_URL)) == []
        ), where
        assert SECRET not in markdown, where
        assert "\\x1b" in markdown, where  # names and notes from the corpus are in it
    # names escaped exactly as `audit --markdown` escapes them
    assert all(code_span(name) in body for name in names() if len(name) < 80)
    assert body.startswith("<!-- mcp-context-cost:v1 key=default -->\n")
    assert body.count("<!-- mcp-context-cost") == 1
    # the one place the secret may appear is the runner's own mask command, which hides it
    assert_terminal_safe(log.replace(f"::add-mask::{SECRET}\n", ""), "the Action's log")
    own = [line for line in log.split("\n") if line.startswith(("::error ", "::add-mask::"))]
    assert own, "the gate's annotations"
    assert [x for x in ci_log_violations(log) if x not in own] == []
    for line in own:  # our annotations carry the hostile names on one line, escaped
        assert "\n" not in line and "\\x1b" not in line.split("::", 2)[1]
    assert any("\\x1b" in line for line in own)
    for path in ("report.json", "audit-base.json"):
        data = (sim.repo / ".mcp-context-cost" / path).read_text("utf-8")
        assert SECRET not in data, path
    assert SECRET not in json.dumps(outputs)
