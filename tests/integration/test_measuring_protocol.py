"""``protocol``: which era measure_server negotiates, recorded in the measurement, on the SDK
fixtures (dual-era, legacy-only and modern-only stdio servers built with the official SDK)."""

from __future__ import annotations

import io

import pytest

from mcpcost.cli import main
from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.measuring import MeasureOptions, measure_server
from mcpcost.transports.session import MODERN_VERSION
from tests.servers.registry import sdk_server_argv

pytest.importorskip("mcp", reason="the SDK fixtures need the mcp package")


def measure(era: str, protocol: str) -> tuple[Status, str | None, object, object]:
    spec = ServerSpec.stdio(f"sdk-{era}", sdk_server_argv(era))
    m = measure_server(spec, MeasureOptions(timeout_s=30, retry_timeouts=False, protocol=protocol))
    doc = m.to_dict()
    return m.status, m.protocol_era, doc.get("protocolErasTried"), doc.get("protocolRequested")


def test_dual_era_auto_is_legacy_and_says_so() -> None:
    assert measure("dual", "auto") == (Status.MEASURED, "legacy", ["legacy"], None)


def test_dual_era_modern_measures_the_2026_era() -> None:
    spec = ServerSpec.stdio("sdk-dual", sdk_server_argv("dual"))
    m = measure_server(spec, MeasureOptions(timeout_s=30, retry_timeouts=False, protocol="modern"))
    assert (m.status, m.protocol_era, m.protocol_version) == (
        Status.MEASURED,
        "modern",
        MODERN_VERSION,
    )
    assert m.protocol_eras_tried == ("modern",)
    assert m.protocol_requested == "modern"
    legacy = measure_server(
        spec, MeasureOptions(timeout_s=30, retry_timeouts=False, protocol="legacy")
    )
    assert legacy.protocol_era == "legacy"
    # The same tools in both eras; the SDK orders schema keys differently per era, so the
    # canonical bytes (and sha) may differ while the token count does not.
    assert [t.name for t in legacy.tools] == [t.name for t in m.tools]
    assert legacy.total_tokens == m.total_tokens


def test_modern_only_server_auto_tries_legacy_then_modern() -> None:
    assert measure("modern", "auto") == (Status.MEASURED, "modern", ["legacy", "modern"], None)


def test_forcing_legacy_on_a_modern_only_server_fails_without_discover() -> None:
    status, era, tried, requested = measure("modern", "legacy")
    assert status is Status.STARTUP_FAILURE and era is None
    assert (tried, requested) == (["legacy"], "legacy")


def test_forcing_modern_on_a_legacy_only_server_fails() -> None:
    status, _, tried, _ = measure("legacy", "modern")
    assert status is Status.STARTUP_FAILURE
    assert tried == ["modern"]


def test_unknown_protocol_is_rejected() -> None:
    spec = ServerSpec.stdio("x", ["true"])
    with pytest.raises(ValueError, match="protocol"):
        measure_server(spec, MeasureOptions(protocol="2026"))


def test_cli_protocol_option() -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(
        [
            "measure",
            "--json",
            "--protocol",
            "modern",
            "--timeout",
            "30",
            "--",
            *sdk_server_argv("dual"),
        ],
        out,
        err,
    )
    assert code == 0, err.getvalue()
    doc = parse_json(out.getvalue())
    assert doc["protocolEra"] == "modern" and doc["protocolErasTried"] == ["modern"]


def test_cli_rejects_an_unknown_protocol() -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["measure", "--protocol", "newest", "--", "true"], out, err)
    assert code == 2
    assert "--protocol" in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1
