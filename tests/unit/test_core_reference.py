"""Cross-check against the reference project's published measurements (read from ../shared)."""

from __future__ import annotations

from pathlib import Path

from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.model import Measurement, render_measurement
from mcpcost.core.verify import VerifyVerdict, verify_document


def test_every_capture_rederives_exactly(reference_captures: list[Path]) -> None:
    with_capture = 0
    for path in reference_captures:
        doc = parse_json(path.read_bytes())
        result = verify_document(doc)
        if doc.get("rawToolsCapture") is None:
            # azure: a failure recorded consistently (auth-required, no numbers)
            assert not result.ok
            assert result.verdict is VerifyVerdict.RECORDED
            assert (result.recorded_status, result.problems) == ("auth-required", ())
            continue
        with_capture += 1
        assert result.ok, (path.name, result.problems)
        assert result.rederived_tokens == doc["totalTokens"]
        assert result.rederived_sha == doc["canonicalSha256"]
    assert with_capture == 20


def test_measurement_files_round_trip_byte_for_byte(reference_captures: list[Path]) -> None:
    identical = 0
    for path in reference_captures:
        raw = path.read_bytes()
        doc = parse_json(raw)
        again = Measurement.from_dict(doc)
        assert parse_json(render_measurement(again)) == doc  # same content, always
        identical += render_measurement(again).encode() == raw
    # all but the one failure file, whose reference writer put "notes" before "isolation"
    assert identical == len(reference_captures) - 1


def test_tampered_capture_fails_with_named_problems(reference_captures: list[Path]) -> None:
    doc = parse_json(next(p for p in reference_captures if p.name.startswith("time")).read_bytes())
    doc["rawToolsCapture"][0]["description"] += " (edited)"
    result = verify_document(doc)
    assert not result.ok
    kinds = {p.split(":")[0] for p in result.problems}
    assert {"token mismatch", "sha mismatch"} <= kinds
    assert any("descriptionTokens mismatch" in p for p in result.problems)
    assert result.badge is None
