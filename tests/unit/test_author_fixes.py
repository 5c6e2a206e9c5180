"""Fixes with exact savings: each saving is the capture's count minus its transformed copy's."""

from __future__ import annotations

import json
import math
from typing import Any

from mcpcost.author.fixes import (
    ENUM_LIMIT,
    POPULATION_P90,
    FixKind,
    above_p90,
    all_fixes,
    large_enums,
    shared_defs,
    without_output_schema,
)
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.tokenizer import count_tokens
from tests.helpers.paths import ROOT

ADDRESS = {
    "type": "object",
    "description": "A postal address",
    "properties": {
        "street": {"type": "string", "description": "street and number"},
        "city": {"type": "string", "description": "the city"},
        "country": {"type": "string", "description": "ISO 3166 country code"},
    },
    "required": ["street", "city"],
}


def _capture() -> list[Any]:
    return [
        {
            "name": "ship",
            "description": "Ship a parcel. " + "Say where it goes and where it comes from. " * 60,
            "inputSchema": {
                "type": "object",
                "properties": {"from": ADDRESS, "to": ADDRESS, "returns": ADDRESS},
            },
            "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
        },
        {
            "name": "zone",
            "description": "Pick a zone.",
            "inputSchema": {
                "type": "object",
                "properties": {"zone": {"type": "string", "enum": [f"z{i}" for i in range(40)]}},
            },
        },
    ]


def _recount(tools: Any) -> int:
    return count_tokens(stringify(list(tools)))


def test_each_saving_is_the_recount_of_its_transformed_capture() -> None:
    capture = _capture()
    before = _recount(capture)
    for fix in (
        shared_defs(capture),
        large_enums(capture),
        without_output_schema(capture),
        above_p90(capture),
    ):
        assert fix is not None
        assert fix.before == before
        assert fix.after == _recount(fix.capture)
        assert fix.saving == before - _recount(fix.capture) > 0
    assert capture == _capture()  # the capture itself is never changed


def test_shared_defs_writes_the_subschema_once_and_refers_to_it() -> None:
    fix = shared_defs(_capture())
    assert fix is not None and fix.tools == ("ship",)
    schema = fix.capture[0]["inputSchema"]  # type: ignore[index]
    assert schema["$defs"] == {"d1": ADDRESS}
    assert set(map(json.dumps, schema["properties"].values())) == {
        json.dumps({"$ref": "#/$defs/d1"})
    }


def test_large_enums_and_output_schema_touch_only_their_tools() -> None:
    enum = large_enums(_capture())
    assert enum is not None and enum.tools == ("zone",)
    assert "enum" not in enum.capture[1]["inputSchema"]["properties"]["zone"]  # type: ignore[index]
    assert large_enums(_capture(), limit=40) is None
    assert ENUM_LIMIT < 40
    out = without_output_schema(_capture())
    assert out is not None and out.tools == ("ship",)


def test_all_fixes_name_each_client_and_cut_at_its_limit() -> None:
    fixes = {f.kind: f for f in all_fixes(_capture(), "shipping")}
    cut = fixes[FixKind.CLIENT_TRUNCATION]
    assert "claude-code" in cut.detail and cut.tools == ("ship",)
    assert cut.after == _recount(cut.capture)
    clients = dict(fixes[FixKind.OUTPUT_SCHEMA].per_client)
    assert clients["Claude Code"] == 0  # its API shape drops outputSchema already
    savings = [f.saving for f in fixes.values()]
    assert savings == sorted(savings, reverse=True)


def test_the_population_figure_is_the_published_datasets() -> None:
    tokens: list[int] = []
    servers = 0
    latest = ""
    for path in sorted((ROOT / "results").glob("*/measurement.json")):
        m = json.loads(path.read_text(encoding="utf-8"))
        if m.get("status") not in ("measured", "dynamic"):
            continue
        servers += 1
        latest = max(latest, m["measuredAt"][:10])
        tokens += [t["descriptionTokens"] for t in m["tools"]]
    tokens.sort()
    p90 = tokens[math.ceil(0.9 * len(tokens)) - 1]
    assert (p90, len(tokens), servers, latest) == (
        POPULATION_P90.description_tokens_p90,
        POPULATION_P90.tools,
        POPULATION_P90.servers,
        POPULATION_P90.measured_through,
    )
