"""The README's set-up section: exactly two commands from a clone, and what they name exists
here; beside them, the PyPI ones name this distribution and its command.

The install command downloads the dependencies from PyPI, so it is not run here (tests never
reach the internet); what it names is checked instead, and tests/integration/test_packaging.py
installs the built wheel in a fresh environment."""

from __future__ import annotations

import os
import re
import shlex
import tomllib

from tests.helpers.paths import ROOT


def _setup_section() -> str:
    readme = (ROOT / "README.md").read_text("utf-8")
    return readme.split("\n## Set-up\n", 1)[1].split("\n## ", 1)[0]


def _setup_commands() -> list[str]:
    section = _setup_section()
    return [block.strip() for block in re.findall(r"^```sh\n(.*?)^```$", section, re.S | re.M)]


def test_setup_has_exactly_two_one_line_commands() -> None:
    commands = _setup_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)


def test_install_command_uses_a_fresh_venv_and_the_bundled_example() -> None:
    install, _ = _setup_commands()
    steps = [shlex.split(step) for step in install.split("&&")]
    assert steps[0] == ["python3", "-m", "venv", ".venv"]
    assert steps[1] == [".venv/bin/pip", "install", "."]
    assert steps[2][0] == ".venv/bin/mcpcost" and steps[2][1] == "audit"
    config = steps[2][steps[2].index("--config") + 1]
    assert (ROOT / config).is_file()
    assert "mcpcost = " in (ROOT / "pyproject.toml").read_text("utf-8")


def test_test_command_is_the_ci_entry_point() -> None:
    _, run_tests = _setup_commands()
    assert run_tests == "scripts/test"
    assert os.access(ROOT / "scripts" / "test", os.X_OK)
    assert "exec scripts/test" in (ROOT / ".ci" / "run").read_text("utf-8")


def test_pypi_commands_name_this_distribution_and_its_console_script() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    section = " ".join(_setup_section().split())
    prose = re.sub(r"```sh.*?```", "", section)  # the fenced commands out, the inline ones left
    inline = re.findall(r"`([^`]+)`", prose)
    name = project["name"]
    assert f"pipx install {name}" in inline and f"uv tool install {name}" in inline
    # what works from a clone comes first; the released spellings after, as the release's,
    # and the released install is led by uv tool install
    first_fence = section.index("```sh")
    released = section.index("What the first release makes")
    assert first_fence < released
    for spelling in (f"uv tool install {name}", f"pipx install {name}", "uvx ", "action@v1"):
        assert section.index(spelling) > released, spelling
    assert section.index(f"uv tool install {name}") < section.index(f"pipx install {name}")
    uvx = next(shlex.split(c) for c in inline if c.startswith("uvx "))
    assert uvx == ["uvx", "--from", name, "mcpcost", "audit"]
    assert "mcpcost" in project["scripts"]


def test_the_action_example_works_today_and_says_what_budget_counts() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("\n### The GitHub Action\n", 1)[1].split("\n### ", 1)[0]
    (example,) = re.findall(r"^```yaml\n(.*?)^```$", section, re.S | re.M)
    assert "- uses: mcp-context-cost/mcp-context-cost@<full commit SHA>" in example
    assert "budget: 20000" in example and "budget-full: true" in example
    prose = " ".join(section.split())
    assert "Claude Code defers MCP tools by default" in prose
    assert "`budget-full: true` judges the budget against every tool definition" in prose
    assert section.index("mcp-context-cost/action@v1") > section.index("```yaml")
    for word in ("budget", "budget-full"):
        assert f"\n  {word}:" in (ROOT / "action.yml").read_text("utf-8")
