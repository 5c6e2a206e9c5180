"""The audit report and its composition: per-config totals are the sum of the servers' own measurements,
nothing is merged across files, each distinct launch is measured once with bounded concurrency."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from mcpcost.audit.compose import (
    distinct_launches,
    measure_launches,
)
from mcpcost.audit.report import build_report
from mcpcost.audit.report_model import NOT_LAUNCHABLE, NOTE_LIMIT, UNRESOLVED, first_line
from mcpcost.configs.config_file import ConfigEntry, ConfigFile, ConfigState
from mcpcost.core.measure import measure_tools, session_start
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from tests.helpers.audit_builders import (
    TABLE,
    audit_report,
    config,
    entry,
    measure_from,
    measured,
    report_for,
    tools,
)

# ----------------------------------------------------------------- totals


def test_config_total_is_the_sum_of_each_servers_own_measurement() -> None:
    cfgs = [config("cursor", "/h/.cursor/mcp.json", entry("alpha"), entry("beta"), entry("dead"))]
    report = report_for(cfgs, TABLE)
    (c,) = report.configs
    own = {n: measure_tools(TABLE[n]).total_tokens for n in ("alpha", "beta")}  # type: ignore[arg-type]
    assert c.total_tokens == own["alpha"] + own["beta"]
    assert {s.name: s.tokens for s in c.servers} == own
    assert c.tool_count == 4 and c.server_count == 2
    assert [s.name for s in c.skipped] == ["dead"] and c.skipped[0].status == "startup-failure"
    assert c.servers[0].tokens >= c.servers[1].tokens  # type: ignore[operator]
    assert sum(s.share or 0 for s in c.servers) == pytest.approx(1.0)
    assert c.context_share == pytest.approx(c.total_tokens / 200_000)


def test_nothing_is_merged_across_files() -> None:
    cfgs = [
        config("cursor", "/h/.cursor/mcp.json", entry("alpha"), entry("beta")),
        config(
            "claude-desktop",
            "/h/.config/Claude/claude_desktop_config.json",
            entry("alpha"),
            entry("gamma"),
        ),
    ]
    report = report_for(cfgs, TABLE)
    totals = {c.source: c.total_tokens for c in report.configs}
    t = {n: measure_tools(TABLE[n]).total_tokens for n in ("alpha", "beta", "gamma")}  # type: ignore[arg-type]
    assert totals == {
        "/h/.cursor/mcp.json": t["alpha"] + t["beta"],
        "/h/.config/Claude/claude_desktop_config.json": t["alpha"] + t["gamma"],
    }
    # heaviest first
    assert report.configs[0].total_tokens >= report.configs[1].total_tokens


def test_each_distinct_launch_is_measured_once_across_configs() -> None:
    calls: list[str] = []
    cfgs = [
        config("cursor", "/a.json", entry("alpha"), entry("beta")),
        config("vscode", "/b.json", entry("alpha"), entry("other-name", "beta")),
    ]
    audit_report(cfgs, measure_from(TABLE, calls), concurrency=2)
    assert sorted(calls) == ["alpha", "beta"]


def test_entries_differing_only_in_env_are_measured_separately_and_listed() -> None:
    calls: list[str] = []
    cfgs = [
        config("cursor", "/a.json", entry("gh", "alpha", env={"TOOLSETS": "repos"})),
        config("vscode", "/b.json", entry("gh", "alpha", env={"TOOLSETS": "all"})),
    ]
    report = audit_report(cfgs, measure_from(TABLE, calls), concurrency=2)
    assert calls == ["alpha", "alpha"]
    (variant,) = report.env_variants
    assert {src for src, _ in variant.entries} == {"/a.json", "/b.json"}
    assert all(
        c.deferral is not None and c.deferral.reference_dict()["sharedMeasurements"] == 0
        for c in report.configs
    )


def test_concurrency_is_bounded_and_progress_is_reported() -> None:
    lock = threading.Lock()
    running = [0, 0]  # now, max

    def slow(spec: ServerSpec) -> Measurement:
        with lock:
            running[0] += 1
            running[1] = max(running[1], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return measured(spec, tools("x", 1))

    events: list[tuple[str, Any]] = []

    class Progress:
        def started(self, name: str, total: int) -> None:
            events.append(("start", (name, total)))

        def finished(self, name: str, status: str, done: int, total: int) -> None:
            events.append(("done", (name, status, done, total)))

    launches = {str(i): ServerSpec.stdio(f"s{i}", ["bin", str(i)]) for i in range(8)}
    out = measure_launches(launches, slow, concurrency=3, progress=Progress())
    assert len(out) == 8
    assert running[1] == 3
    done = [e[1] for e in events if e[0] == "done"]
    assert sorted(d[2] for d in done) == list(range(1, 9))
    assert all(d[3] == 8 and d[1] == "measured" for d in done)
    assert len([e for e in events if e[0] == "start"]) == 8


def test_a_measure_function_that_raises_becomes_a_masked_startup_failure() -> None:
    secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"

    def boom(spec: ServerSpec) -> Measurement:
        raise RuntimeError(f"token {secret} refused")

    cfgs = [config("cursor", "/a.json", entry("alpha", env={"GITHUB_TOKEN": secret}))]
    report = audit_report(cfgs, boom)
    (skip,) = report.configs[0].skipped
    assert skip.status == "startup-failure"
    assert secret not in (skip.notes or "") and "RuntimeError" in (skip.notes or "")
    assert not report.measured_any


def test_unresolved_and_unlaunchable_entries_are_reported_not_launched() -> None:
    calls: list[str] = []
    cfgs = [
        config(
            "vscode",
            "/w/.vscode/mcp.json",
            entry("alpha"),
            ConfigEntry(
                name="needs-input",
                spec=None,
                unresolved=("${input:token}",),
                problem="unresolved reference ${input:token}",
            ),
            ConfigEntry(name="broken", spec=None, problem="no command"),
            entry("off", "beta", disabled=True),
        )
    ]
    report = audit_report(cfgs, measure_from(TABLE, calls))
    assert calls == ["alpha"]
    c = report.configs[0]
    status = {s.name: s.status for s in c.skipped}
    assert status == {"needs-input": UNRESOLVED, "broken": NOT_LAUNCHABLE}
    assert c.disabled == ("off",)
    assert [(u.name, u.references) for u in report.unresolved] == [
        ("needs-input", ("${input:token}",))
    ]


def test_empty_disabled_and_unreadable_configs_are_listed_not_audited() -> None:
    cfgs = [
        ConfigFile(client="cursor", source="/e.json", state=ConfigState.DECLARES_NOTHING),
        ConfigFile(
            client="cursor",
            source="/d.json",
            state=ConfigState.ALL_DISABLED,
            entries=(entry("a", disabled=True),),
        ),
        ConfigFile(
            client="zed", source="/z.json", state=ConfigState.ERROR, error="bad JSON at 3:4"
        ),
    ]
    launches = distinct_launches(cfgs)
    assert launches == {}
    report = build_report(cfgs, {}, generated_at="x")
    assert report.configs == () and not report.measured_any
    assert {e.source: e.state for e in report.empty_configs} == {
        "/e.json": "declares-nothing",
        "/d.json": "all-disabled",
        "/z.json": "error",
    }
    assert "/z.json: bad JSON at 3:4" in report.problems


def test_heaviest_tools_and_trim_advice() -> None:
    cfgs = [config("cursor", "/a.json", entry("alpha"), entry("gamma"))]
    c = report_for(cfgs, TABLE).configs[0]
    every = sorted(
        (t.tokens for k in ("alpha", "gamma") for t in measure_tools(TABLE[k]).tools),  # type: ignore[arg-type]
        reverse=True,
    )
    assert [h.tokens for h in c.heaviest_tools] == every[:5]
    assert c.trim_advice is not None
    assert c.trim_advice.recoverable_tokens == sum(every[:3])
    assert c.trim_advice.recoverable_share == pytest.approx(sum(every[:3]) / c.total_tokens)
    single = report_for([config("cursor", "/b.json", entry("beta"))], TABLE).configs[0]
    assert single.trim_advice is None


def test_session_start_is_exact_with_instructions_and_a_floor_without() -> None:
    spec_a = ServerSpec.stdio("a", ["bin", "a"])
    spec_b = ServerSpec.stdio("b", ["bin", "b"])
    arr = tools("t", 2)
    ms = {
        spec_a.launch_key(): measured(spec_a, arr, instructions="Use these tools wisely."),
        spec_b.launch_key(): measured(spec_b, arr),
    }
    cfg = config(
        "cursor", "/a.json", ConfigEntry(name="a", spec=spec_a), ConfigEntry(name="b", spec=spec_b)
    )
    c = build_report([cfg], ms, generated_at="x").configs[0]
    by = {s.name: s.session_start for s in c.servers}
    exact = session_start(arr, "Use these tools wisely.", captured=True)
    assert by["a"] == exact and by["a"] is not None and not by["a"].is_floor
    assert by["b"] is not None and by["b"].is_floor and by["b"].instructions_tokens is None
    assert by["b"].total == exact.tool_name_tokens


def test_commands_and_urls_are_masked_and_env_shows_names_only() -> None:
    secret = "sk-live0123456789abcdefghijklmnop"
    spec = ServerSpec.stdio(
        "s", ["bin", f"--api-key={secret}"], env={"API_TOKEN": "hunter2hunter2"}
    )
    remote = ServerSpec.remote(
        "r",
        f"https://u:pw@example.test/mcp?token={secret}",
        headers={"Authorization": "Bearer abcdefabcdef"},
    )
    ms = {
        spec.launch_key(): measured(spec, tools("x", 1)),
        remote.launch_key(): measured(remote, tools("y", 1)),
    }
    cfg = config(
        "cursor", "/a.json", ConfigEntry(name="s", spec=spec), ConfigEntry(name="r", spec=remote)
    )
    c = build_report([cfg], ms, generated_at="x").configs[0]
    by = {s.name: s for s in c.servers}
    assert secret not in (by["s"].command or "") and "***" in (by["s"].command or "")
    assert by["s"].env_var_names == ("API_TOKEN",)
    assert secret not in (by["r"].url or "") and "pw" not in (by["r"].url or "")
    assert by["r"].header_names == ("Authorization",)


def test_progress_is_live_on_a_terminal_and_plain_lines_otherwise() -> None:
    import io

    from mcpcost.audit.progress import LineProgress, LiveProgress, progress_for

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, plain = Tty(), io.StringIO()
    live = progress_for(tty)
    lines = progress_for(plain)
    assert isinstance(live, LiveProgress) and isinstance(lines, LineProgress)
    for p in (live, lines):
        p.started("alpha", 2)
        p.finished("alpha", "measured", 1, 2)
        p.started("beta", 2)
        p.finished("beta", "timeout", 2, 2)
    assert plain.getvalue() == "  [1/2] alpha measured\n  [2/2] beta timeout\n"
    assert "\n" not in tty.getvalue() and "\r\x1b[2K" in tty.getvalue()
    assert tty.getvalue().endswith("\r\x1b[2K")  # the line is cleared when everything is done


def test_a_note_is_its_first_line_and_a_cut_one_says_so() -> None:
    assert first_line("  \n\t") is None and first_line(None) is None
    assert first_line("  spawn failed\nstack trace line\n") == "spawn failed"
    cut = first_line("x" * (NOTE_LIMIT + 50))
    assert cut is not None and len(cut) == NOTE_LIMIT and cut.endswith("x…")
    assert first_line("y" * NOTE_LIMIT) == "y" * NOTE_LIMIT
