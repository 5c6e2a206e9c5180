"""The example workflows agree with the code: pr-gate.yml triggers on every repository config
the Action reads, as scripts/workflow-paths.py writes the list from the client registry."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from mcpcost.action.gitrefs import matching
from mcpcost.configs.clients.registry import PROJECT_CONFIG_PATHS
from tests.helpers.paths import ROOT

SCRIPT = ROOT / "scripts" / "workflow-paths.py"
PR_GATE = ROOT / "examples" / "workflows" / "pr-gate.yml"


def script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60
    )


def github_filter_matches(pattern: str, path: str) -> bool:
    """GitHub's paths-filter glob for what the registry uses: ``*`` is any run of characters
    but ``/``; everything else is literal."""
    regex = "".join("[^/]*" if c == "*" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, path) is not None


def test_pr_gate_triggers_on_every_config_path_the_action_reads() -> None:
    workflow = yaml.safe_load(PR_GATE.read_text())
    assert workflow[True]["pull_request"]["paths"] == list(PROJECT_CONFIG_PATHS)
    assert len(PROJECT_CONFIG_PATHS) > 3
    assert script("--check").returncode == 0


def test_the_filter_and_the_action_pick_the_same_files() -> None:
    for pattern in PROJECT_CONFIG_PATHS:
        sample = pattern.replace("*", "team-servers")
        assert matching([sample], [pattern]) == [sample]  # the Action reads it
        assert github_filter_matches(pattern, sample), pattern  # and a change to it triggers
    unrelated = ["README.md", "src/mcp.json", "docs/.mcp.json.md"]
    assert matching(unrelated, list(PROJECT_CONFIG_PATHS)) == []
    assert not any(github_filter_matches(p, u) for p in PROJECT_CONFIG_PATHS for u in unrelated)


def test_script_rewrites_a_stale_list_and_check_says_so(tmp_path: Path) -> None:
    stale = tmp_path / "pr-gate.yml"
    old = PR_GATE.read_text()
    text = re.sub(r'(?m)^      - "(?!\.mcp\.json|\.cursor/|\.vscode/).*\n', "", old)
    assert text != old
    stale.write_text(text)
    checked = script("--check", str(stale))
    assert checked.returncode == 1 and "out of date" in checked.stderr
    assert stale.read_text() == text  # --check writes nothing
    written = script(str(stale))
    assert written.returncode == 0 and stale.read_text() == old
    assert script("--check", str(stale)).returncode == 0


def test_a_workflow_without_a_paths_list_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "w.yml"
    shutil.copy(ROOT / "examples" / "workflows" / "fork-safe-measure.yml", other)
    done = script("--check", str(other))
    assert done.returncode == 2 and "no pull_request trigger with a paths: list" in done.stderr


def test_the_gates_scope_is_said_one_way_everywhere() -> None:
    """budget: per client session; max-increase: per config file (the engine's rules)."""
    inputs = yaml.safe_load((ROOT / "action.yml").read_text())["inputs"]
    assert "each client session" in inputs["budget"]["description"]
    assert "each config file" in inputs["max-increase"]["description"]
    assert "per config file" in inputs["max-increase-percent"]["description"]
    examples = " ".join((ROOT / "examples" / "workflows" / "README.md").read_text().split())
    assert "`budget` is judged per client session" in examples
    assert "`max-increase-percent` are judged per config file" in examples
    audit = " ".join((ROOT / "docs" / "AUDIT.md").read_text().split())
    assert (
        "its budget is judged per session; the increase gate and the PR comment's diff stay per file"
        in audit
    )
    for text in (examples, audit, " ".join(str(i) for i in inputs.values())):
        assert "every config separately" not in text and "judged on its own" not in text
