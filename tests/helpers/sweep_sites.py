"""A sweep's published inputs for the publishing tests: measurements written where a sweep
writes them, a small catalog, a site with hostile third-party text, and the site of the reference
project's 21 published captures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcpcost.core.measure import measure_tools
from mcpcost.core.model import NOT_CAPTURED, Isolation, Measurement, render_measurement
from mcpcost.core.status import Status
from mcpcost.runtime.output_tree import atomic_write
from mcpcost.sweep.catalog import load_catalog
from mcpcost.sweep.files import measurement_path
from tests.helpers.paths import REFERENCE_CAPTURES

EVIL = 'x|y`z[a](b)<script>alert("n")</script>\nnext'


def tools(n: int, desc: str = "does a thing") -> list[Any]:
    return [
        {
            "name": f"tool_{i}",
            "description": desc * (i + 1),
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
        }
        for i in range(n)
    ]


def measured(
    name: str,
    capture: list[Any],
    *,
    day: str = "2026-09-01",
    docker: bool = False,
    instructions: Any = NOT_CAPTURED,
    status: Status = Status.MEASURED,
) -> Measurement:
    tm = measure_tools(capture)
    return Measurement(
        status=status,
        server_name=name,
        launch_command=f"npx -y {name}",
        measured_at=f"{day}T10:00:00.000Z",
        timeout_ms=60000,
        total_tokens=tm.total_tokens,
        tool_count=tm.tool_count,
        tools=tm.tools,
        canonical_sha256=tm.canonical.sha256,
        raw_tools_capture=tm.capture,
        server_instructions=instructions,
        isolation=Isolation(docker=docker),
        env_var_names=(),
    )


def write(root: Path, name: str, m: Measurement) -> None:
    atomic_write(measurement_path(root, name), render_measurement(m))


CATALOG_TEXT = (
    "servers:\n"
    "  - name: alpha\n    command: npx -y alpha\n    category: community\n"
    "  - name: beta\n    command: npx -y beta\n    category: vendor-official\n"
    "  - name: evil\n    command: npx -y evil\n"
    "  - name: broken\n    command: npx -y broken\n"
    "  - name: walled\n    command: https://x.example/sse\n    remote: true\n"
)
CATALOG = load_catalog(CATALOG_TEXT)


@pytest.fixture(name="site")
def site_fixture(tmp_path: Path) -> Path:
    """A sweep's results: two measured servers, one with hostile names, one that failed."""
    write(tmp_path, "alpha", measured("alpha", tools(5), instructions="Use alpha wisely. " * 60))
    write(tmp_path, "beta", measured("beta", tools(2)))
    evil_tools = [{"name": EVIL, "description": EVIL, "inputSchema": {"type": "object"}}]
    write(tmp_path, "evil", measured("evil", evil_tools))
    fail = Measurement(
        status=Status.STARTUP_FAILURE,
        server_name="broken",
        launch_command="x",
        measured_at="2026-09-01T10:00:00.000Z",
        timeout_ms=60000,
        notes=EVIL,
    )
    write(tmp_path, "broken", fail)
    return tmp_path


def reference_site(tmp_path: Path) -> Path:
    """The 21 reference captures as a sweep's results (skips when ../shared is absent)."""
    captures = sorted(REFERENCE_CAPTURES.glob("*.measurement.json"))
    if len(captures) != 21:
        pytest.skip(f"the 21 reference captures are not in {REFERENCE_CAPTURES}")
    root = tmp_path / "site"
    for capture in captures:
        name = capture.name.removesuffix(".measurement.json")
        atomic_write(measurement_path(root, name), capture.read_bytes())
    return root
