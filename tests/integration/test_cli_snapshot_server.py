"""``mcpcost snapshot`` on a real server built from its source in a git repository: the pinned
PyPI ``mcp-server-time`` copied into a test repository, snapshotted, then changed by a commit
that grows one tool's description and adds a tool."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcpcost.cli import main
from mcpcost.core.attribution import tool_entry
from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.tokenizer import count_tokens
from tests.servers.registry import PY_VENV, real_server_missing

pytestmark = pytest.mark.skipif(
    real_server_missing("time") is not None, reason=str(real_server_missing("time"))
)

GROWN = (
    "Get current time in a specific timezone. Use it whenever the user asks what time it is "
    "somewhere, or needs the current date in a place; the answer carries the timezone, the "
    "ISO datetime and whether daylight saving time is in effect there."
)
NEW_TOOL = """
    @server.tool(name="list_zones", description="List the IANA timezone names this server knows")
    def list_zones() -> list[str]:
        return []

    return server
"""


def _python() -> str:
    return str(PY_VENV / "bin" / "python")


def _package() -> Path:
    found = sorted(PY_VENV.glob("lib/python3*/site-packages/mcp_server_time"))
    assert found, "mcp_server_time is not in the test servers' venv"
    return found[0]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def _gate_file(extra: str = "") -> str:
    return (
        "[server]\n"
        f"command = {json.dumps([_python(), '-m', 'mcp_server_time'])}\n"
        'cwd = "."\n'
        "timeout = 60\n"
        "[profiles.utc]\n"
        'args = ["--local-timezone", "UTC"]\n' + extra
    )


def _run(repo: Path, monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, str, str]:
    monkeypatch.chdir(repo)
    out, err = io.StringIO(), io.StringIO()
    code = main(["snapshot", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "time-server"
    root.mkdir()
    shutil.copytree(
        _package(), root / "mcp_server_time", ignore=shutil.ignore_patterns("__pycache__")
    )
    (root / "mcpcost.toml").write_text(_gate_file(), encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "the server")
    return root


def _grow_and_add(repo: Path) -> None:
    server = repo / "mcp_server_time" / "server.py"
    text = server.read_text(encoding="utf-8")
    assert text.count('description="Get current time in a specific timezone"') == 1
    text = text.replace(
        'description="Get current time in a specific timezone"', f"description={GROWN!r}"
    )
    head, sep, tail = text.rpartition("\n    return server\n")
    assert sep
    server.write_text(head + NEW_TOOL + tail, encoding="utf-8")
    _git(repo, "commit", "-qam", "grow get_current_time, add list_zones")


def _live_tools(repo: Path) -> dict[str, object]:
    """The server's tools as a fresh ``mcpcost measure --json`` captures them."""
    code = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcpcost",
            "measure",
            "--json",
            "--",
            _python(),
            "-m",
            "mcp_server_time",
            "--local-timezone",
            "UTC",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert code.returncode == 0, code.stderr
    capture = json.loads(code.stdout)["rawToolsCapture"]
    return {t["name"]: t for t in capture}


