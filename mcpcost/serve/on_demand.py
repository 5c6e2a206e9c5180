"""Measuring on demand: one caller's target measured with the code ``measure --url`` runs, off
the event loop, within the service's bounds.

``OnDemand.answer`` decides, in this order: a fresh cached answer is returned as it is; a target
already being measured is waited for (one measurement however many callers ask); a URL whose
host is an address the policy refuses is refused at once; with every slot taken the caller gets
429 and ``Retry-After`` (the soonest running measurement's deadline); a client past its rate
limit gets 429 and the seconds until it may start another. Otherwise the measurement starts on a
worker thread (never on the loop, so a hostile server slows its own callers only) and its
answer is cached for every caller.

Each measurement has a deadline: its captures' budget (``timeout_s``, no retry) bounds the
capture, and should the worker still not have returned ``GRACE_S`` later the callers get a
``timeout`` answer anyway; the slot stays taken until the worker is done, so a server that held
a worker cannot make room for more work than ``max_concurrent``.

The measurement is ``measure_server`` under the service's address policy
(``MeasureOptions.url_policy``): every connection, each redirect's too, goes only where the
policy allows, nothing the caller sent (headers, cookies) goes to the server, and error bodies
are never quoted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.measuring import MeasureOptions, measure_server
from mcpcost.runtime.addresses import AddressRefused, check_url
from mcpcost.runtime.clock import iso_utc, utc_now
from mcpcost.serve.api import (
    MeasureTarget,
    error_body,
    json_body,
    literal_refusal,
    measured_session,
    measurement_view,
)
from mcpcost.serve.guards import CachedAnswer, Clock, RateLimiter, ResultCache, Slots
from mcpcost.serve.options import ServeSettings

GRACE_S: Final = 5.0  # past the captures' budget: the stop of a capture and its connections
KEPT_STATUSES: Final = (200, 403)  # a measurement (any status) and a refusal; never a defect
MeasureFn = Callable[[MeasureTarget], Measurement]


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """What the API sends back for one measure request."""

    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)


def spec_for(target: MeasureTarget) -> ServerSpec:
    """The server spec of a target: no headers (a caller's are never sent on)."""
    name = urlsplit(target.url).hostname or "remote"
    return ServerSpec.remote(name, target.url, transport=target.transport)


def remote_measurer(settings: ServeSettings) -> MeasureFn:
    """The real measurement (runs on a worker thread): AddressRefused when the host resolves to
    an address the policy refuses, before anything is sent."""
    policy = settings.policy

    def measure(target: MeasureTarget) -> Measurement:

        try:
            check_url(target.url, policy)
        except AddressRefused:
            raise
        except (OSError, ValueError):
            pass  # a name that does not resolve: the measurement reports it as it meets it
        options = MeasureOptions(
            timeout_s=settings.timeout_s, retry_timeouts=False, url_policy=policy
        )
        return measure_server(spec_for(target), options)

    return measure


def past_deadline(target: MeasureTarget, started_at: str, deadline_s: float) -> Measurement:
    """The answer for a measurement whose worker had not returned by the deadline."""
    return Measurement(
        status=Status.TIMEOUT,
        server_name=spec_for(target).name,
        launch_command=spec_for(target).display(),
        measured_at=started_at,
        timeout_ms=int(deadline_s * 1000),
        transport=target.transport,
        notes=f"the measurement did not end within its deadline of {deadline_s:g}s",
    )


class OnDemand:
    """The measure endpoint's state: slots, rate limits, cache and the targets in flight.
    Used from the event loop's thread only."""

    def __init__(
        self,
        settings: ServeSettings,
        *,
        measure: MeasureFn | None = None,
        clock: Clock | None = None,
        grace_s: float = GRACE_S,
    ) -> None:

        tick = clock or time.monotonic
        self.settings = settings
        self._measure = measure or remote_measurer(settings)
        self._deadline_s = settings.timeout_s + grace_s
        self.slots = Slots(settings.max_concurrent, tick)
        self._limits = RateLimiter(settings.rate_per_minute, tick)
        self._cache = ResultCache(settings.cache_seconds, tick)
        self._in_flight: dict[str, asyncio.Task[CachedAnswer]] = {}
        self._executor = ThreadPoolExecutor(
            max_workers=settings.max_concurrent, thread_name_prefix="mcpcost-serve-measure"
        )

    def close(self) -> None:
        """Start nothing more; measurements still running end at their deadlines."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def answer(self, target: MeasureTarget, client: str) -> Answer:
        cached = self._cache.get(target.key)
        if cached is not None:
            return self._from_cache(cached, "hit")
        running = self._in_flight.get(target.key)
        if running is not None:
            return self._from_cache(await asyncio.shield(running), "shared")
        refusal = literal_refusal(target.url, self.settings.policy)
        if refusal is not None:  # decided without work: not kept, so it evicts nothing
            body = error_body("address-refused", refusal)
            return self._from_cache(self._cache.put(target.key, 403, body, keep=False), "miss")
        token = self.slots.take(self._deadline_s)
        if token is None:
            wait = self.slots.retry_after()
            message = (
                f"{self.slots.limit} measurements are running, the most this service runs at "
                f"once; try again in {wait}s"
            )
            return _refused(error_body("busy", message), wait)
        wait_for_client = self._limits.take(client)
        if wait_for_client is not None:
            self.slots.release(token)
            message = (
                f"this client started {self._limits.per_minute} measurements in the last "
                f"minute; try again in {wait_for_client}s"
            )
            return _refused(error_body("rate-limited", message), wait_for_client)
        task = asyncio.get_running_loop().create_task(self._settle(target, token))
        self._in_flight[target.key] = task
        task.add_done_callback(lambda _: self._in_flight.pop(target.key, None))
        return self._from_cache(await asyncio.shield(task), "miss")

    async def _settle(self, target: MeasureTarget, token: int) -> CachedAnswer:
        """Run the measurement on a worker and store its answer; the slot is released when
        the worker returns, whenever that is."""
        loop = asyncio.get_running_loop()
        started_at = iso_utc(utc_now())
        try:
            work = loop.run_in_executor(self._executor, self._measure, target)
        except RuntimeError:  # the executor is shut down: the service is stopping
            self.slots.release(token)
            body = error_body("stopping", "the service is shutting down")
            return self._cache.put(target.key, 503, body, keep=False)
        work.add_done_callback(lambda _: self.slots.release(token))
        try:
            m = await asyncio.wait_for(asyncio.shield(work), self._deadline_s)
            status, body = 200, self._measured_body(target, m)
        except AddressRefused as exc:
            status, body = 403, error_body("address-refused", str(exc))
        except TimeoutError:
            late = past_deadline(target, started_at, self._deadline_s)
            status, body = 200, self._measured_body(target, late)
        except Exception as exc:  # a defect of ours: named, never a traceback to the caller
            status = 500
            body = error_body("internal", f"the measurement failed ({type(exc).__name__})")
        return self._cache.put(target.key, status, body, keep=status in KEPT_STATUSES)

    @staticmethod
    def _measured_body(target: MeasureTarget, m: Measurement) -> bytes:
        head = {"url": spec_for(target).display(), "transportRequested": str(target.transport)}
        return json_body({**head, **measurement_view(m, measured_session(m))})

    def _from_cache(self, stored: CachedAnswer, how: str) -> Answer:
        headers = {"X-Cache": how, "Age": str(int(self._cache.age(stored)))}
        if stored.status in KEPT_STATUSES and self._cache.ttl_s > 0:
            headers["Cache-Control"] = f"public, max-age={self._cache.remaining(stored)}"
        else:
            headers["Cache-Control"] = "no-store"
        return Answer(status=stored.status, body=stored.body, headers=headers)


def _refused(body: bytes, retry_after: int) -> Answer:
    return Answer(
        status=429,
        body=body,
        headers={"Retry-After": str(retry_after), "Cache-Control": "no-store"},
    )
