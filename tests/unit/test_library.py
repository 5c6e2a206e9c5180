"""The package's public API: ``__all__`` pinned, every name documented and loadable, and a missing
config an input error (tests/integration/test_library_runs.py runs the library for real)."""

from __future__ import annotations

from pathlib import Path

import pytest

import mcpcost
from mcpcost.errors import InputError

PUBLIC_API = [
    "AuditReport",
    "Canonical",
    "ConfigResult",
    "InputError",
    "Isolation",
    "McpcostError",
    "MeasureOptions",
    "Measurement",
    "ServerResult",
    "ServerSpec",
    "Status",
    "ToolCost",
    "ToolsMeasure",
    "VerifyResult",
    "__version__",
    "audit_configs",
    "canonicalize",
    "count_tokens",
    "measure_server",
    "measure_tools",
    "parse_json",
    "render_badge",
    "stringify",
    "verify_document",
]


def test_all_is_pinned() -> None:
    assert mcpcost.__all__ == PUBLIC_API


def test_every_public_name_loads_and_is_in_the_docstring() -> None:
    doc = mcpcost.__doc__ or ""
    for name in mcpcost.__all__:
        assert getattr(mcpcost, name) is not None
        assert f"``{name}``" in doc, f"{name} is not listed in mcpcost's docstring"
        assert name in dir(mcpcost)


def test_public_names_are_the_defining_modules_objects() -> None:
    from mcpcost.audit.compose import audit_configs
    from mcpcost.core.model import Measurement
    from mcpcost.measuring.server import measure_server

    assert mcpcost.audit_configs is audit_configs
    assert mcpcost.measure_server is measure_server
    assert mcpcost.Measurement is Measurement


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = mcpcost.no_such_name  # type: ignore[attr-defined]


def test_audit_configs_missing_file_is_an_input_error(tmp_path: Path) -> None:
    missing = tmp_path / "absent.json"
    with pytest.raises(InputError, match="no such file"):
        mcpcost.audit_configs([missing])
    assert issubclass(mcpcost.InputError, mcpcost.McpcostError)


def test_measure_options_check_their_values_and_keep_secrets_out_of_their_repr() -> None:
    import pytest

    from mcpcost.measuring import MeasureOptions
    from mcpcost.transports.open import open_transport

    options = MeasureOptions(timeout_s=5, mask=("s3cret-value",))
    assert "s3cret-value" not in repr(options) and "timeout_s=5" in repr(options)
    assert MeasureOptions(open_transport=open_transport).factory() is open_transport
    with pytest.raises(ValueError, match="timeout_s"):
        MeasureOptions(timeout_s=0)
    with pytest.raises(ValueError, match="protocol"):
        MeasureOptions(protocol="2026")  # type: ignore[arg-type]
