"""The Action on a pull request whose server repeats the secret it was given: no form of it
reaches the comment, the job summary, the outputs, the log or the saved report.json (they are
all built from the masked measurement, ``measuring/masking.py``)."""

from __future__ import annotations

import json
import sys
from urllib.parse import quote

import pytest

from tests.action.github_fake import FakeGitHub
from tests.action.runner_sim import Sim, git, pr_payload
from tests.helpers.paths import ROOT

SERVER = str(ROOT / "tests" / "servers" / "fixtures" / "echo_secret_server.py")
SECRET = 'pr-K3y/"val-7f3a9c1e'


def forms(value: str) -> set[str]:
    return {value, quote(value, safe=""), json.dumps(value)[1:-1]}


@pytest.mark.slow
def test_a_server_repeating_its_env_value_leaks_it_nowhere(sim: Sim, fake: FakeGitHub) -> None:
    def commit(servers: dict[str, object], message: str) -> str:
        (sim.repo / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2))
        git(sim.repo, "add", "-A")
        git(sim.repo, "commit", "-q", "-m", message)
        return git(sim.repo, "rev-parse", "HEAD")

    def echo(*flags: str) -> dict[str, object]:
        argv = [SERVER, *flags, "KEY"]
        return {"command": sys.executable, "args": argv, "env": {"KEY": SECRET}}

    # the head adds a tool named after the secret (a tool change the comment lists) and a
    # server that fails quoting it on stderr (a note the comment and the annotations carry)
    base = commit({"echo": echo("--where", "server")}, "base")
    head = commit({"echo": echo(), "fails": echo("--where", "stderr", "--exit")}, "head")
    _code, log, outputs, summary = sim.run("pull_request", pr_payload(5, base, head), head)
    # the runner consumes its mask commands (they register the value, never show it)
    log = "\n".join(ln for ln in log.splitlines() if not ln.startswith("::add-mask::"))
    saved = (sim.repo / outputs["report-path"]).read_text() if "report-path" in outputs else ""
    comments = json.dumps(list(fake.comments.values()))
    everything = "\n".join([log, json.dumps(outputs), summary, saved, comments])
    assert "echo" in summary and "fails" in summary and fake.comments, log[-3000:]
    where = {
        name: [f for f in forms(SECRET) if f in text]
        for name, text in (
            ("log", log),
            ("outputs", json.dumps(outputs)),
            ("summary", summary),
            ("report", saved),
            ("comments", comments),
        )
    }
    assert sorted(f for f in forms(SECRET) if f in everything) == [], where
    assert "tool_***" in saved, saved  # the tool change is listed, its name masked
