"""The official MCP conformance suite (``@modelcontextprotocol/conformance``, client mode) run
against ``mcpcost measure --url`` through tests/conformance/client.

Every client scenario the pinned suite lists is either run here and must pass, or named in
``NOT_APPLICABLE`` with the reason; a scenario in neither fails ``test_every_scenario_is_placed``
so a suite upgrade cannot drop one silently. Each run happens in a temporary directory (the suite
writes results/) and reads the suite's own checks.json.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers.node24_runtime import require_node24
from tests.helpers.paths import ROOT

SUITE = ROOT / "tests" / "conformance"
SUITE_JS = SUITE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
CLIENT = SUITE / "client"

# Scenarios for a client that initializes and lists tools, with OAuth sign-in.
APPLICABLE = (
    "initialize",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    # draft: the spec text is settled enough for these three
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    # extension: client credentials for machines (CI)
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
)

NOT_APPLICABLE = {
    "tools_call": "calls a tool; a measurer only lists tools and never calls one",
    "elicitation-sep1034-client-defaults": "needs a tool call that elicits input from a person",
    "sse-retry": "checks reconnection of a tool call's interrupted SSE stream; a measurement "
    "does not call tools or hold a standalone GET stream",
    "auth/scope-step-up": "the step-up is demanded only by tools/call; a measurer never calls a "
    "tool (step-up on tools/list is covered by tests/integration/test_auth_flows.py)",
    "auth/cross-app-access-complete-flow": "enterprise-managed (ID-JAG token exchange) "
    "extension: needs an identity provider assertion a measuring tool does not have",
}


def _suite_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _node_and_suite() -> Path:
    node = require_node24()
    if not SUITE_JS.is_file():
        pytest.skip(f"the conformance suite is not in {SUITE} (run scripts/setup-test-env.sh)")
    return node


def listed_client_scenarios() -> list[str]:
    node = _node_and_suite()
    out = subprocess.run(
        [str(node), str(SUITE_JS), "list"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    client_part = out.split("Client scenarios", 1)[1]
    return re.findall(r"^\s+-\s+(\S+)", client_part, flags=re.MULTILINE)


def test_every_scenario_is_placed() -> None:
    listed = listed_client_scenarios()
    assert "initialize" in listed
    unplaced = [s for s in listed if s not in APPLICABLE and s not in NOT_APPLICABLE]
    assert unplaced == []
    assert [s for s in APPLICABLE if s not in listed] == []


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("scenario", APPLICABLE)
def test_conformance_scenario_passes(scenario: str, tmp_path: Path) -> None:
    node = _node_and_suite()
    env = _suite_env()
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    command = [str(node), str(SUITE_JS), "client", "--command", str(CLIENT)]
    command += ["--scenario", scenario, "--timeout", "60000", "-o", str(tmp_path / "results")]
    proc = subprocess.run(
        command, capture_output=True, text=True, timeout=180, cwd=tmp_path, env=env, check=False
    )
    found = sorted((tmp_path / "results").rglob("checks.json"))
    assert found, f"no checks.json for {scenario}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    checks = json.loads(found[-1].read_text("utf-8"))
    failed = [c for c in checks if c.get("status") == "FAILURE"]
    warned = [c for c in checks if c.get("status") == "WARNING"]
    assert checks and failed == [] and warned == [], json.dumps(failed + warned, indent=1)[:3000]
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert not (tmp_path / "state").exists() or not any((tmp_path / "state").rglob("*tokens*"))
