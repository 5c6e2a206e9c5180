"""``core.json_schema``, the strict checker the Action's second phase reads a saved report
with: it gives the same answer as ``jsonschema`` (a test dependency) on real reports and on
every kind of change to them, refuses a schema keyword it does not check, and says where."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpcost.core.json_schema import SchemaMismatch, check_against
from mcpcost.render.report_reader import report_schema
from tests.helpers.json_strategies import values

SCHEMA = report_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _golden() -> dict[str, Any]:
    from tests.helpers.paths import ROOT

    data: dict[str, Any] = json.loads(
        (ROOT / "tests" / "fixtures" / "golden" / "audit_report.json").read_text("utf-8")
    )
    return data


def _ours(value: Any, schema: Any = SCHEMA) -> bool:
    try:
        check_against(value, schema)
    except SchemaMismatch:
        return False
    return True


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*at, i))
    return out


def _set(doc: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    out = copy.deepcopy(doc)
    here = out
    for step in path[:-1]:
        here = here[step]
    here[path[-1]] = new
    return out


def test_the_golden_report_is_valid_for_both() -> None:
    doc = _golden()
    assert VALIDATOR.is_valid(doc) and _ours(doc)


REPLACEMENTS = [None, True, 0, -1, 1.5, "", "x", [], {}, {"unexpected": 1}, [None]]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_one_changed_value_gets_the_same_answer(data: st.DataObject) -> None:
    doc = _golden()
    path = data.draw(st.sampled_from(_paths(doc)))
    new = data.draw(st.one_of(st.sampled_from(REPLACEMENTS), values))
    changed = _set(doc, path, new)
    assert _ours(changed) == VALIDATOR.is_valid(changed), (path, new)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_an_added_or_removed_field_gets_the_same_answer(data: st.DataObject) -> None:
    doc = _golden()
    objects = [p for p in _paths(doc) if isinstance(_get(doc, p), dict)]
    path = data.draw(st.sampled_from(objects))
    target = copy.deepcopy(doc)
    obj = _get(target, path)
    if obj and data.draw(st.booleans()):
        del obj[data.draw(st.sampled_from(sorted(obj)))]
    else:
        obj[data.draw(st.text(max_size=6))] = data.draw(values)
    assert _ours(target) == VALIDATOR.is_valid(target), path


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def test_a_keyword_it_does_not_check_is_refused_not_skipped() -> None:
    with pytest.raises(SchemaMismatch, match="keywords not checked here"):
        check_against([1, 1], {"type": "array", "uniqueItems": True})


def test_the_error_is_one_line_naming_where() -> None:
    doc = _golden()
    doc["configs"][0]["servers"][0]["tokens"] = "many\nlines"
    with pytest.raises(SchemaMismatch) as caught:
        check_against(doc, SCHEMA)
    text = str(caught.value)
    assert "\n" not in text and text.startswith("at /configs/0/servers/0/tokens:")
