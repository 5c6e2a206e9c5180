"""docs/AUDIT.md's "Example (real output)": each sample is the output of its command, run here
on the demo configs at 100 columns, between two marker comments.

``generate`` runs the commands (the demo's real stdio servers; a baseline recorded first from
``examples/demo/notes-only.json``); ``doc_samples`` reads what the page shows; ``write_samples``
rewrites it (the test calls it under ``MCPCOST_UPDATE_GOLDEN=1``). The diff's timestamp is the
run's own: ``comparable`` puts a fixed one in its place before two samples are compared."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.helpers.paths import ROOT

AUDIT_DOC = ROOT / "docs" / "AUDIT.md"
END = "<!-- end of sample -->"
DEMO = "examples/demo/mcp.json"
BASE = "examples/demo/notes-only.json"
# name -> (the command's arguments after ``mcpcost audit``, which part of stdout is shown)
SAMPLES: dict[str, tuple[tuple[str, ...], str]] = {
    "text": (("--config", DEMO), "all"),
    "markdown": (("--config", DEMO, "--markdown"), "all"),
    "budget": (("--config", DEMO, "--budget", "500"), "budget"),
    "increase": (("--config", DEMO, "--baseline", "BASELINE", "--max-increase", "300"), "gate"),
}
_STAMP = re.compile(r"(diff vs baseline measured )\S+")


def begin(name: str) -> str:
    return f"<!-- sample: {name} (tests/helpers/audit_samples.py) -->"


def _run(args: tuple[str, ...]) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCPCOST_")}
    env.update(COLUMNS="100", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "mcpcost", "audit", *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
        env=env,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def _part(stdout: str, part: str) -> str:
    """What the page shows of a report: all of it, or the gate block after the sessions (the
    budget's, up to its blank line; the increase gate's with the diff, up to the footer)."""
    lines = stdout.rstrip("\n").splitlines()
    if part == "all":
        return "\n".join(lines)
    head = "Budget " if part == "budget" else "Increase limit "
    start = next(i for i, line in enumerate(lines) if line.startswith(head))
    if part == "budget":
        end = next((i for i in range(start, len(lines)) if not lines[i]), len(lines))
    else:
        end = next(
            i
            for i in range(start, len(lines))
            if lines[i].startswith(("These are wire", "Up front and deferred are"))
        )
    return "\n".join(lines[start:end]).rstrip("\n")


def generate() -> dict[str, str]:
    """Each sample's text as the commands print it now."""
    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="mcpcost-audit-samples-") as tmp:
        baseline = str(Path(tmp) / "baseline.json")
        Path(baseline).write_text(_run(("--config", BASE, "--json")), "utf-8")
        for name, (args, part) in SAMPLES.items():
            argv = tuple(baseline if a == "BASELINE" else a for a in args)
            out[name] = _part(_run(argv), part)
    return out


def _fence(name: str) -> str:
    return "```markdown" if name == "markdown" else "```"


def _block(name: str, text: str) -> str:
    return "\n".join([begin(name), _fence(name), text, "```", END])


def doc_samples(text: str | None = None) -> dict[str, str]:
    """Each sample as the page holds it (without its markers and fence)."""
    page = AUDIT_DOC.read_text("utf-8") if text is None else text
    found: dict[str, str] = {}
    for name in SAMPLES:
        start = page.index(begin(name)) + len(begin(name))
        body = page[start : page.index(END, start)].strip("\n")
        lines = body.splitlines()
        assert lines[0] == _fence(name) and lines[-1] == "```", name
        found[name] = "\n".join(lines[1:-1])
    return found


def comparable(text: str) -> str:
    return _STAMP.sub(r"\g<1>TIMESTAMP", text)


def write_samples(samples: dict[str, str]) -> None:
    page = AUDIT_DOC.read_text("utf-8")
    for name, text in samples.items():
        start = page.index(begin(name))
        end = page.index(END, start) + len(END)
        page = page[:start] + _block(name, text) + page[end:]
    AUDIT_DOC.write_text(page, "utf-8")
