"""The README's sample of ``mcpcost audit``: the first screen of the nine-config home's report at
80 columns (``tests/fixtures/golden/nine_configs_80.txt``), between two marker comments.

``first_screen`` cuts a text report after its overview (the table and the lines to act on);
``readme_sample`` reads what the README shows; ``write_readme_sample`` rewrites it (the golden
tests call it under ``MCPCOST_UPDATE_GOLDEN=1``)."""

from __future__ import annotations

from tests.helpers.paths import ROOT

README = ROOT / "README.md"
BEGIN = "<!-- sample: the first screen of tests/fixtures/golden/nine_configs_80.txt -->"
END = "<!-- end of sample -->"
COMMAND = "$ mcpcost audit"


def first_screen(report: str) -> list[str]:
    """The report's lines up to the first blank line after the things to act on."""
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("To act on", "Nothing")))
    end = next((i for i in range(start, len(lines)) if not lines[i]), len(lines))
    return lines[:end]


def _block(report: str) -> str:
    return "\n".join([BEGIN, "```", COMMAND, *first_screen(report), "...", "```", END])


def readme_sample(text: str) -> str:
    """The sample block as the README holds it (markers included)."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[start:end]


def expected_sample(report: str) -> str:
    return _block(report)


def write_readme_sample(report: str) -> None:
    text = README.read_text("utf-8")
    README.write_text(text.replace(readme_sample(text), _block(report)), "utf-8")
