"""End-to-end sweeps over real servers (host mode): files, idempotence, the guard, shards/merge."""

from __future__ import annotations

import datetime as dt
import io
import re
import shlex
from pathlib import Path

import pytest

from mcpcost.cli import main
from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.measuring import MeasureOptions
from mcpcost.sweep.catalog import Catalog, load_catalog
from mcpcost.sweep.guard import MIN_REGRESSIONS
from mcpcost.sweep.measure_adapter import make_measure
from mcpcost.sweep.merge import merge
from mcpcost.sweep.runner import Job, MeasureJob, SweepOptions, SweepOutcome, run_sweep
from mcpcost.sweep.shard import select_shard
from tests.helpers.paths import ROOT
from tests.servers.registry import fixture_argv, real_server_argv, real_server_missing

DAY1 = dt.datetime(2026, 9, 1, 12, 0, tzinfo=dt.UTC)
DAY2 = dt.datetime(2026, 9, 2, 12, 0, tzinfo=dt.UTC)
GOOD_FIXTURES = ("good", "banner", "paginated", "server-requests")
REAL = ("memory", "sequential-thinking", "everything", "time")
FAILING = {
    "broken-crash": fixture_argv("crash"),
    "broken-missing": ["/nonexistent/mcp-server-binary", "--stdio"],
}


def readme_exit_codes() -> dict[int, str]:
    """The README's exit-code table: code -> its meaning."""
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("\n## Exit codes\n", 1)[1].split("\n## ", 1)[0]
    return {int(c): m for c, m in re.findall(r"^\| (\d) \| (.+) \|$", section, re.M)}


def catalog_text() -> str:
    lines = ["servers:"]
    entries: list[tuple[str, list[str]]] = [(f"fx-{m}", fixture_argv(m)) for m in GOOD_FIXTURES]
    for name in REAL:
        argv = real_server_argv(name)
        if argv is not None:
            entries.append((name, argv))
    entries += list(FAILING.items())
    for name, argv in entries:
        lines += [
            f"  - name: {name}",
            f"    command: {shlex.join(argv)!r}",
            "    env: [EXAMPLE_API_KEY]",
            "    category: community",
        ]
    lines += [
        "  - name: oauth-remote",
        "    command: https://mcp.example.invalid/sse",
        "    remote: true",
        "  - name: zz-pending",
        "    command: /bin/true",
    ]
    return "\n".join(lines) + "\n"


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def sweep(
    root: Path,
    cat: Catalog,
    *,
    when: dt.datetime,
    measure: MeasureJob | None = None,
    names: list[str] | None = None,
    publish_pages: bool = True,
) -> tuple[SweepOutcome, list[str]]:
    lines: list[str] = []
    selected = [e for e in cat.entries if names is None or e.name in names]
    selected = [e for e in selected if e.name != "zz-pending"]
    outcome = run_sweep(
        cat,
        selected,
        root,
        measure or make_measure(None, MeasureOptions(now=lambda: when)),
        SweepOptions(concurrency=4, default_timeout_s=20),
        clock=lambda: when,
        progress=lines.append,
        publish_pages=publish_pages,
    )
    return outcome, lines


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(catalog_text(), "test-servers.yaml")


@pytest.fixture(scope="module")
def first_sweep(
    tmp_path_factory: pytest.TempPathFactory, cat: Catalog
) -> tuple[Path, SweepOutcome, list[str]]:
    root = tmp_path_factory.mktemp("sweep")
    outcome, lines = sweep(root, cat, when=DAY1)
    return root, outcome, lines


@pytest.mark.slow
def test_sweep_writes_every_published_file(
    first_sweep: tuple[Path, SweepOutcome, list[str]], cat: Catalog
) -> None:
    root, outcome, lines = first_sweep
    assert outcome.exit_code == 0
    swept = [e.name for e in cat.entries if e.sweepable and e.name != "zz-pending"]
    for name in swept:
        m = Measurement.from_dict(
            parse_json((root / "results" / name / "measurement.json").read_bytes())
        )
        assert m.launch_command == cat.by_name()[name].command
        badge = parse_json((root / "badges" / f"{name}.json").read_bytes())
        assert isinstance(badge, dict) and badge["label"] == "context cost"
        if name.startswith("broken-"):
            assert not m.has_number and badge["message"] == "unknown"
        else:
            assert m.has_number, (name, m.status, m.notes)
            assert m.env_var_names == ("EXAMPLE_API_KEY",)
            assert (root / "docs" / "servers" / f"{name}.md").is_file()
    for rel in (
        "results/leaderboard.md",
        "results/leaderboard.csv",
        "results/history.csv",
        "results/estimator.json",
        "docs/servers/index.md",
        "docs/dashboard.html",
    ):
        assert (root / rel).is_file(), rel
    board = (root / "results" / "leaderboard.md").read_text()
    assert f"Measured {len(swept) - 2}/{len(cat.entries)} candidates" in board
    assert "| oauth-remote | remote-auth-wall |" in board
    assert "| zz-pending | not-yet-run |" in board
    assert "| broken-missing | startup-failure |" in board
    assert not (root / "results" / "oauth-remote").exists()
    history = (root / "results" / "history.csv").read_text().splitlines()
    assert history[0] == "date,server,tokens,toolCount,status,isolation"
    assert len(history) == 1 + len(swept) - 2 and all(r.endswith(",host") for r in history[1:])
    assert any("harness check not performed" in line for line in lines)
    assert any(line.startswith("[") and "tokens /" in line for line in lines)
    csv_rows = (root / "results" / "leaderboard.csv").read_text().splitlines()
    assert len(csv_rows) == 1 + len(cat.entries)


