"""A capture past the cap (``transports.base.MAX_CAPTURE_BYTES``, 16 MiB) is refused after
reading at most the cap, so a server that answers with an enormous tools list costs a bounded
amount of memory. Held parsed, a capture costs about 55 times its bytes (``bench/
capture_memory.py``; docs/GUARANTEES.md, "Capture memory"): the cap is what keeps the worst
case near 900 MiB instead of several GiB."""

from __future__ import annotations

import sys

import pytest

from tests.helpers.paths import ROOT
from tests.helpers.peak_memory import run_costed

SERVER = ROOT / "tests" / "servers" / "fixtures" / "many_tools_server.py"
SETUP = """
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring import MeasureOptions, measure_server
"""
# two captures side by side, each reading up to the cap into its line buffer
CAPPED_MIB = 160


@pytest.mark.slow
def test_a_tools_list_past_the_cap_is_refused_within_bounded_memory() -> None:
    argv = [sys.executable, str(SERVER), "400000"]  # about 20 MiB on one line
    body = f"""
options = MeasureOptions(timeout_s=300, retry_timeouts=False)
m = measure_server(ServerSpec.stdio("many", {argv!r}), options)
result = [str(m.status), m.notes]
"""
    cost = run_costed(SETUP, body, timeout_s=600)
    print(f"\npast the cap: +{cost.grown_mib:.0f} MiB peak RSS, {cost.seconds:.1f}s")
    status, notes = cost.result
    assert status == "startup-failure", cost.result
    assert "larger than" in notes or "exceeded" in notes, notes
    assert cost.grown_mib < CAPPED_MIB
