"""ECMAScript JSON semantics beyond the shared vectors: grammar, numbers, strings, key order."""

from __future__ import annotations

import math

import pytest

from mcpcost.core.jsonvalue import (
    number_to_string,
    parse_json,
    quote_string,
    stringify,
    stringify_pretty,
)
from mcpcost.errors import JSONSyntaxError

REJECTED = [
    "",
    "   ",
    "NaN",
    "[Infinity]",
    "[-Infinity]",
    "[1,]",
    '{"a":1,}',
    "\ufeff[]",
    "[01]",
    "[-01]",
    "['a']",
    '["\\x41"]',
    '["\\u12"]',
    '["a\tb"]',
    '["a\nb"]',
    "[1.]",
    "[.5]",
    "[+1]",
    "[0x10]",
    "[1e]",
    "[-]",
    '{"a" 1}',
    "{a:1}",
    "[1] [2]",
    "[true false]",
    "[nul]",
    '"unterminated',
    "[1]x",
    "/* c */ []",
]


@pytest.mark.parametrize("text", REJECTED)
def test_rejects_what_json_parse_rejects(text: str) -> None:
    with pytest.raises(JSONSyntaxError):
        parse_json(text)


def test_bom_in_bytes_is_rejected_too() -> None:
    with pytest.raises(JSONSyntaxError):
        parse_json(b"\xef\xbb\xbf[]")


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(JSONSyntaxError):
        parse_json("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("1.0", "1"),
        ("1E2", "100"),
        ("-0", "0"),
        ("-0.0", "0"),
        ("5e-7", "5e-7"),
        ("1.5e-7", "1.5e-7"),
        ("0.000001", "0.000001"),
        ("0.0000001", "1e-7"),
        ("1e21", "1e+21"),
        ("1e20", "100000000000000000000"),
        ("123e-20", "1.23e-18"),
        ("12345678901234567890", "12345678901234567000"),
        ("9007199254740993", "9007199254740992"),
        ("123456789012345678901234", "1.2345678901234569e+23"),
        ("5e-324", "5e-324"),
        ("1.7976931348623157e308", "1.7976931348623157e+308"),
        ("1e400", "null"),
        ("-1e400", "null"),
        ("0.1", "0.1"),
        ("100.5", "100.5"),
        ("-2.5e-10", "-2.5e-10"),
        ("1.23456789e5", "123456.789"),
    ],
)
def test_numbers_print_as_number_to_string(literal: str, expected: str) -> None:
    assert stringify(parse_json(f"[{literal}]")) == f"[{expected}]"


def test_number_to_string_of_computed_values() -> None:
    assert number_to_string(0.1 + 0.2) == "0.30000000000000004"
    assert number_to_string(float("nan")) == "NaN"
    assert number_to_string(-math.inf) == "-Infinity"
    assert number_to_string(2**60) == "1152921504606847000"
    assert number_to_string(2**70) == "1.1805916207174113e+21"


def test_python_values_follow_js_semantics() -> None:
    assert stringify({"x": 1.0, "y": float("inf"), "z": -0.0, "b": True, "n": None}) == (
        '{"x":1,"y":null,"z":0,"b":true,"n":null}'
    )
    assert stringify((1, 2)) == "[1,2]"
    with pytest.raises(TypeError):
        stringify({"a": {1, 2}})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"b":1,"a":2,"b":3}', '{"b":3,"a":2}'),
        ('{"10":1,"2":2,"a":3,"1":4}', '{"1":4,"2":2,"10":1,"a":3}'),
        ('{"01":1,"1":2}', '{"1":2,"01":1}'),
        ('{"4294967294":1,"4294967295":2,"0":3}', '{"0":3,"4294967294":1,"4294967295":2}'),
        ('{"-1":1,"0":2}', '{"0":2,"-1":1}'),
        ('{"1.5":1,"1":2}', '{"1":2,"1.5":1}'),
        ('{"__proto__":1}', '{"__proto__":1}'),
        ('{"":1,"a":{}}', '{"":1,"a":{}}'),
    ],
)
def test_key_order(text: str, expected: str) -> None:
    assert stringify(parse_json(text)) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('a"b\\c', '"a\\"b\\\\c"'),
        ("\b\f\n\r\t", '"\\b\\f\\n\\r\\t"'),
        ("\x00\x1f\x7f", '"\\u0000\\u001f\x7f"'),
        ("/é\u2028\u2029😀", '"/é\u2028\u2029😀"'),
        ("\ud800", '"\\ud800"'),
        ("x\udfffy", '"x\\udfffy"'),
        ("<|endoftext|>", '"<|endoftext|>"'),
    ],
)
def test_string_escaping(value: str, expected: str) -> None:
    assert quote_string(value) == expected


def test_surrogate_escapes_pair_up_when_parsed() -> None:
    assert parse_json('["\\ud83d\\ude00"]') == ["😀"]
    assert parse_json('["\\uD83D\\uDE00"]') == ["😀"]
    assert stringify(parse_json('["\\ud83d"]')) == '["\\ud83d"]'


def test_invalid_utf8_bytes_become_replacement_characters() -> None:
    assert parse_json(b'["a\xffb"]') == ["a\ufffdb"]


def test_pretty_layout_matches_json_stringify_with_indent() -> None:
    value = {"a": [1, {"b": []}, {}], "2": None}
    assert stringify_pretty(value) == (
        '{\n  "2": null,\n  "a": [\n    1,\n    {\n      "b": []\n    },\n    {}\n  ]\n}'
    )
