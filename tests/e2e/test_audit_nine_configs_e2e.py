"""Issue 25's home audited as a new user runs it: nine config files across eight clients
(``tests/helpers/nine_configs``), real pinned servers and a loopback remote, no flag but the
width. The text report's first screen is one table with every session's up-front number and one
line per thing to act on, and fits 80x50; the whole report matches its golden file at 80 and
120 columns (only the temporary paths and the port normalised). The README's sample is the
80-column first screen (``tests/unit/test_readme_sample.py`` checks it against the golden file).
Regenerate both after an intended change with ``MCPCOST_UPDATE_GOLDEN=1``."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpcost.cli import audit_cmd
from tests.helpers.nine_configs import SERVERS, normalise, populate
from tests.helpers.paths import TEST_FIXTURES
from tests.helpers.readme_sample import first_screen, write_readme_sample
from tests.servers.registry import real_server_argv, serve_sdk_http

GOLDEN = TEST_FIXTURES / "golden"


class Home:
    def __init__(self, home: Path, cwd: Path, url: str) -> None:
        self.home, self.cwd, self.url = home, cwd, url

    def audit(self, *args: str, columns: int = 80) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        code = audit_cmd.run(
            ["--concurrency", "3", "--timeout", "60", *args],
            out,
            err,
            environ={"PATH": "/usr/bin:/bin", "COLUMNS": str(columns)},
            home=self.home,
            cwd=self.cwd,
            platform="linux",
        )
        norm = [normalise(x.getvalue(), self.home, self.cwd, self.url) for x in (out, err)]
        return code, norm[0], norm[1]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Home]:
    found = {name: real_server_argv(name) for name in SERVERS}
    missing = [name for name, argv in found.items() if argv is None]
    if missing:
        pytest.skip(f"pinned servers not installed ({missing}); run scripts/setup-test-env.sh")
    argv = {name: list(a) for name, a in found.items() if a is not None}
    root = tmp_path_factory.mktemp("nine")
    home, cwd = root / "home", root / "home" / "shop"
    with serve_sdk_http("modern") as url:
        populate(home, cwd, argv, url)
        yield Home(home, cwd, url)


@pytest.fixture(scope="module")
def reports(home: Home) -> dict[int, tuple[int, str, str]]:
    return {width: home.audit(columns=width) for width in (80, 120)}


@pytest.mark.parametrize("width", [80, 120])
def test_the_report_matches_its_golden_file(
    reports: dict[int, tuple[int, str, str]], width: int
) -> None:
    code, out, _ = reports[width]
    assert code == 0
    path = GOLDEN / f"nine_configs_{width}.txt"
    if os.environ.get("MCPCOST_UPDATE_GOLDEN"):
        path.write_text(out, "utf-8")
        if width == 80:
            write_readme_sample(out)
    assert out == path.read_text("utf-8")


def test_the_first_screen_fits_80_by_50_with_every_session_up_front(
    reports: dict[int, tuple[int, str, str]], home: Home
) -> None:
    _, out, _ = reports[80]
    screen = first_screen(out)
    assert len(screen) <= 50 and all(len(line) <= 80 for line in screen)
    code, raw, _ = home.audit("--json")
    assert code == 0
    obj: dict[str, Any] = json.loads(raw)
    sessions = obj["sessions"]
    assert len(sessions) == 8  # nine files, eight clients: Claude Code's two are one session
    rows = {
        line.split("  ")[1].strip(): line
        for line in screen
        if line.startswith("  ") and "  " in line[2:]
    }
    for s in sessions:
        row = next(line for label, line in rows.items() if label == s["label"])
        assert row.split()[len(s["label"].split())].lstrip("≥≤") != ""  # the up-front cell
    # Claude Code defers all of its definitions: 0 up front, its total deferred
    claude = next(line for line in screen if line.startswith("  Claude Code "))
    total = next(s["totalTokens"] for s in sessions if s["label"] == "Claude Code")
    assert claude.split()[2:4] == ["0", f"{total:,}"]


def test_the_consent_note_is_whole_and_names_the_flag(
    reports: dict[int, tuple[int, str, str]],
) -> None:
    for width in (80, 120):
        _, out, _ = reports[width]
        flat = " ".join(out.split())
        assert (
            "not launched: a project config the client has not approved here; --trust-project "
            "runs it" in flat
        )
        assert "…" not in out


def test_a_budget_never_fails_what_the_client_defers(home: Home) -> None:
    code, out, _ = home.audit("--budget", "4000")
    # Claude Code's 3,924 deferred tokens fit any budget; Cursor's 4,086 up front do not
    assert code == 1
    flat = " ".join(out.split())
    assert (
        "Budget 4,000 on tokens loaded up front per request: FAILED — 1 session over: Cursor"
        in flat
    )
    code, out, _ = home.audit("--budget", "4000", "--budget-full")
    assert code == 1 and "on every tool definition, deferred or not (--budget-full)" in out


def test_details_show_everything_the_overview_selects_from(home: Home) -> None:
    code, out, _ = home.audit("--details")
    assert code == 0
    assert "heaviest tools" in out and "Columns: " in out
    assert "The full number is paid where deferral does not apply" in out