def test_snapshot_update_check_and_the_attribution_of_a_change(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = _run(repo, monkeypatch, "--update")
    assert code == 0, err
    snap = repo / "mcpcost.snapshot.json"
    first = snap.read_bytes()
    committed = json.loads(first)
    assert committed["methodologyVersion"] == "1.0" and committed["encoding"] == "o200k_base"
    [profile] = committed["profiles"]
    assert profile["profile"] == "utc"
    assert [t["name"] for t in profile["tools"]] == ["get_current_time", "convert_time"]
    # one tool a line, and the same bytes when recorded again
    lines = first.decode().splitlines()
    assert sum(1 for line in lines if line.strip().startswith('{"name":')) == 2
    assert _run(repo, monkeypatch, "--update")[0] == 0
    assert snap.read_bytes() == first
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "the snapshot")

    code, out, err = _run(repo, monkeypatch, "--check")
    assert code == 0, out + err
    assert "matches mcpcost.snapshot.json" in out

    _grow_and_add(repo)
    code, out, err = _run(repo, monkeypatch, "--check")
    assert code == 1, out + err
    grew = next(line for line in out.splitlines() if "grew get_current_time" in line)
    assert "(description " in grew
    assert any("added list_zones" in line for line in out.splitlines())
    assert "mcpcost snapshot --update" in out

    code, out, _ = _run(repo, monkeypatch, "--check", "--format", "json")
    assert code == 1
    report = json.loads(out)
    [p] = report["profiles"]
    moves = {m["name"]: m for m in p["attribution"]["moves"]}
    assert set(moves) == {"get_current_time", "list_zones"}
    assert moves["list_zones"]["kind"] == "added"
    g = moves["get_current_time"]
    assert g["kind"] == "grew"
    assert [f["field"] for f in g["fields"]] == ["description"]
    before = next(t for t in profile["tools"] if t["name"] == "get_current_time")
    assert g["tokensBefore"] == before["tokens"]
    assert g["fields"][0]["before"] == before["description"]
    # the numbers after are the live capture's, counted again from a separate measurement
    live = _live_tools(repo)
    entry = tool_entry(parse_json(json.dumps(live["get_current_time"])))
    assert g["tokensAfter"] == entry.tokens
    assert g["fields"][0]["after"] == entry.split["description"]
    assert (
        moves["list_zones"]["tokensAfter"]
        == tool_entry(parse_json(json.dumps(live["list_zones"]))).tokens
    )
    assert report["failures"][0]["rule"] == "snapshot"

    code, out, _ = _run(repo, monkeypatch, "--check", "--format", "markdown", "--sarif", "s.sarif")
    assert code == 1
    assert "| grew | `get_current_time` |" in out
    assert "| added | `list_zones` |" in out

    code, out, _ = _run(repo, monkeypatch, "--check", "--format", "sarif")
    assert code == 1
    sarif = json.loads(out)
    beside = json.loads((repo / "s.sarif").read_text(encoding="utf-8"))
    assert beside["runs"][0]["results"] == sarif["runs"][0]["results"]
    results = sarif["runs"][0]["results"]
    on_line = {
        r["message"]["text"]: r["locations"][0]["physicalLocation"]["region"]["startLine"]
        for r in results
    }
    tool_line = next(
        n
        for n, line in enumerate(first.decode().splitlines(), start=1)
        if '"name":"get_current_time"' in line
    )
    grew_result = next(t for t in on_line if "grew get_current_time" in t)
    assert on_line[grew_result] == tool_line
    assert all(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "mcpcost.snapshot.json"
        for r in results
    )

    code, _, err = _run(repo, monkeypatch, "--update")
    assert code == 0, err
    assert _run(repo, monkeypatch, "--check")[0] == 0


def test_gate_file_verdicts_and_a_two_profile_range(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two = _gate_file(
        "[profiles.far]\n"
        'args = ["--local-timezone", "America/Argentina/ComodRivadavia"]\n'
        "[gates]\n"
        "no-new-tools = true\n"
        "max-tool-growth-tokens = 20\n"
        "max-growth-percent = 50\n"
        '[gates.tool-budgets]\n"get_*" = 230\n'
    )
    (repo / "mcpcost.toml").write_text(two, encoding="utf-8")
    assert _run(repo, monkeypatch, "--update")[0] == 0
    committed = json.loads((repo / "mcpcost.snapshot.json").read_text(encoding="utf-8"))
    totals = {p["profile"]: p["totalTokens"] for p in committed["profiles"]}
    assert totals["far"] > totals["utc"]  # the longer zone name is in three descriptions

    # unchanged: the budgets hold and the range names each end
    code, out, err = _run(repo, monkeypatch, "--format", "json", "--fixes", "--badge", "b.json")
    assert code == 0, out + err
    report = json.loads(out)
    # the outputSchema fix saves exactly what the capture without outputSchema counts less
    live = list(_live_tools(repo).values())
    bare = [{k: v for k, v in t.items() if k != "outputSchema"} for t in live]  # type: ignore[attr-defined]
    [fix] = [f for f in report["fixes"] if f["profile"] == "utc" and f["kind"] == "output-schema"]
    assert fix["tokensBefore"] == count_tokens(stringify(parse_json(json.dumps(live))))
    assert fix["saving"] == fix["tokensBefore"] - count_tokens(
        stringify(parse_json(json.dumps(bare)))
    )
    assert fix["saving"] > 0
    assert report["range"]["low"] == {"profile": "utc", "totalTokens": totals["utc"]}
    assert report["range"]["high"] == {"profile": "far", "totalTokens": totals["far"]}
    badge = json.loads((repo / "b.json").read_text(encoding="utf-8"))
    assert badge["message"] == f"{totals['utc']}-{totals['far']} tokens"  # both under 1,000

    _grow_and_add(repo)
    code, out, err = _run(repo, monkeypatch)  # no --check: only the gates decide
    assert code == 1, out + err
    fails = [line for line in out.splitlines() if line.startswith("FAIL ")]
    rules = {line.split()[1] for line in fails}
    assert rules == {"no-new-tools", "max-tool-growth-tokens", "tool-budgets"}
    assert any("[utc]" in line and "list_zones is new" in line for line in fails)
    assert any("[far]" in line for line in fails)
    assert "range: " in out and "(utc - far)" in out

    # a gate file with a key it does not know: one line, exit 2, nothing measured
    bad = two.replace("[gates]\n", "[gates]\nmax-everything = 1\n")
    (repo / "mcpcost.toml").write_text(bad, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mcpcost", "snapshot", "--check"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "mcpcost.toml: gates: unknown key 'max-everything' (known: "
        + done.stderr.split("(known: ", 1)[1].strip()
    ]
    assert done.stdout == ""
