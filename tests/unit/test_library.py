"""The package's public API: ``__all__`` pinned, every name documented and loadable, ``import
mcpcost`` cheap, and docs/LIBRARY.md's example run for real against the bundled demo servers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mcpcost
from mcpcost.errors import InputError
from tests.helpers.paths import ROOT

LIBRARY_PAGE = ROOT / "docs" / "LIBRARY.md"
DEMO_CONFIG = ROOT / "examples" / "demo" / "mcp.json"

PUBLIC_API = [
    "AuditReport",
    "Canonical",
    "ConfigResult",
    "InputError",
    "Isolation",
    "McpcostError",
    "Measurement",
    "ServerResult",
    "ServerSpec",
    "Status",
    "ToolCost",
    "ToolsMeasure",
    "VerifyResult",
    "__version__",
    "audit_configs",
    "canonicalize",
    "count_tokens",
    "measure_server",
    "measure_tools",
    "parse_json",
    "render_badge",
    "stringify",
    "verify_document",
]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_all_is_pinned() -> None:
    assert mcpcost.__all__ == PUBLIC_API


def test_every_public_name_loads_and_is_in_the_docstring() -> None:
    doc = mcpcost.__doc__ or ""
    for name in mcpcost.__all__:
        assert getattr(mcpcost, name) is not None
        assert f"``{name}``" in doc, f"{name} is not listed in mcpcost's docstring"
        assert name in dir(mcpcost)


def test_public_names_are_the_defining_modules_objects() -> None:
    from mcpcost.audit.api import audit_configs
    from mcpcost.core.model import Measurement
    from mcpcost.measuring.server import measure_server

    assert mcpcost.audit_configs is audit_configs
    assert mcpcost.measure_server is measure_server
    assert mcpcost.Measurement is Measurement


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = mcpcost.no_such_name  # type: ignore[attr-defined]


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


def test_audit_configs_missing_file_is_an_input_error(tmp_path: Path) -> None:
    missing = tmp_path / "absent.json"
    with pytest.raises(InputError, match="no such file"):
        mcpcost.audit_configs([missing])
    assert issubclass(mcpcost.InputError, mcpcost.McpcostError)
