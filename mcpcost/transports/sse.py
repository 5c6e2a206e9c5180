"""A small, pure Server-Sent Events decoder (the parts of the WHATWG rules MCP relies on).

Feed it bytes as they arrive; it returns complete events. Lines end in ``\\n``, ``\\r\\n`` or
``\\r``; ``data:`` lines of one event join with ``\\n``; a line starting with ``:`` is a comment
(keep-alive); ``event:`` defaults to ``message``; ``id:`` is kept, ``retry:`` ignored; one space
after the colon is dropped; a blank line dispatches the event (an event with no data is dropped).
One event is capped in size (``MAX_EVENT_BYTES`` unless the caller says otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcpcost.transports.base import MAX_CAPTURE_BYTES
from mcpcost.transports.failures import ProtocolError

MAX_EVENT_BYTES = MAX_CAPTURE_BYTES


@dataclass(frozen=True, slots=True)
class SSEEvent:
    event: str
    data: str
    id: str | None = None


class SSEDecoder:
    """Incremental decoder: ``feed(chunk)`` -> complete events; ``flush()`` at end of stream.

    One event may hold at most ``max_event_bytes``: its ``data`` so far plus the line still
    arriving. A stream whose event grows past that (a line that never ends, or ``data:`` lines
    that never meet a blank one) raises ``ProtocolError`` instead of growing without limit.
    """

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._max = max_event_bytes
        self._buf = bytearray()
        self._scan = 0  # bytes of _buf already searched for a line end
        self._event = ""
        self._data = bytearray()  # the event's data lines, joined with "\n"
        self._has_data = False
        self._id: str | None = None

    @property
    def buffered(self) -> int:
        """Bytes held for the event being received (its data and its unfinished line)."""
        return len(self._buf) + len(self._data)

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        self._buf += chunk
        events: list[SSEEvent] = []
        start = 0
        while True:
            cut = _line_end(self._buf, start, self._scan)
            if cut is None:
                break
            end, nxt = cut
            event = self._line(bytes(self._buf[start:end]))
            if event is not None:
                events.append(event)
            start = self._scan = nxt
        del self._buf[:start]
        self._scan = max(len(self._buf) - 1, 0)
        if self.buffered > self._max:
            raise ProtocolError(f"server sent an event larger than {self._max} bytes")
        return events

    def flush(self) -> list[SSEEvent]:
        """End of stream: a final unterminated line is processed; an undispatched event dropped."""
        events: list[SSEEvent] = []
        if self._buf:
            line = bytes(self._buf).rstrip(b"\r")
            self._buf = bytearray()
            self._scan = 0
            event = self._line(line)
            if event is not None:
                events.append(event)
        self._event, self._data, self._has_data = "", bytearray(), False
        return events

    def _line(self, line: bytes) -> SSEEvent | None:
        if line == b"":
            return self._dispatch()
        if line.startswith(b":"):
            return None
        name, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        if name == b"event":
            self._event = value.decode("utf-8", errors="replace")
        elif name == b"data":
            if self._has_data:
                self._data += b"\n"
            self._data += value
            self._has_data = True
        elif name == b"id" and b"\0" not in value:
            self._id = value.decode("utf-8", errors="replace")
        return None

    def _dispatch(self) -> SSEEvent | None:
        data, event, has_data = self._data, self._event, self._has_data
        self._data, self._event, self._has_data = bytearray(), "", False
        if not has_data:
            return None
        text = data.decode("utf-8", errors="replace")
        return SSEEvent(event=event or "message", data=text, id=self._id)


def _line_end(buf: bytearray, start: int, scan: int) -> tuple[int, int] | None:
    """(end of the line starting at ``start``, start of the next) or None if it is incomplete.

    ``scan`` is where searching may begin (earlier bytes hold no terminator). A trailing lone
    ``\\r`` waits for a possible ``\\n``.
    """
    frm = max(start, scan)
    n = buf.find(b"\n", frm)
    r = buf.find(b"\r", frm)
    if r >= 0 and (n < 0 or r < n):
        if r + 1 == len(buf):
            return None
        return r, r + (2 if buf[r + 1] == 0x0A else 1)
    if n >= 0:
        return n, n + 1
    return None


def decode_all(data: bytes) -> list[SSEEvent]:
    """Every event of a complete SSE body."""
    decoder = SSEDecoder()
    return decoder.feed(data) + decoder.flush()
