"""When each transport a measurement opened got its first message (the handshake answer), for
tests about the order in which a measurement's two captures start."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from mcpcost.transports.base import Diagnostics, Message, Transport


class FirstAnswers:
    """Wraps transports as they are opened: ``opened_ns`` holds when each open was asked for,
    ``answered_ns`` when its first message arrived (None: never), in the order of the opens."""

    def __init__(self) -> None:
        self.opened_ns: list[int] = []
        self.answered_ns: list[int | None] = []
        self._lock = threading.Lock()

    def around(self, open_one: Callable[[], Transport]) -> Transport:
        with self._lock:
            index = len(self.opened_ns)
            self.opened_ns.append(time.monotonic_ns())
            self.answered_ns.append(None)
        return _Noting(open_one(), self, index)

    def _answered(self, index: int) -> None:
        with self._lock:
            if self.answered_ns[index] is None:
                self.answered_ns[index] = time.monotonic_ns()


class _Noting:
    def __init__(self, inner: Transport, answers: FirstAnswers, index: int) -> None:
        self._inner, self._answers, self._index = inner, answers, index

    def send(self, message: Message) -> None:
        self._inner.send(message)

    def receive(self, timeout_s: float) -> Message:
        message = self._inner.receive(timeout_s)
        self._answers._answered(self._index)
        return message

    def negotiated(self, protocol_version: str, *, modern: bool) -> None:
        self._inner.negotiated(protocol_version, modern=modern)

    def close(self) -> None:
        self._inner.close()

    @property
    def diagnostics(self) -> Diagnostics:
        return self._inner.diagnostics
