"""The library run for real: ``import mcpcost`` in a fresh interpreter loads no submodule,
docs/LIBRARY.md's example prints what the page says, and ``audit_configs`` audits the bundled demo
servers."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import mcpcost
from tests.helpers.paths import ROOT

LIBRARY_PAGE = ROOT / "docs" / "LIBRARY.md"
DEMO_CONFIG = ROOT / "examples" / "demo" / "mcp.json"


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_import_mcpcost_loads_no_submodule() -> None:
    """The command line imports ``mcpcost`` first: it must not pay for the tokenizer or audit
    (only the one-line version module comes with it)."""
    code = "import sys, mcpcost; print(sorted(m for m in sys.modules if m.startswith('mcpcost')))"
    out = subprocess.run(
        [sys.executable, "-c", code], env=_env(), capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['mcpcost', 'mcpcost.version']"


def _fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.S | re.M)


def test_library_page_example_runs_and_prints_what_the_page_says() -> None:
    page = LIBRARY_PAGE.read_text("utf-8")
    [example] = _fenced(page, "python")
    [expected] = _fenced(page, "text")
    run = subprocess.run(
        [sys.executable, "-c", example],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == expected


def test_audit_configs_returns_the_report_value() -> None:
    report = mcpcost.audit_configs([DEMO_CONFIG], cwd=ROOT, timeout_s=30)
    [config] = report.configs
    assert isinstance(report, mcpcost.AuditReport)
    assert config.source == str(DEMO_CONFIG)
    assert [(s.name, s.tokens) for s in config.servers] == [("notes-heavy", 579), ("notes", 207)]
    assert config.total_tokens == 786
