"""A small, pure Server-Sent Events decoder (the parts of the WHATWG rules MCP relies on).

Feed it bytes as they arrive; it returns complete events. Lines end in ``\\n``, ``\\r\\n`` or
``\\r``; ``data:`` lines of one event join with ``\\n``; a line starting with ``:`` is a comment
(keep-alive); ``event:`` defaults to ``message``; ``id:`` is kept, ``retry:`` ignored; one space
after the colon is dropped; a blank line dispatches the event (an event with no data is dropped).
"""

from __future__ import annotations

from mcpcost.core.record import Record


class SSEEvent(Record, frozen=True):
    event: str
    data: str
    id: str | None = None


class SSEDecoder:
    """Incremental decoder: ``feed(chunk)`` -> complete events; ``flush()`` at end of stream."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._scan = 0  # bytes of _buf already searched for a line end
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None

    @property
    def buffered(self) -> int:
        """Bytes of an unfinished line (callers cap this)."""
        return len(self._buf)

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        self._buf += chunk
        events: list[SSEEvent] = []
        start = 0
        while True:
            cut = _line_end(self._buf, start, self._scan)
            if cut is None:
                break
            end, nxt = cut
            event = self._line(bytes(self._buf[start:end]).decode("utf-8", errors="replace"))
            if event is not None:
                events.append(event)
            start = self._scan = nxt
        del self._buf[:start]
        self._scan = max(len(self._buf) - 1, 0)
        return events

    def flush(self) -> list[SSEEvent]:
        """End of stream: a final unterminated line is processed; an undispatched event dropped."""
        events: list[SSEEvent] = []
        if self._buf:
            line = bytes(self._buf).rstrip(b"\r")
            self._buf = bytearray()
            self._scan = 0
            event = self._line(line.decode("utf-8", errors="replace"))
            if event is not None:
                events.append(event)
        self._event, self._data = "", []
        return events

    def _line(self, line: str) -> SSEEvent | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value
        return None

    def _dispatch(self) -> SSEEvent | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return SSEEvent(event=event or "message", data="\n".join(data), id=self._id)


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
