"""The sweep's default ``MeasureJob``: ``mcpcost.measuring.measure_server`` with our isolation.

Host jobs use the transports' default factory, or ``open_url`` for remote servers when the
caller gives one (the registry's URLs, opened under the address policy); with a ``pool`` a
remote job is measured in one of its processes instead, opened the same way
(``sweep.measuring_pool``). Container jobs open each capture through a ``ContainerLauncher`` (a
fresh container per capture). ``measure_server`` does the timeout retry, wherever it runs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring import measure_server
from mcpcost.measuring.containers import ContainerLauncher
from mcpcost.sweep.measuring_pool import MeasuringPool
from mcpcost.sweep.runner import Job, MeasureJob
from mcpcost.transports.base import Transport, TransportFactory
from mcpcost.transports.open import open_transport


def make_measure(
    launcher: ContainerLauncher | None,
    clock: Callable[[], dt.datetime],
    *,
    open_url: TransportFactory | None = None,
    pool: MeasuringPool | None = None,
) -> MeasureJob:
    def measure(job: Job) -> Measurement:
        plan = job.container
        if plan is None and pool is not None and job.spec.is_remote:
            m = pool.measure(job.spec, job.timeout_s)
            return m if m.isolation == job.isolation else m.with_(isolation=job.isolation)
        if plan is None:
            remote = job.spec.is_remote and open_url is not None
            factory = open_url if remote and open_url is not None else open_transport
        else:
            if launcher is None:
                raise RuntimeError("a container job needs a container engine")
            active = launcher

            def factory(spec: ServerSpec, timeout_s: float) -> Transport:
                return active.open(plan)

        return measure_server(
            job.spec,
            timeout_s=job.timeout_s,
            retry_timeouts=True,
            open_transport=factory,
            isolation=job.isolation,
            now=clock,
        )

    return measure
