"""Run a piece of Python in a fresh interpreter and report what it cost: peak resident memory
(``resource.getrusage``'s ``ru_maxrss``) over the baseline taken just before it ran, and the
seconds it took. The child's address space is capped (``AS_LIMIT``) so that a read that is not
bounded fails the test instead of exhausting the machine.

``setup`` runs first (imports, building arguments) and is not counted; ``body`` is counted and
whatever it assigns to ``result`` is printed back (an exception it raises becomes
``["raised", name, message]``, so a read that ran out of memory still reports its cost).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from typing import Any

from tests.helpers.paths import ROOT

AS_LIMIT = 4 << 30

_PRELUDE = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
result = None
"""
_AFTER_SETUP = """
_base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
_start = time.monotonic()
"""
_EPILOGUE = """
_seconds = time.monotonic() - _start
_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("PEAK-MEMORY " + json.dumps({{"base_kib": _base, "peak_kib": _peak,
      "seconds": _seconds, "result": result}}, default=str))
"""


@dataclass(frozen=True)
class Cost:
    base_kib: int
    peak_kib: int
    seconds: float
    result: Any
    stderr: str

    @property
    def grown_mib(self) -> float:
        """Peak resident memory above the baseline, in MiB."""
        return (self.peak_kib - self.base_kib) / 1024


def run_costed(setup: str, body: str, *, timeout_s: float = 120.0) -> Cost:
    """Run ``setup`` then ``body`` (source text) in a child interpreter; its cost."""
    source = "\n".join(
        [
            _PRELUDE.format(limit=AS_LIMIT),
            textwrap.dedent(setup),
            _AFTER_SETUP,
            "try:",
            textwrap.indent(textwrap.dedent(body), "    "),
            "except BaseException as _exc:",
            "    result = ['raised', type(_exc).__name__, str(_exc)[:300]]",
            _EPILOGUE.format(),
        ]
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", source],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        cwd=ROOT,
        env=env,
        check=False,
    )
    line = next(
        (ln for ln in done.stdout.splitlines() if ln.startswith("PEAK-MEMORY ")),
        None,
    )
    if line is None:
        raise AssertionError(
            f"the child failed (exit {done.returncode}):\n{done.stdout[-2000:]}\n"
            f"{done.stderr[-4000:]}"
        )
    doc = json.loads(line.removeprefix("PEAK-MEMORY "))
    return Cost(doc["base_kib"], doc["peak_kib"], doc["seconds"], doc["result"], done.stderr)
