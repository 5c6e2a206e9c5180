"""The bare floor of a stdio server: seconds from spawn to ``tools/list`` answered.

A deliberately minimal client (legacy handshake, first page only, no guards) for benches to
compare ``mcpcost measure``'s wall time against. ``python -m tests.servers.floor NAME...`` prints
one line per real server.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "floor", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def _line(msg: Mapping[str, object]) -> bytes:
    return json.dumps(msg).encode() + b"\n"


def bare_floor(argv: Sequence[str], timeout: float = 60.0) -> float:
    """Seconds from spawning ``argv`` until its ``tools/list`` response line has arrived."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        # Pipelined, as a fast client may: the server reads them in order.
        proc.stdin.write(_line(INIT) + _line(INITIALIZED) + _line(LIST))
        proc.stdin.flush()
        buffer = b""
        fd = proc.stdout.fileno()
        deadline = start + timeout
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(f"no tools/list answer within {timeout}s")
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise RuntimeError(f"server exited ({proc.wait()}) before answering tools/list")
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                with contextlib.suppress(ValueError):
                    msg = json.loads(line)
                    if isinstance(msg, dict) and msg.get("id") == 2 and "method" not in msg:
                        return time.perf_counter() - start
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()


def main(argv: list[str]) -> int:
    from tests.servers import registry

    names = argv or list(registry.REAL_STDIO_SERVERS)
    for name in names:
        server = registry.real_server(name)
        if server is None:
            print(f"{name}: skipped ({registry.real_server_missing(name)})")
            continue
        runs = sorted(bare_floor(server.argv) for _ in range(3))
        print(f"{name}: floor median {runs[1] * 1000:.0f} ms (min {runs[0] * 1000:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
