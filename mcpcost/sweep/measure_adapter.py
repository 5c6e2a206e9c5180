"""The sweep's default ``MeasureJob``: ``mcpcost.measuring.measure_server`` with our isolation.

Host jobs use the transports' default factory, or ``open_url`` for remote servers when the
caller gives one (the registry's URLs, opened under the address policy); container jobs open
each capture through a ``ContainerLauncher`` (a fresh container per capture).
``measure_server`` does the timeout retry.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring import measure_server
from mcpcost.measuring.containers import ContainerLauncher
from mcpcost.sweep.runner import Job, MeasureJob
from mcpcost.transports.base import Transport, TransportFactory
from mcpcost.transports.open import open_transport


def make_measure(
    launcher: ContainerLauncher | None,
    clock: Callable[[], dt.datetime],
    *,
    open_url: TransportFactory | None = None,
) -> MeasureJob:
    def measure(job: Job) -> Measurement:
        plan = job.container
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
