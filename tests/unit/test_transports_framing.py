"""Line framing over plain byte streams (no process): what a container launcher would reuse."""

from __future__ import annotations

import os
import threading
from typing import IO

import pytest

from mcpcost.core.jsonvalue import stringify
from mcpcost.transports.failures import ProtocolError, TransportClosed, TransportTimeout
from mcpcost.transports.framing import LineTransport, StderrTail


class Pipes:
    """Two OS pipes standing in for a server's stdout and stdin, plus a stderr pipe."""

    def __init__(self) -> None:
        out_r, self.out_w = os.pipe()
        self.in_r, in_w = os.pipe()
        err_r, self.err_w = os.pipe()
        self.stdout: IO[bytes] = os.fdopen(out_r, "rb")
        self.stdin: IO[bytes] = os.fdopen(in_w, "wb")
        self.stderr: IO[bytes] = os.fdopen(err_r, "rb")
        self.terminated = threading.Event()

    def terminate(self) -> None:
        self.terminated.set()
        for fd in (self.out_w, self.err_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def server_writes(self, data: bytes) -> None:
        os.write(self.out_w, data)

    def transport(self, **kw: int) -> LineTransport:
        return LineTransport(self.stdout, self.stdin, self.stderr, terminate=self.terminate, **kw)


def test_messages_are_parsed_and_non_json_lines_counted() -> None:
    p = Pipes()
    t = p.transport()
    try:
        p.server_writes(b"Starting server v1...\n\n[1,2]\n")
        p.server_writes(b'{"jsonrpc":"2.0","id":1,"result":{"a":1.0,"2":0,"1":1}}\r\n')
        msg = t.receive(2)
        assert stringify(msg) == '{"jsonrpc":"2.0","id":1,"result":{"1":1,"2":0,"a":1}}'
        assert t.diagnostics.ignored_lines == 2
    finally:
        t.close()
    assert p.terminated.is_set()


def test_message_split_across_writes() -> None:
    p = Pipes()
    t = p.transport()
    try:
        p.server_writes(b'{"jsonrpc":"2.0",')
        with pytest.raises(TransportTimeout):
            t.receive(0.05)
        p.server_writes(b'"id":3,"result":{}}\n')
        assert t.receive(2)["id"] == 3
    finally:
        t.close()


def test_send_writes_one_compact_line() -> None:
    p = Pipes()
    t = p.transport()
    try:
        t.send({"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"s": "é\n"}})
        data = os.read(p.in_r, 1000)
        assert data == '{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"é\\n"}}\n'.encode()
    finally:
        t.close()
        os.close(p.in_r)


def test_end_of_stream_is_closed_with_stderr_tail() -> None:
    p = Pipes()
    t = p.transport()
    try:
        os.write(p.err_w, b"fatal: boom\n")
        p.terminate()
        with pytest.raises(TransportClosed) as info:
            t.receive(2)
        assert "boom" in info.value.stderr_tail
        with pytest.raises(TransportClosed):  # and again: the end is sticky
            t.receive(0.1)
    finally:
        t.close()


def test_oversize_line_is_a_protocol_error() -> None:
    p = Pipes()
    t = p.transport(max_line_bytes=1000)
    try:
        writer = threading.Thread(target=lambda: p.server_writes(b"x" * 5000), daemon=True)
        writer.start()
        with pytest.raises(ProtocolError):
            t.receive(2)
    finally:
        t.close()


def test_stderr_tail_is_bounded() -> None:
    tail = StderrTail(limit=10)
    tail.add(b"0123456789")
    tail.add(b"abc")
    assert tail.text() == "3456789abc"