@pytest.mark.slow
def test_second_sweep_same_day_changes_nothing_and_next_day_only_dates(
    first_sweep: tuple[Path, SweepOutcome, list[str]], cat: Catalog, tmp_path: Path
) -> None:
    root, _, _ = first_sweep
    before = tree(root)
    outcome, _lines = sweep(root, cat, when=DAY1)
    assert outcome.exit_code == 0 and outcome.verdict.performed
    assert tree(root) == before
    outcome, _ = sweep(root, cat, when=DAY2)
    after = tree(root)
    assert after.keys() == before.keys()
    changed = {k for k in after if after[k] != before[k]}
    for rel in changed:
        if rel.endswith("measurement.json"):
            old, new = parse_json(before[rel]), parse_json(after[rel])
            assert isinstance(old, dict) and isinstance(new, dict)
            assert new.pop("measuredAt").startswith("2026-09-02") and old.pop("measuredAt")
            assert old == new, rel
        elif rel == "results/history.csv":
            old_rows = before[rel].decode().splitlines()
            new_rows = after[rel].decode().splitlines()
            added = [r for r in new_rows if r not in old_rows]
            assert set(old_rows) <= set(new_rows) and added
            assert all(r.startswith("2026-09-02,") for r in added)
            assert sorted(r.split(",", 1)[1] for r in added) == sorted(
                r.split(",", 1)[1] for r in old_rows[1:]
            )
        elif rel == "results/data.json":  # the dataset carries each entry's measuredAt
            old_doc, new_doc = parse_json(before[rel]), parse_json(after[rel])
            assert isinstance(old_doc, dict) and isinstance(new_doc, dict)
            for doc, day in ((old_doc, "2026-09-01"), (new_doc, "2026-09-02")):
                for e in doc["entries"]:
                    if e["measuredAt"] is not None:
                        assert e.pop("measuredAt").startswith(day)
            assert old_doc == new_doc
        else:
            # pages that show dates or trends: only the date/trend text may differ
            assert rel.startswith("docs/"), rel
    assert "results/leaderboard.md" not in changed and "results/leaderboard.csv" not in changed
    assert not any(k.startswith("badges/") for k in changed)
    page = (root / "docs" / "servers" / "fx-good.md").read_text()
    assert "## Over time" in page and "| 2026-09-02 |" in page and "no change" in page


def _sabotaged(when: dt.datetime, keep: set[str]) -> MeasureJob:
    """A harness that cannot start anything: every server but ``keep`` gets a dead launch."""
    real = make_measure(None, MeasureOptions(now=lambda: when))

    def measure(job: Job) -> Measurement:
        if job.entry.name in keep:
            return real(job)
        broken = ServerSpec.stdio(job.entry.name, ["sh", "-c", "echo harness broke >&2; exit 3"])
        return real(Job(job.entry, broken, job.timeout_s, job.isolation, None))

    return measure


@pytest.mark.slow
def test_harness_fault_leaves_every_published_file_and_exits_1(
    first_sweep: tuple[Path, SweepOutcome, list[str]], cat: Catalog
) -> None:
    missing = {name: why for name in REAL if (why := real_server_missing(name)) is not None}
    if len(GOOD_FIXTURES) + len(REAL) - len(missing) - 1 < MIN_REGRESSIONS:
        pytest.skip(
            f"a harness fault takes {MIN_REGRESSIONS} regressions; without the pinned servers "
            f"{', '.join(f'{n} ({why})' for n, why in missing.items())} there are too few"
        )
    root, _, _ = first_sweep
    before = tree(root)
    outcome, lines = sweep(
        root, cat, when=DAY2 + dt.timedelta(days=5), measure=_sabotaged(DAY2, keep={"fx-good"})
    )
    assert outcome.exit_code == 1 and outcome.verdict.fault
    assert len(outcome.verdict.regressed) >= 5
    assert "a `sweep` the harness guard refused to publish" in readme_exit_codes()[1]
    assert "HARNESS FAULT — refusing to publish this sweep" in lines
    assert tree(root) == before  # measurements, badges, history, pages: byte for byte


