"""`mcpcost verify`, `count` and `badge` as a user runs them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from mcpcost.core.jsonvalue import parse_json, stringify
from tests.helpers.cli_core import (
    good_fixture,  # noqa: F401  (the fixture)
    run,
)


def test_verify_ok(good: Path) -> None:
    code, out, _ = run("verify", str(good))
    assert code == 0
    assert out.startswith("OK echo-server: ")
    assert "capture, hash, and count all agree" in out
    assert '"message":' in out.splitlines()[1]


def test_verify_json_one_object_per_input(good: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    code, out, _ = run("verify", "--json", str(good), str(bad), str(tmp_path / "missing.json"))
    assert code == 2  # unreadable input
    lines = [json.loads(line) for line in out.splitlines()]
    assert [x["ok"] for x in lines] == [True, False, False]
    assert [x["verdict"] for x in lines] == ["agrees", "unreadable", "unreadable"]
    assert lines[0]["badge"].startswith('{"schemaVersion":1')
    assert "badge" not in lines[1]
    assert lines[2]["problems"] == [f"{tmp_path / 'missing.json'}: no such file"]
    keys = "source ok verdict serverName rederivedTokens rederivedSha problems badge"
    assert set(lines[0]) == set(keys.split())


def test_verify_reports_each_problem_on_its_own_line(good: Path) -> None:
    doc = parse_json(good.read_bytes())
    doc["totalTokens"] += 1
    doc["toolCount"] = 7
    good.write_text(stringify(doc), encoding="utf-8")
    code, out, _ = run("verify", str(good))
    assert code == 1
    assert out.splitlines()[0] == "FAIL echo-server:"
    assert any(line.startswith("  - token mismatch: re-derived") for line in out.splitlines())
    assert any(
        line.startswith("  - toolCount mismatch: capture has 1, stored 7")
        for line in out.splitlines()
    )


def test_verify_usage_errors_exit_2(good: Path) -> None:
    assert run("verify")[0] == 2
    code, _, err = run("verify", "--nope", str(good))
    assert code == 2 and "--nope" in err and "0.1.0" in err
    assert run("verify", "--json=yes", str(good))[0] == 2


def test_count_reads_stdin_and_rejects_invalid_json() -> None:
    code, out, _ = run("count", stdin=b"[]")
    assert (
        code == 0 and out.startswith("1 token  sha256 ") and "2 bytes (the whole document)" in out
    )
    code, out, err = run("count", "-", stdin=b"[1,]")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


def test_count_of_a_measurement_says_what_it_counted_and_gives_the_capture(good: Path) -> None:
    recorded = json.loads(good.read_text())
    code, out, _ = run("count", str(good))
    whole, capture = out.splitlines()
    assert code == 0 and whole.endswith("(the whole document)")
    assert int(whole.split()[0]) > recorded["totalTokens"]  # names and numbers count too
    assert capture.startswith(
        f"its rawToolsCapture, the server's number: {recorded['totalTokens']} "
    )
    assert recorded["canonicalSha256"] in capture and "count --capture" in capture
    code, out, _ = run("count", "--json", str(good))
    doc = json.loads(out)
    assert doc["counted"] == "document" and doc["tokens"] > recorded["totalTokens"]
    assert doc["capture"]["tokens"] == recorded["totalTokens"]
    assert doc["capture"]["sha256"] == recorded["canonicalSha256"]
    code, out, _ = run("count", "--capture", "--json", str(good))
    only = json.loads(out)
    assert (only["tokens"], only["sha256"]) == (
        recorded["totalTokens"],
        recorded["canonicalSha256"],
    )
    assert only["counted"] == "rawToolsCapture" and "capture" not in only
    code, out, err = run("count", "--capture", stdin=b'{"rawToolsCapture": null}')
    assert code == 2 and out == "" and "no rawToolsCapture array" in err


def test_badge_command(good: Path) -> None:
    code, out, _ = run("badge", str(good), "--label", "ctx")
    assert code == 0
    assert out.startswith('{"schemaVersion":1,"label":"ctx","message":"')
    assert out.endswith('"cacheSeconds":3600}\n')


def test_unknown_command_and_help() -> None:
    code, _, err = run("frobnicate")
    assert code == 2 and "unknown command" in err
    code, out, _ = run("--help")
    assert code == 0 and "verify" in out


@pytest.mark.parametrize("columns", [50, 120])
def test_command_help_wraps_to_the_terminal_width(
    columns: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    code, _, _ = run("audit", "--help")  # argparse prints help to sys.stdout itself
    out = capsys.readouterr().out
    # the usage synopsis cannot break inside a bracketed flag; the option help below it wraps
    lines = out.split("\noptions:\n", 1)[1].splitlines()
    assert code == 0 and "--fail-on-unmeasured" in out
    assert max(len(line) for line in lines) <= columns - 2
    # wide enough to use the room: some line comes close to the edge
    assert max(len(line) for line in lines) > columns - 20


def test_terminal_width_is_columns_then_the_terminal_then_the_default() -> None:
    from mcpcost.cli.streams import terminal_width

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

        def fileno(self) -> int:
            raise OSError("not a real terminal")

    assert terminal_width({"COLUMNS": "97"}, io.StringIO(), 80) == 97
    for bad in ("", "0", "-3", "not-a-number"):
        assert terminal_width({"COLUMNS": bad}, io.StringIO(), 80) == 80  # no terminal
        assert terminal_width({"COLUMNS": bad}, Tty(), 72) == 72  # one that cannot say
        assert terminal_width({"COLUMNS": bad}, None, 100) == 100
