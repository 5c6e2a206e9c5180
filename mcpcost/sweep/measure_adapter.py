"""The sweep's default ``MeasureJob``: ``measure_server`` with the sweep's ``MeasureOptions``
(its clock, and for a registry's URLs the address policy), each job's budget and isolation.

Host jobs are measured in this process, or, with a ``pool``, a remote job in one of its
processes (``sweep.measuring_pool``, which opens URLs under the same policy). Container jobs
open each capture through a ``ContainerLauncher`` (a fresh container per capture).
``measure_server`` does the timeout retry, wherever it runs.
"""

from __future__ import annotations

import dataclasses

from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring import MeasureOptions, measure_server
from mcpcost.measuring.containers import ContainerLauncher
from mcpcost.sweep.measuring_pool import MeasuringPool
from mcpcost.sweep.runner import Job, MeasureJob
from mcpcost.transports.base import Transport


def make_measure(
    launcher: ContainerLauncher | None,
    options: MeasureOptions,
    *,
    pool: MeasuringPool | None = None,
) -> MeasureJob:
    def measure(job: Job) -> Measurement:
        plan = job.container
        if plan is None and pool is not None and job.spec.is_remote:
            m = pool.measure(job.spec, job.timeout_s)
            return m if m.isolation == job.isolation else m.with_(isolation=job.isolation)
        placed = dataclasses.replace(options, timeout_s=job.timeout_s, isolation=job.isolation)
        if plan is not None:
            if launcher is None:
                raise RuntimeError("a container job needs a container engine")
            active = launcher

            def factory(spec: ServerSpec, timeout_s: float) -> Transport:
                return active.open(plan)

            placed = dataclasses.replace(placed, open_transport=factory)
        return measure_server(job.spec, placed)

    return measure