@pytest.mark.slow
def test_a_few_failures_are_published_not_a_fault(
    first_sweep: tuple[Path, SweepOutcome, list[str]], cat: Catalog, tmp_path: Path
) -> None:
    root, _, _ = first_sweep
    work = tmp_path / "copy"
    for rel, data in tree(root).items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_bytes(data)
    keep = {e.name for e in cat.entries} - {"fx-banner"}
    outcome, _ = sweep(work, cat, when=DAY1, measure=_sabotaged(DAY1, keep=keep))
    assert outcome.exit_code == 0 and not outcome.verdict.fault and outcome.verdict.performed
    m = parse_json((work / "results" / "fx-banner" / "measurement.json").read_bytes())
    assert isinstance(m, dict) and m["status"] == "startup-failure"
    assert "| fx-banner | startup-failure |" in (work / "results" / "leaderboard.md").read_text()


@pytest.mark.slow
def test_merge_of_two_shards_equals_a_single_sweep(cat: Catalog, tmp_path: Path) -> None:
    single = tmp_path / "single"
    sweep(single, cat, when=DAY1)
    sweepable = [e.name for e in cat.entries if e.sweepable and e.name != "zz-pending"]
    shard_dirs = []
    for k in range(2):
        d = tmp_path / f"shard{k}"
        sweep(d, cat, when=DAY1, names=select_shard(sweepable, 2, k), publish_pages=False)
        assert not (d / "results" / "leaderboard.md").exists()
        shard_dirs.append(d)
    merged = tmp_path / "merged"
    outcome = merge(shard_dirs, merged, cat, progress=lambda _l: None)
    assert outcome.exit_code == 0
    assert tree(merged) == tree(single)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def test_cli_reports_catalog_problems_with_line_numbers(tmp_path: Path) -> None:
    bad = tmp_path / "servers.yaml"
    bad.write_text(
        "servers:\n  - name: ok\n    command: x\n  - name: a\n    timeoutSeconds: 0\n    command: y\n"
    )
    code, _, err = run_cli(["sweep", "--servers", str(bad), "--out", str(tmp_path)])
    assert code == 2
    assert err.strip().startswith(
        f"{bad}:5: servers[1] (a).timeoutSeconds must be a positive number"
    )
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["sweep", "--shard", "0/2", "--only", "a"],
        ["sweep", "--shard", "3/2"],
        ["sweep", "--concurrency", "0"],
        ["sweep", "--timeout=-1"],
        ["merge"],
    ],
)
def test_cli_usage_errors_exit_2(argv: list[str]) -> None:
    code, _, err = run_cli(argv)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.slow
def test_cli_sweep_with_only_and_then_publish(tmp_path: Path, cat: Catalog) -> None:
    servers = tmp_path / "servers.yaml"
    servers.write_text(catalog_text())
    out_dir = tmp_path / "out"
    code, _, err = run_cli(
        [
            "sweep",
            "--servers",
            str(servers),
            "--only",
            "fx-good,broken-missing",
            "--out",
            str(out_dir),
            "--concurrency=2",
        ]
    )
    assert code == 0, err  # a server that could not be measured is a result, not a failure
    assert "for `sweep` also when some servers could not be measured" in readme_exit_codes()[0]
    assert "fx-good:" in err and "done: 1/2 measured" in err
    assert sorted(p.name for p in (out_dir / "results").iterdir() if p.is_dir()) == [
        "broken-missing",
        "fx-good",
    ]
    before = tree(out_dir)
    code, out, _ = run_cli(["publish", "--out", str(out_dir), "--servers", str(servers)])
    assert code == 0 and "0 files changed" in out
    assert tree(out_dir) == before


def test_missing_launchers_on_the_host_get_an_actionable_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no npx/uvx/docker on PATH the spawn fails; the note names the launcher and the fix."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # the stdio transport hands the server this PATH
    cat = load_catalog(
        "servers:\n"
        "  - name: t\n    command: uvx mcp-server-time==2026.10.19 --local-timezone UTC\n"
        "  - name: m\n    command: npx -y @modelcontextprotocol/server-memory@2026.8.31\n"
        "  - name: g\n    command: docker run -i --rm example/server\n"
        "  - name: other\n    command: not-a-launcher --stdio\n"
    )
    outcome, _ = sweep(tmp_path / "out", cat, when=DAY1, publish_pages=False)
    assert set(outcome.statuses.values()) == {Status.STARTUP_FAILURE}

    def notes(name: str) -> str:
        doc = parse_json((tmp_path / "out" / "results" / name / "measurement.json").read_bytes())
        assert isinstance(doc, dict) and isinstance(doc["notes"], str)
        return doc["notes"]

    assert notes("t") == (
        "uvx is not on PATH: install uv, which provides uvx (pip install uv), or sweep with "
        "--docker; spawn failed: uvx: No such file or directory"
    )
    assert notes("m").startswith(
        "npx is not on PATH: install Node.js, which provides npx (e.g. apt-get install nodejs "
        "npm), or sweep with --docker; spawn failed: npx: "
    )
    assert notes("g").startswith(
        "docker is not on PATH: install the Docker CLI and point --docker-host or DOCKER_HOST "
        "at an engine; spawn failed: docker: "
    )
    assert notes("other") == "spawn failed: not-a-launcher: No such file or directory"
