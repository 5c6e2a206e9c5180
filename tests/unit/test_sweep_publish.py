"""Publishing from measurements alone: escaping, staleness, floors, trend, guard, estimator (the
dashboard in headless Chromium: tests/e2e/test_sweep_dashboard_chromium.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from mcpcost.core.model import Measurement
from mcpcost.core.status import Status
from mcpcost.runtime.output_tree import atomic_write
from mcpcost.sweep.catalog import load_catalog
from mcpcost.sweep.estimator import fit
from mcpcost.sweep.guard import Snapshot, judge
from mcpcost.sweep.history import HistoryRow, fold, parse_history, plottable, render_history
from mcpcost.sweep.pages import md_cell, median_text, sparkline
from mcpcost.sweep.publish import publish
from tests.helpers.sweep_sites import (
    CATALOG,
    CATALOG_TEXT,
    measured,
    reference_site,
    site_fixture,  # noqa: F401  (the fixture)
    tools,
    write,
)


def test_md_cell_escapes_table_breakers() -> None:
    assert md_cell("a|b`c[d]<e>\r\nf") == "a\\|b\\`c\\[d\\]\\<e\\> f"
    assert len(md_cell("y" * 500)) == 160


def test_publish_is_deterministic_and_escapes_third_party_text(site: Path) -> None:
    first = publish(site, CATALOG)
    assert "results/leaderboard.md" in first.written and "docs/dashboard.html" in first.written
    snapshot = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    again = publish(site, CATALOG)
    assert again.written == ()
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == snapshot
    board = (site / "results" / "leaderboard.md").read_text()
    table = [line for line in board.splitlines() if line.startswith("| ")]
    assert all(line.count(" | ") == table[0].count(" | ") for line in table[:4])
    assert "<script>" not in board and "\\<script\\>" in board
    html = (site / "docs" / "dashboard.html").read_text()
    assert "<script>" not in html and "&lt;script&gt;" in html
    page = (site / "docs" / "servers" / "evil.md").read_text()
    assert "<script>" not in page
    assert "generated" not in board.lower() and "generated" not in html.lower()


def test_session_start_floor_and_costlier_deferral(site: Path) -> None:
    publish(site, CATALOG)
    rows = {
        r.split(",")[0]: r.split(",")
        for r in (site / "results" / "leaderboard.csv").read_text().splitlines()
    }
    assert rows["beta"][10:12] != ["", ""] and rows["beta"][11] == "true"  # never captured: floor
    assert rows["alpha"][11] == "false" and int(rows["alpha"][13]) > 0
    board = (site / "results" / "leaderboard.md").read_text()
    assert f"| ≥{rows['beta'][10]} |" in board
    assert "Deferring costs more than loading every definition for:\nalpha (" in board
    assert rows["walled"][3] == "remote-auth-wall" and rows["broken"][3] == "startup-failure"


def test_divergence_rows_are_hidden_when_stale(site: Path) -> None:
    alpha = measured("alpha", tools(5))
    div = {
        "method": "tools-delta/v1",
        "model": "claude-test",
        "measuredAt": "2026-09-01",
        "servers": {
            "alpha": {
                "claudeDelta": 777,
                "o200kFull": alpha.total_tokens,
                "o200kMapped": 100,
                "capturedSha256": alpha.canonical_sha256,
            },
            "beta": {"claudeDelta": 555, "capturedSha256": "0" * 64},
        },
    }
    import json

    (site / "results" / "divergence.json").write_text(json.dumps(div))
    publish(site, CATALOG)
    board = (site / "results" / "leaderboard.md").read_text()
    assert "| claude |" in board and "| 777 |" in board and "555" not in board
    assert "for the 1 rows whose capture still matches" in board
    assert "## What this costs on Claude" in (site / "docs" / "servers" / "alpha.md").read_text()
    assert "What this costs on Claude" not in (site / "docs" / "servers" / "beta.md").read_text()


def test_history_fold_trend_and_isolation_cut() -> None:
    rows = [
        HistoryRow("2026-08-01", "a", 10, 1, "measured", ""),
        HistoryRow("2026-08-08", "a", 12, 1, "measured", "host"),
        HistoryRow("2026-08-15", "a", 20, 1, "measured", "docker"),
        HistoryRow("2026-08-22", "a", 21, 1, "measured", ""),
    ]
    assert plottable(rows).dropped == 0  # newest conditions unknown: nothing to compare against
    rows.append(HistoryRow("2026-08-29", "a", 22, 1, "measured", "docker"))
    series = plottable(rows)
    assert [r.date for r in series.rows] == ["2026-08-15", "2026-08-22", "2026-08-29"]
    assert series.dropped == 2 and series.conditions_unknown
    text = render_history(rows) + "garbage,line\n2026-09-01,legacy,5,1,measured\n"
    parsed = parse_history(text)
    assert len(parsed) == 6 and parsed[-1].isolation == ""
    m = measured("a", tools(1), day="2026-08-22", docker=True)
    folded = fold(parsed, {"a": m})
    assert (
        len(folded) == 6 and next(r for r in folded if r.date == "2026-08-22").isolation == "docker"
    )
    assert fold(folded, {"a": m}) == folded
    fail = m.with_(
        status=Status.TIMEOUT, total_tokens=None, tool_count=None, measured_at="2026-08-29T0"
    )
    assert fold(folded, {"a": fail}) == folded


def test_guard_thresholds() -> None:
    good = Status.MEASURED
    snap = Snapshot({f"s{i}": good for i in range(10)} | {"new": None})
    fail = Status.STARTUP_FAILURE
    five = {f"s{i}": (fail if i < 5 else Status.MEASURED) for i in range(10)}
    assert judge(snap, five).fault  # 5 of 10 = 50%
    four = {f"s{i}": (fail if i < 4 else Status.DYNAMIC) for i in range(10)}
    assert not judge(snap, four).fault
    many = {f"s{i}": (fail if i < 6 else Status.MEASURED) for i in range(10)} | {
        "a": fail,
        "b": fail,
        "c": fail,
        "d": fail,
        "e": fail,
        "f": fail,
    }
    assert judge(Snapshot({f"s{i}": good for i in range(20)}), many).comparable == 10
    none = judge(Snapshot({"new": None}), {"new": fail})
    assert not none.fault and not none.performed and "not performed" in none.reason


def test_estimator_fits_and_reports_error() -> None:
    est = fit([(100, 23), (200, 46), (400, 92), (1000, 230)])
    assert est is not None and abs(est.coefficient - 0.23) < 1e-9 and est.mae == 0 and est.n == 4
    est = fit([(100, 20), (100, 30)])
    assert est is not None and est.mape > 0 and est.p90_abs_error == 5
    assert est.to_dict()["label"] == "calibrated-estimate"
    assert fit([]) is None


def test_pages_count_one_tool_as_one_tool(site: Path) -> None:
    publish(site, CATALOG)
    page = (site / "docs" / "servers" / "evil.md").read_text()  # evil serves one tool
    assert " across 1 tool — band " in page
    html = (site / "docs" / "dashboard.html").read_text()
    assert "· 1 tool ·" in html and "1 tools" not in html + page


def test_sparkline_geometry() -> None:
    assert sparkline([5]) is None
    flat = sparkline([3, 3, 3])
    assert flat is not None and flat["points"] == "3,9 28,9 53,9"
    up = sparkline(list(range(20)))
    assert up is not None and up["points"].count(",") == 12 and (up["cx"], up["cy"]) == (53, 3)


def test_publish_removes_only_the_stale_pages_it_generated(site: Path) -> None:
    from mcpcost.cli import publish_cmd
    from mcpcost.sweep.pages import GENERATED_MARK

    publish(site, CATALOG)
    pages_dir = site / "docs" / "servers"
    assert (pages_dir / "beta.md").read_text().startswith(GENERATED_MARK + "\n")
    person = "# beta, by hand\n\nA page a person wrote about the beta server.\n"
    (pages_dir / "notes.md").write_text(person)
    (pages_dir / "notes.html").write_text("<!doctype html><p>beta, by hand</p>\n")
    (pages_dir / "quoted.md").write_text("intro\n" + GENERATED_MARK + "\n")  # mark not first
    (pages_dir / "linked.md").symlink_to(pages_dir / "alpha.md")
    # beta and evil stop being measured: beta fails, evil's directory is gone
    fail = Measurement(
        status=Status.TIMEOUT,
        server_name="beta",
        launch_command="x",
        measured_at="2026-09-08T10:00:00.000Z",
        timeout_ms=60000,
    )
    write(site, "beta", fail)
    shutil.rmtree(site / "results" / "evil")
    import io

    catalog_file = site / "servers.yaml"
    catalog_file.write_text(CATALOG_TEXT)
    args = ["--out", str(site), "--servers", str(catalog_file)]
    out = io.StringIO()
    assert publish_cmd.run(args, out, io.StringIO()) == 0
    removed = [
        f"removed docs/servers/{n}" for n in ("beta.html", "beta.md", "evil.html", "evil.md")
    ]
    assert "\n  ".join(removed) + "\n" in out.getvalue()
    assert not (pages_dir / "beta.md").exists() and not (pages_dir / "evil.md").exists()
    assert not (pages_dir / "beta.html").exists() and not (pages_dir / "evil.html").exists()
    assert (pages_dir / "alpha.html").is_file()
    assert (pages_dir / "alpha.md").is_file() and (pages_dir / "index.md").is_file()
    assert (pages_dir / "notes.md").read_text() == person
    assert (pages_dir / "notes.html").read_text() == "<!doctype html><p>beta, by hand</p>\n"
    assert (pages_dir / "quoted.md").exists() and (pages_dir / "linked.md").is_symlink()
    snapshot = sorted(p.name for p in pages_dir.iterdir())
    out = io.StringIO()
    assert publish_cmd.run(args, out, io.StringIO()) == 0
    assert out.getvalue().endswith("0 files changed, 0 stale files removed\n")
    assert sorted(p.name for p in pages_dir.iterdir()) == snapshot


def test_csv_publishes_each_metric_with_its_unit(tmp_path: Path) -> None:
    import csv
    import io

    from mcpcost.sweep.pages import CSV_HEADER

    catalog = load_catalog(
        "servers:\n"
        "  - name: alpha\n    command: npx -y alpha\n"
        "    metric: {value: 1200, unit: npm-weekly-downloads}\n"
        "  - name: beta\n    command: uvx beta\n    metric: 35.5\n"
        "    metricSource: https://pypistats.org/packages/beta (PyPI weekly)\n"
        "  - name: gamma\n    command: npx -y gamma\n"
    )
    write(tmp_path, "alpha", measured("alpha", tools(1)))
    publish(tmp_path, catalog)
    text = (tmp_path / "results" / "leaderboard.csv").read_text()
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(text))}
    assert list(CSV_HEADER).index("metricUnit") == list(CSV_HEADER).index("metric") + 1
    assert (rows["alpha"]["metric"], rows["alpha"]["metricUnit"]) == (
        "1200",
        "npm-weekly-downloads",
    )
    assert (rows["beta"]["metric"], rows["beta"]["metricUnit"]) == ("35.5", "pypi-weekly-downloads")
    assert rows["beta"]["metricSource"].startswith("https://pypistats.org/")
    assert (rows["gamma"]["metric"], rows["gamma"]["metricUnit"]) == ("", "")


# --- issue 6: dashboard and pages against the reference's weaknesses -------------------------


def history_file(root: Path, rows: list[HistoryRow]) -> None:
    atomic_write(root / "results" / "history.csv", render_history(rows))


def test_divergence_staleness_is_one_rule_for_dashboard_leaderboard_and_pages(
    site: Path,
) -> None:
    import json

    from mcpcost.core.divergence import divergence_is_current

    alpha = measured("alpha", tools(5))
    beta = measured("beta", tools(2))
    current = {"claudeDelta": 777, "capturedSha256": alpha.canonical_sha256}
    assert divergence_is_current(current, alpha)
    assert not divergence_is_current(current, beta)  # another capture's hash
    assert not divergence_is_current(current | {"error": "rate limited"}, alpha)
    assert not divergence_is_current(current | {"claudeDelta": True}, alpha)
    assert not divergence_is_current(current | {"claudeDelta": "777"}, alpha)
    assert not divergence_is_current(current, alpha.with_(canonical_sha256=None))
    assert not divergence_is_current(None, alpha)
    div = {
        "method": "tools-delta/v1",
        "model": "claude-test",
        "measuredAt": "2026-09-01",
        "servers": {
            "alpha": {
                "claudeDelta": 7771,
                "o200kMapped": 100,
                "capturedSha256": alpha.canonical_sha256,
            },
            "beta": {"claudeDelta": 5552, "capturedSha256": "0" * 64},
            "evil": {
                "claudeDelta": 3331,
                "error": "boom",
                "capturedSha256": measured("evil", []).canonical_sha256,
            },
        },
    }
    (site / "results" / "divergence.json").write_text(json.dumps(div))
    publish(site, CATALOG)
    html = (site / "docs" / "dashboard.html").read_text()
    board = (site / "results" / "leaderboard.md").read_text()
    for text in (html, board):
        assert "7,771" in text
        assert "5,552" not in text and "5552" not in text  # stale: capture moved
        assert "3,331" not in text and "3331" not in text  # error row
    cells = [line for line in html.splitlines() if line.lstrip().startswith('<tr><td class="num">')]
    beta_row = next(c for c in cells if ">beta</td>" in c)
    assert '<td class="num">—</td>' in beta_row
    assert "request-token delta on claude-test" in html
    (site / "results" / "divergence.json").unlink()
    publish(site, CATALOG)
    html = (site / "docs" / "dashboard.html").read_text()
    assert "claude req" not in html and "7,771" not in html  # no current figure: no column


def test_dashboard_bars_carry_band_colour_and_label_and_trend_counts_sweeps(site: Path) -> None:
    import re

    history_file(
        site,
        [
            HistoryRow("2026-08-01", "alpha", 100, 5, "measured", "host"),
            HistoryRow("2026-08-03", "alpha", 110, 5, "measured", "docker"),
            HistoryRow("2026-08-20", "alpha", 130, 5, "measured", ""),
        ],
    )
    publish(site, CATALOG)
    html = (site / "docs" / "dashboard.html").read_text()
    alpha = measured("alpha", tools(5))
    assert alpha.total_tokens is not None
    rows = re.findall(r'<a class="row".*?</a>', html, re.S)
    assert len(rows) == 3  # alpha, beta, evil are measured
    for row in rows:
        fill = re.search(r'class="fill band-(\w+)"', row)
        label = re.search(r'<span class="lab">([^<]+)</span>', row)
        assert fill is not None and label is not None
        assert f'class="dot band-{fill.group(1)}"' in row
        labels = {"brightgreen": "lean", "green": "light", "yellow": "moderate"}
        assert label.group(1) == labels[fill.group(1)]  # colour is never the only signal
    alpha_bar = next(r for r in rows if '<span class="name">alpha</span>' in r)
    # history rows 2026-08-03 (docker), 2026-08-20 (unknown) and the capture's own 2026-09-01
    # (host): the newest is host, so the run starts after the last docker row
    assert '<svg class="spark"' in alpha_bar and alpha_bar.count("<polyline") == 1
    points = re.search(r'points="([^"]+)"', alpha_bar)
    assert points is not None and len(points.group(1).split()) == 2
    first = 130
    trend = f"{alpha.total_tokens - first:+,} over 2 sweeps"
    assert trend in html and "(comparable sweeps)" in html
    assert "2 earlier sweeps under other isolation left out" in html
    assert "isolation not on record for some sweeps" in html
    assert not re.search(r"\d+\s*d\b|\bdays?\b", html)  # sweeps, never days
    assert "provisional" not in html.lower()
    assert not re.search(r"\d{1,2}:\d{2}|\d{4}-\d{2}-\d{2}T|generated", html, re.I)
    beta_bar = next(r for r in rows if '<span class="name">beta</span>' in r)
    assert "<svg" not in beta_bar  # one sweep: no sparkline
    assert "1 sweep" in html


def test_deferring_costs_more_names_exact_rows_with_both_figures_never_floors(
    site: Path,
) -> None:
    from dataclasses import replace

    from mcpcost.core.measure import SessionStart
    from mcpcost.sweep.history import parse_history as parse
    from mcpcost.sweep.pages import leaderboard_md
    from mcpcost.sweep.views import build_board, costlier_to_defer

    publish(site, CATALOG)
    board_md = (site / "results" / "leaderboard.md").read_text()
    from mcpcost.sweep.files import load_measurements

    ms = load_measurements(site)
    history = parse((site / "results" / "history.csv").read_text())
    board = build_board(CATALOG, ms, history)
    alpha = next(r for r in board.measured if r.name == "alpha")
    assert alpha.session is not None and not alpha.session.is_floor
    assert f"alpha ({alpha.session.total:,} at session start vs {alpha.tokens:,})" in board_md
    # a floor at or above its headline is a lower bound, not a comparison: never named
    beta = next(r for r in board.measured if r.name == "beta")
    assert beta.tokens is not None
    floor = SessionStart(beta.tokens, None, beta.tokens + 50, True)
    exact = SessionStart(beta.tokens, 10, beta.tokens, False)
    for session, named in ((floor, False), (exact, True)):
        rows = tuple(replace(r, session=session) if r.name == "beta" else r for r in board.measured)
        b = replace(board, measured=rows)
        assert (any(r.name == "beta" for r in costlier_to_defer(b))) is named
        text = leaderboard_md(b, None)
        assert ("beta (" in text.split("Deferring costs more")[-1].split("\n\n")[0]) is named
    only_floors = replace(
        board,
        measured=tuple(
            replace(r, session=floor) if r.name == "beta" else replace(r, session=None)
            for r in board.measured
        ),
    )
    assert "Deferring costs more" not in leaderboard_md(only_floors, None)


def test_server_page_over_time_marks_isolation_changes_and_unrecorded_conditions(
    site: Path,
) -> None:
    from mcpcost.sweep.pages import over_time_rows
    from mcpcost.sweep.views import segment_starts

    rows = [
        HistoryRow("2026-08-01", "alpha", 100, 5, "measured", "host"),
        HistoryRow("2026-08-02", "alpha", 100, 5, "measured", "host"),
        HistoryRow("2026-08-03", "alpha", 90, 5, "measured", ""),
        HistoryRow("2026-08-04", "alpha", 95, 5, "measured", "docker"),
    ]
    history_file(site, rows)
    m = measured(
        "alpha", tools(5), day="2026-08-05", docker=True, instructions="Use alpha wisely. " * 60
    )
    write(site, "alpha", m)
    publish(site, CATALOG)
    page = (site / "docs" / "servers" / "alpha.md").read_text()
    table = page.split("## Over time")[1].split("\n\n")[1].splitlines()[2:]
    changes = [line.rstrip(" |").rsplit("| ", 1)[1] for line in table]
    assert m.total_tokens is not None
    # the unknown row joins the docker run (as the trend does); the change into it is cut
    assert changes == ["—", "no change", "not comparable", "+5", f"{m.total_tokens - 95:+,}"]
    assert "| 2026-08-03 | 90 | 5 | not recorded | not comparable |" in table
    assert "The comparable trend starts 2026-08-03: the 2 earlier rows were" in page
    assert "Conditions not on record: 1 row does not say" in page
    # boundaries are exactly the trend's cuts, applied again to what it dropped
    flip = [
        HistoryRow(f"2026-08-0{i + 1}", "a", 10 * i, 1, "measured", iso)
        for i, iso in enumerate(["docker", "host", "host", "docker"])
    ]
    assert segment_starts(flip) == {1, 3}
    assert [r["change"] for r in over_time_rows(flip)] == [
        "—",
        "not comparable",
        "+10",
        "not comparable",
    ]
    assert segment_starts([*flip[:3], replace_iso(flip[3], "")]) == {1}


def replace_iso(row: HistoryRow, iso: str) -> HistoryRow:
    return HistoryRow(row.date, row.server, row.tokens, row.tool_count, row.status, iso)


def test_dashboard_from_the_21_reference_captures(tmp_path: Path) -> None:
    import re

    root = reference_site(tmp_path)
    result = publish(root, None)
    assert (result.measured, result.total) == (20, 21)
    html = (root / "docs" / "dashboard.html").read_text()
    names = re.findall(r'<span class="name">([^<]+)</span>', html)
    assert len(names) == 20 and names[0] == "github" and names[-1] == "postgres"
    assert "<b>54,422</b><span>priciest: github</span>" in html
    assert "<b>20/21</b>" in html
    # 20 numbers: the median is the mean of the 10th and 11th, not the 11th
    shown = re.findall(r'<span class="val">([\d,]+)</span>', html)
    numbers = sorted(int(v.replace(",", "")) for v in shown)
    assert len(numbers) == 20
    assert f"<b>{median_text(numbers)}</b><span>median tokens</span>" in html
    assert median_text(numbers) != f"{numbers[10]:,}"
    colours = re.findall(r'class="fill band-(\w+)"', html)
    # band counts of these captures: 1 red, 3 orange, 9 green, 7 brightgreen
    assert {c: colours.count(c) for c in set(colours)} == {
        "red": 1,
        "orange": 3,
        "green": 9,
        "brightgreen": 7,
    }
    assert '<td>azure</td><td><span class="chip">auth-required</span>' in html
    # every row links to a page publish wrote, an HTML page with the server's own numbers
    links = re.findall(r'<a class="row" href="([^"]+)"', html)
    assert links == [f"servers/{n}.html" for n in names]
    for link, name in zip(links, names, strict=True):
        page = (root / "docs" / link).read_text()
        assert page.startswith("<!-- generated by mcpcost publish;")
        assert f"<h1>{name}</h1>" in page and "<!doctype html>" in page
    github = (root / "docs" / "servers" / "github.html").read_text()
    assert "<b>54,422</b><span>wire tokens of its tool definitions</span>" in github
    assert "tokens on every request" not in github and "docs/CLIENTS.md" in github
    assert "<b>Measured 2026-08-18</b>" in github
    assert "<b>Measured 2026-08-18 to 2026-08-19</b>" in html


def test_not_yet_run_entries_get_the_state_badge_and_lose_it_when_they_leave(site: Path) -> None:
    from mcpcost.core.badge import BadgeState, badge_file_text, state_badge_file_text

    badges = site / "badges"
    pending = CATALOG_TEXT + "  - name: pending\n    command: npx -y pending\n"
    first = publish(site, load_catalog(pending))
    state = state_badge_file_text(BadgeState.NOT_YET_RUN)
    assert (badges / "pending.json").read_text() == state
    assert "badges/pending.json" in first.written
    # a measured or failed entry's badge is its measurement writer's
    assert not (badges / "alpha.json").exists() and not (badges / "broken.json").exists()
    # a remote the catalog lists behind a sign-in, never measured, says so
    walled = state_badge_file_text(BadgeState.OAUTH_GATED)
    assert (badges / "walled.json").read_text() == walled
    assert publish(site, load_catalog(pending)).written == ()
    person = '{"message":"hand made"}\n'
    (badges / "other.json").write_text(person)
    (badges / "linked.json").symlink_to(badges / "pending.json")
    # measured now: its measurement's badge is not touched by publish
    write(site, "pending", measured("pending", tools(1)))
    real = badge_file_text(measured("pending", tools(1)))
    (badges / "pending.json").write_text(real)
    assert publish(site, load_catalog(pending)).removed == ()
    assert (badges / "pending.json").read_text() == real
    # no longer measured and no longer catalogued: a state badge is stale and goes
    shutil.rmtree(site / "results" / "pending")
    (badges / "pending.json").write_text(state)
    gone = publish(site, CATALOG)
    assert [r for r in gone.removed if r.startswith("badges/")] == ["badges/pending.json"]
    assert not (badges / "pending.json").exists() and not (badges / "pending.json").is_symlink()
    assert (badges / "other.json").read_text() == person  # not a state badge: left alone
    assert (badges / "linked.json").is_symlink()


def test_the_median_of_an_even_count_is_the_mean_of_the_middle_two() -> None:
    assert median_text([]) == "—"
    assert median_text([5]) == "5"
    assert median_text([100, 201, 4000, 7]) == "150.5"
    assert median_text([1000, 3000]) == "2,000"
