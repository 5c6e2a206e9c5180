"""``LazyPattern``: compiled on first use, then the same answers as ``re.compile`` gives."""

from __future__ import annotations

import re
import threading

from mcpcost.core.patterns import LazyPattern

SOURCE = r"(?P<word>[a-z]+)(?:=(?P<value>\d+))?"
TEXT = "alpha=1 beta gamma=23 ;"


def test_nothing_is_compiled_until_the_first_call() -> None:
    pattern = LazyPattern(SOURCE)
    assert pattern._compiled is None
    assert pattern.search(TEXT) is not None
    first = pattern._compiled
    assert first is not None
    pattern.findall(TEXT)
    assert pattern._compiled is first  # compiled once, then kept


def test_every_method_answers_as_the_compiled_pattern_does() -> None:
    lazy, eager = LazyPattern(SOURCE, re.IGNORECASE), re.compile(SOURCE, re.IGNORECASE)
    for text in (TEXT, "", "ALPHA=9", "12 ab"):
        for pos in (0, 3):
            assert _groups(lazy.search(text, pos)) == _groups(eager.search(text, pos))
            assert _groups(lazy.match(text, pos)) == _groups(eager.match(text, pos))
            assert [m.span() for m in lazy.finditer(text, pos)] == [
                m.span() for m in eager.finditer(text, pos)
            ]
        assert _groups(lazy.fullmatch(text)) == _groups(eager.fullmatch(text))
        assert lazy.findall(text) == eager.findall(text)
        assert lazy.split(text) == eager.split(text)
        assert lazy.split(text, 1) == eager.split(text, 1)
        assert lazy.sub("<\\g<word>>", text) == eager.sub("<\\g<word>>", text)
        assert lazy.sub(lambda m: m.group().upper(), text) == eager.sub(
            lambda m: m.group().upper(), text
        )


def test_a_bad_pattern_fails_where_it_is_used() -> None:
    broken = LazyPattern("(unclosed")  # no error at definition: nothing compiled yet
    try:
        broken.search("x")
    except re.error as exc:
        assert "missing )" in str(exc)
    else:
        raise AssertionError("an invalid pattern compiled")


def test_threads_racing_to_the_first_call_all_get_answers() -> None:
    pattern = LazyPattern(r"\d+")
    results: list[list[str]] = []
    start = threading.Barrier(8)

    def use() -> None:
        start.wait()
        results.append(pattern.findall("a1b22c333"))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [["1", "22", "333"]] * 8


def _groups(match: re.Match[str] | None) -> object:
    return None if match is None else (match.span(), match.groupdict())
