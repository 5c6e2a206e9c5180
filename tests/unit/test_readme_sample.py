"""The README's sample of ``mcpcost audit`` is the nine-config home's first screen as the golden
file holds it (the end-to-end test checks the golden file against a real audit): a README that
has gone stale fails here. ``MCPCOST_UPDATE_GOLDEN=1`` on the end-to-end test rewrites both."""

from __future__ import annotations

from tests.helpers.paths import TEST_FIXTURES
from tests.helpers.readme_sample import README, expected_sample, first_screen, readme_sample

GOLDEN = TEST_FIXTURES / "golden" / "nine_configs_80.txt"


def test_the_readme_sample_is_the_golden_first_screen() -> None:
    report = GOLDEN.read_text("utf-8")
    assert readme_sample(README.read_text("utf-8")) == expected_sample(report)


def test_the_sample_is_the_overview_and_fits_one_screen() -> None:
    screen = first_screen(GOLDEN.read_text("utf-8"))
    assert screen[4].split()[:4] == ["client", "session", "up", "front"]
    assert any(line.startswith("To act on") for line in screen)
    assert len(screen) <= 50 and max(len(line) for line in screen) <= 80
