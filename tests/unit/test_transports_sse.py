"""The pure SSE decoder, on its own: events, line ends, and the cap on one event."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpcost.transports.failures import ProtocolError
from mcpcost.transports.sse import SSEDecoder, SSEEvent, decode_all


def test_basic_event_and_default_name() -> None:
    assert decode_all(b"data: hello\n\n") == [SSEEvent("message", "hello")]


def test_named_event_multiline_data_crlf_and_comments() -> None:
    body = (
        b": keep-alive\r\nevent: endpoint\r\ndata: /messages?s=1\r\n\r\ndata: a\r\ndata:b\r\n\r\n"
    )
    assert decode_all(body) == [SSEEvent("endpoint", "/messages?s=1"), SSEEvent("message", "a\nb")]


def test_bare_cr_line_endings_and_id_kept_retry_ignored() -> None:
    events = decode_all(b"id: 7\rretry: 100\rdata: x\r\r")
    assert events == [SSEEvent("message", "x", id="7")]


def test_event_without_data_is_dropped_and_name_resets() -> None:
    events = decode_all(b"event: ping\n\ndata: y\n\n")
    assert events == [SSEEvent("message", "y")]


def test_only_one_leading_space_is_removed() -> None:
    assert decode_all(b"data:  two\n\n")[0].data == " two"


def test_unterminated_event_at_end_is_not_dispatched() -> None:
    assert decode_all(b"data: done\n\ndata: partial") == [SSEEvent("message", "done")]


def test_crlf_split_across_chunks_is_one_line_end() -> None:
    d = SSEDecoder()
    assert d.feed(b"data: a\r") == []
    assert d.feed(b"\n\r") == []
    assert d.feed(b"\n") == [SSEEvent("message", "a")]


def test_large_event_in_small_chunks() -> None:
    payload = b"x" * 300_000
    d = SSEDecoder()
    events: list[SSEEvent] = []
    body = b"data: " + payload + b"\n\n"
    for i in range(0, len(body), 4096):
        events += d.feed(body[i : i + 4096])
    assert [len(e.data) for e in events] == [len(payload)]
    assert d.buffered == 0


@given(
    st.lists(
        st.text(
            alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)),
            max_size=20,
        ),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from([b"\n", b"\r\n", b"\r"]),
    st.integers(min_value=1, max_value=7),
)
def test_any_chunking_gives_the_same_events(lines: list[str], eol: bytes, step: int) -> None:
    body = b"".join(b"data: " + ln.encode() + eol for ln in lines) + eol
    whole = decode_all(body)
    d = SSEDecoder()
    pieces: list[SSEEvent] = []
    for i in range(0, len(body), step):
        pieces += d.feed(body[i : i + step])
    pieces += d.flush()
    assert pieces == whole
    assert whole == [SSEEvent("message", "\n".join(lines))]


def test_an_event_whose_data_lines_never_end_is_refused_at_the_cap() -> None:
    d = SSEDecoder(max_event_bytes=1 << 20)
    line = b"data: " + b"x" * 1000 + b"\n"
    with pytest.raises(ProtocolError, match="event larger than 1048576 bytes"):
        for _ in range(10_000):  # 10 MB at most: a decoder without the cap never raises
            d.feed(line)


def test_a_line_that_never_ends_is_refused_at_the_cap() -> None:
    d = SSEDecoder(max_event_bytes=1 << 20)
    with pytest.raises(ProtocolError, match="event larger than 1048576 bytes"):
        d.feed(b"data: ")
        for _ in range(10_000):
            d.feed(b"x" * 1000)


def test_the_cap_is_per_event() -> None:
    d = SSEDecoder(max_event_bytes=1 << 20)
    event = b"data: " + b"x" * 900_000 + b"\ndata: y\n\n"
    for _ in range(20):  # 18 MB in all, each event under the cap
        (got,) = d.feed(event)
        assert got.data == "x" * 900_000 + "\ny"
    assert d.buffered == 0
    assert SSEDecoder().feed(b": keep-alive\n" * 10_000) == []  # comments hold nothing
