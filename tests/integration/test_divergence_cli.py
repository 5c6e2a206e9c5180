"""``mcpcost divergence`` end to end: the real vendor SDKs against loopback fakes of the count
endpoints (tests/helpers/count_api_fake.py), over measured trees."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpcost.cli import main
from mcpcost.core.calibration import parse_calibrations
from mcpcost.core.divergence import (
    CLAUDE,
    OPENAI,
    CountApi,
    RowState,
    anthropic_tools,
    openai_tools,
    parse_divergence,
    probe_tool,
)
from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.model import Measurement, render_measurement
from mcpcost.core.status import Status
from mcpcost.runtime.output_tree import atomic_write
from tests.helpers.count_api_fake import FakeCountApi, Running
from tests.helpers.sweep_sites import measured

pytest.importorskip("anthropic")
pytest.importorskip("openai")

ANTHROPIC_KEY = "sk-ant-test-" + "k3y" * 12
OPENAI_KEY = "sk-proj-test-" + "s3cr" * 10


def capture(prefix: str, n: int, words: str = "reads a record from the store") -> list[Any]:
    return [
        {
            "name": f"{prefix}_{i}",
            "title": f"{prefix} {i}",
            "description": f"{words} and returns it as text, number {i}. " * (i + 1),
            "inputSchema": {
                "type": "object",
                "properties": {"id": {"type": "string", "description": "the record id"}},
                "required": ["id"],
            },
            "annotations": {"readOnlyHint": True},
        }
        for i in range(n)
    ]


def write_measurement(root: Path, name: str, tools: list[Any] | None) -> Measurement:
    if tools is None:
        m = Measurement(
            status=Status.TIMEOUT,
            server_name=name,
            launch_command=name,
            measured_at="2026-12-01T00:00:00.000Z",
            timeout_ms=60000,
            notes="no answer",
        )
    else:
        m = measured(name, tools, day="2026-12-01")
    atomic_write(root / "results" / name / "measurement.json", render_measurement(m))
    return m


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    write_measurement(root, "alpha", capture("alpha", 3))
    write_measurement(root, "beta", capture("beta", 6, "writes a document to the index"))
    write_measurement(root, "gamma", capture("gamma", 12, "lists the open issues"))
    write_measurement(root, "broken", None)
    return root


@pytest.fixture
def anthropic_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[Running]:
    served = Running(FakeCountApi(api="anthropic", key=ANTHROPIC_KEY))
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", served.base_url)
    yield served
    served.close()


@pytest.fixture
def openai_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[Running]:
    served = Running(FakeCountApi(api="openai", key=OPENAI_KEY, base=5, fixed=40, factor=1.02))
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", served.base_url)
    yield served
    served.close()


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def read_run(root: Path, rel: str) -> Any:
    return parse_divergence(parse_json((root / rel).read_bytes()))


def test_the_claude_column_is_counted_by_the_sdk_and_written_in_the_reference_shape(
    tree: Path, anthropic_api: Running
) -> None:
    code, out, err = cli("divergence", "--out", str(tree), "--concurrency", "2")
    assert code == 0, err
    fake = anthropic_api.fake
    doc = json.loads((tree / CLAUDE.rel).read_text("utf-8"))
    assert list(doc) == ["method", "model", "measuredAt", "baselineTokens", "probeDelta", "servers"]
    assert doc["method"] == "tools-delta/v1" and doc["model"] == "claude-opus-5"
    assert doc["baselineTokens"] == fake.base
    assert doc["probeDelta"] == fake.expected([probe_tool(CountApi.ANTHROPIC)]) - fake.base
    assert list(doc["servers"]) == ["alpha", "beta", "gamma"]  # the timeout has no capture
    for name, row in doc["servers"].items():
        assert list(row) == [
            "o200kFull",
            "o200kMapped",
            "claudeDelta",
            "toolCount",
            "capturedSha256",
        ]
        m = Measurement.from_dict(
            json.loads((tree / f"results/{name}/measurement.json").read_text())
        )
        assert row["capturedSha256"] == m.canonical_sha256
        assert row["o200kFull"] == m.total_tokens and row["toolCount"] == m.tool_count
        tools = anthropic_tools(m.raw_tools_capture)
        assert row["claudeDelta"] == fake.expected(tools) - fake.base
        assert row["o200kMapped"] < row["o200kFull"]  # title and annotations are not sent
    # what the SDK put on the wire: the documented request fields, one user message of "."
    bodies = [s.body for s in fake.seen]
    assert all(b["model"] == "claude-opus-5" for b in bodies)
    assert all(b["messages"] == [{"role": "user", "content": "."}] for b in bodies)
    assert sum(1 for b in bodies if "tools" not in b) == 1
    assert all(s.headers.get("anthropic-version") for s in fake.seen)
    assert all(s.path == "/v1/messages/count_tokens" for s in fake.seen)
    # the fit: the fake's factor, from rows computed from the captures on disk
    fits = parse_calibrations(parse_json((tree / "results/calibration.json").read_bytes()))
    assert [(f.api, f.n) for f in fits] == [(CountApi.ANTHROPIC, 3)]
    assert fits[0].factor == pytest.approx(fake.factor, rel=0.03)
    assert "3 current, 0 refused" in out


def test_the_openai_column_is_its_own_method_and_file(tree: Path, openai_api: Running) -> None:
    code, out, err = cli("divergence", "--out", str(tree), "--api", "openai", "--json")
    assert code == 0, err
    fake = openai_api.fake
    assert not (tree / CLAUDE.rel).exists()
    run = read_run(tree, OPENAI.rel)
    assert run.method == "responses-tools-delta/v1" and run.model == OPENAI.default_model
    raw = json.loads((tree / OPENAI.rel).read_text("utf-8"))
    assert "openaiDelta" in raw["servers"]["alpha"] and "claudeDelta" not in raw["servers"]["alpha"]
    for row in run.rows:
        m = Measurement.from_dict(
            json.loads((tree / f"results/{row.name}/measurement.json").read_text())
        )
        assert row.delta == fake.expected(openai_tools(m.raw_tools_capture)) - fake.base
    assert all(s.path == "/v1/responses/input_tokens" for s in fake.seen)
    assert all(s.body["input"] == "." for s in fake.seen)
    summary = json.loads(out)
    assert summary["file"] == OPENAI.rel
    assert {s["state"] for s in summary["servers"]} == {"current"}
    fits = parse_calibrations(parse_json((tree / "results/calibration.json").read_bytes()))
    assert [f.api for f in fits] == [CountApi.OPENAI]


def test_a_429_waits_as_retry_after_says(tree: Path, anthropic_api: Running) -> None:
    fake = anthropic_api.fake
    fake.rate_limit_first = 1
    fake.retry_after = "1"
    code, _, err = cli("divergence", "--out", str(tree), "--concurrency", "1")
    assert code == 0, err
    first, second = fake.seen[0], fake.seen[1]
    assert second.at - first.at >= 0.95  # the SDK waited the second it was told to
    assert read_run(tree, CLAUDE.rel).baseline_tokens == fake.base


def test_without_a_key_one_line_exit_2_and_nothing_is_sent(
    tree: Path, anthropic_api: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    code, out, err = cli("divergence", "--out", str(tree))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "ANTHROPIC_API_KEY is not set" in err
    assert anthropic_api.fake.seen == []
    assert not (tree / CLAUDE.rel).exists()


def test_a_refused_key_is_one_line_exit_2_and_nothing_is_written(
    tree: Path, anthropic_api: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "sk-ant-wrong-" + "x" * 30
    monkeypatch.setenv("ANTHROPIC_API_KEY", wrong)
    code, out, err = cli("divergence", "--out", str(tree))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "refused the key in ANTHROPIC_API_KEY (HTTP 401)" in err
    assert wrong not in err
    assert not (tree / CLAUDE.rel).exists() and not (tree / "results/calibration.json").exists()


def test_an_unreachable_endpoint_is_exit_1_and_nothing_is_written(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = Running(FakeCountApi(api="anthropic", key=ANTHROPIC_KEY))
    url = served.base_url
    served.close()
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setattr("mcpcost.cli.divergence_cmd.MAX_RETRIES", 0)
    code, _, err = cli("divergence", "--out", str(tree))
    assert code == 1 and "cannot reach the anthropic API" in err
    assert not (tree / CLAUDE.rel).exists()


def test_no_key_reaches_any_file_or_output(
    tree: Path, anthropic_api: Running, openai_api: Running
) -> None:
    # a refused projection whose error message echoes the key: the row's error is masked
    anthropic_api.fake.reject_tool = "beta_0"
    original = anthropic_api.fake._error

    def echoing(kind: str, message: str) -> Any:
        return original(kind, f"{message} (request made with {ANTHROPIC_KEY})")

    anthropic_api.fake._error = echoing  # type: ignore[method-assign]
    outputs = []
    code, out, err = cli("divergence", "--out", str(tree))
    assert code == 1  # beta's tools were refused
    outputs += [out, err]
    code, out, err = cli("divergence", "--out", str(tree), "--api", "openai", "--json")
    assert code == 0
    outputs += [out, err]
    code, out, err = cli("publish", "--out", str(tree))
    assert code == 0
    outputs += [out, err]
    run = read_run(tree, CLAUDE.rel)
    beta = run.by_name()["beta"]
    assert beta.error is not None and "HTTP 400" in beta.error and "***" in beta.error
    written = [p for p in tree.rglob("*") if p.is_file()]
    assert len(written) > 8
    for text in [*outputs, *(p.read_bytes().decode("utf-8", "replace") for p in written)]:
        assert ANTHROPIC_KEY not in text and OPENAI_KEY not in text
        assert ANTHROPIC_KEY[:20] not in text and OPENAI_KEY[:20] not in text


def test_rows_go_stale_when_a_re_measure_changes_a_hash(tree: Path, anthropic_api: Running) -> None:
    code, _, err = cli("divergence", "--out", str(tree))
    assert code == 0, err
    before = read_run(tree, CLAUDE.rel).by_name()
    # re-measure: alpha's tools changed, gamma now times out
    alpha = write_measurement(tree, "alpha", capture("alpha", 4))
    write_measurement(tree, "gamma", None)
    assert not before["alpha"].current_for(alpha.canonical_sha256)
    assert before["alpha"].state_for(alpha) is RowState.STALE
    # the next run recounts alpha; gamma's row is kept from the earlier run, and marked stale
    code, out, err = cli("divergence", "--out", str(tree), "--json")
    assert code == 0, err
    states = {s["name"]: (s["state"], s["counted"]) for s in json.loads(out)["servers"]}
    assert states == {
        "alpha": ("current", True),
        "beta": ("current", True),
        "gamma": ("stale", False),
    }
    after = read_run(tree, CLAUDE.rel).by_name()
    assert after["alpha"].captured_sha256 == alpha.canonical_sha256
    assert after["gamma"] == before["gamma"]
    fits = parse_calibrations(parse_json((tree / "results/calibration.json").read_bytes()))
    assert sorted(r.name for r in fits[0].rows) == ["alpha", "beta"]  # never the stale row
    # the published pages never show the stale row's number as current
    assert cli("publish", "--out", str(tree))[0] == 0
    board = (tree / "results/leaderboard.md").read_text("utf-8")
    assert f"{after['beta'].delta:,}" in board or str(after["beta"].delta) in board
    assert str(after["gamma"].delta) not in board


def test_a_run_of_another_model_starts_afresh(tree: Path, anthropic_api: Running) -> None:
    assert cli("divergence", "--out", str(tree))[0] == 0
    write_measurement(tree, "gamma", None)
    assert cli("divergence", "--out", str(tree), "--model", "claude-sonnet-5")[0] == 0
    run = read_run(tree, CLAUDE.rel)
    assert run.model == "claude-sonnet-5" and sorted(run.by_name()) == ["alpha", "beta"]


def test_the_reference_captures_through_the_whole_path(
    tmp_path: Path, reference_captures: list[Path], anthropic_api: Running
) -> None:
    root = tmp_path / "ref"
    for path in reference_captures:
        name = path.name.split(".")[0]
        (root / "results" / name).mkdir(parents=True)
        shutil.copyfile(path, root / "results" / name / "measurement.json")
    code, _, err = cli("divergence", "--out", str(root), "--concurrency", "4")
    assert code == 0, err
    run = read_run(root, CLAUDE.rel)
    rows = run.by_name()
    for path in reference_captures:
        m = json.loads(path.read_text("utf-8"))
        name = path.name.split(".")[0]
        if m["status"] in ("measured", "dynamic") and m.get("totalTokens") is not None:
            assert rows[name].captured_sha256 == m["canonicalSha256"]
            assert rows[name].o200k_full == m["totalTokens"]
    # the mapped counts the reference published for these captures (anchor-research-turn3 §3.4)
    assert rows["github"].o200k_mapped == 10535
    assert rows["notion"].o200k_mapped == 17163
    assert all(r.state_for(None) is RowState.STALE for r in run.rows)  # no measurement given


def test_publish_shows_both_columns_and_each_fit_with_its_rows(
    tree: Path, anthropic_api: Running, openai_api: Running
) -> None:
    assert cli("divergence", "--out", str(tree))[0] == 0
    assert cli("divergence", "--out", str(tree), "--api", "openai")[0] == 0
    (tree / "results/calibration.json").unlink()  # publish makes it again from the runs
    code, out, _ = cli("publish", "--out", str(tree))
    assert code == 0 and "results/calibration.json" in out
    board = (tree / "results/leaderboard.md").read_text("utf-8")
    fits = parse_calibrations(parse_json((tree / "results/calibration.json").read_bytes()))
    assert [f.api for f in fits] == [CountApi.ANTHROPIC, CountApi.OPENAI]
    for fit in fits:
        heading = f"## {fit.column.vendor} request tokens estimated from o200k"
        assert heading in board
        section = board.split(heading, 1)[1]
        assert f"{fit.factor:.3f} ×" in section
        assert f"maximum {100 * fit.max_relative_error:.1f}%" in section
        for r in fit.rows:
            assert f"| {r.name} | {r.o200k_mapped:,} | {r.delta:,} | {r.estimate:,} |" in section
    assert "| claude | openai |" in board
    csv_head = (tree / "results/leaderboard.csv").read_text("utf-8").splitlines()[0]
    assert csv_head.endswith(",openaiTokens,openaiModel")
    page = (tree / "docs/servers/gamma.md").read_text("utf-8")
    assert "## What this costs on OpenAI" in page and "## What this costs on Claude" in page


@pytest.mark.slow
def test_a_sweep_runs_the_columns_after_it_publishes(
    tmp_path: Path, anthropic_api: Running, openai_api: Running
) -> None:
    import shlex

    from tests.servers.registry import fixture_argv

    servers = tmp_path / "servers.yaml"
    servers.write_text(
        "servers:\n"
        + "".join(
            f"  - name: srv-{i}\n    command: {shlex.join(fixture_argv('good'))!r}\n"
            for i in range(2)
        )
    )
    site = tmp_path / "site"
    code, _, err = cli(
        "sweep", "--servers", str(servers), "--out", str(site), "--divergence", "anthropic,openai"
    )
    assert code == 0, err
    assert sorted(read_run(site, CLAUDE.rel).by_name()) == ["srv-0", "srv-1"]
    assert sorted(read_run(site, OPENAI.rel).by_name()) == ["srv-0", "srv-1"]
    board = (site / "results/leaderboard.md").read_text("utf-8")
    assert "| claude | openai |" in board and "## Claude request tokens estimated" in board


def test_a_sweep_with_a_column_but_no_key_is_refused_before_any_server_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    servers = tmp_path / "servers.yaml"
    servers.write_text("servers:\n  - name: a\n    command: 'does-not-exist'\n")
    code, out, err = cli(
        "sweep", "--servers", str(servers), "--out", str(tmp_path / "o"), "--divergence", "openai"
    )
    assert code == 2 and out == ""
    assert "OPENAI_API_KEY is not set" in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()
    code, _, err = cli("sweep", "--servers", str(servers), "--divergence", "gemini")
    assert code == 2 and "--divergence takes anthropic and/or openai" in err
