"""Measuring in containers: where each spec runs (``place``), and measuring it there.

Remote servers are reached from the host; ``docker run`` commands run on the host as written;
every other stdio server gets a container plan, and each capture gets a fresh container.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass, replace

from mcpcost.core.model import HOST_ISOLATION, Isolation, Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring.containers.launcher import ContainerLauncher
from mcpcost.measuring.containers.plans import (
    ContainerPlan,
    host_mounts,
    is_self_docker,
    plan_for_spec,
    self_docker_isolation,
    with_docker_host,
)
from mcpcost.measuring.containers.trust import HostTrust
from mcpcost.measuring.server import MeasureOptions, measure_server
from mcpcost.transports.base import Transport


@dataclass(frozen=True, slots=True)
class ContainerOptions:
    """How ``--docker`` runs servers: image override, engine address, host trust, mount roots."""

    image_override: str | None = None
    docker_host: str | None = None  # an explicit engine address, given to `docker run` commands
    trust: HostTrust | None = None
    roots: tuple[str, ...] = ()  # host directories whose paths may be mounted
    home: str = ""
    base_dir: str = "/"  # where the host would run a server without a cwd


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one spec runs: the spec to measure (maybe with DOCKER_HOST), and the plan if any."""

    spec: ServerSpec
    isolation: Isolation
    plan: ContainerPlan | None


def place(
    spec: ServerSpec,
    options: ContainerOptions,
    *,
    exists: Callable[[str], bool] = os.path.exists,
    is_dir: Callable[[str], bool] = os.path.isdir,
    realpath: Callable[[str], str] = os.path.realpath,
) -> Placement:
    """Remote servers stay on the host; ``docker run`` commands run on the host as written
    (given the engine address); every other stdio server gets a container plan."""
    if spec.is_remote:
        return Placement(spec, HOST_ISOLATION, None)
    if is_self_docker(spec.argv):
        return Placement(
            with_docker_host(spec, options.docker_host),
            self_docker_isolation(options.docker_host),
            None,
        )
    mounts = host_mounts(
        spec.argv,
        spec.cwd,
        base_dir=options.base_dir,
        roots=options.roots,
        home=options.home,
        exists=exists,
        is_dir=is_dir,
        realpath=realpath,
    )
    plan = plan_for_spec(
        spec, image_override=options.image_override, trust=options.trust, mounts=mounts
    )
    return Placement(spec, plan.isolation, plan)


def placed_options(
    placement: Placement, launcher: ContainerLauncher, options: MeasureOptions
) -> MeasureOptions:
    """``options`` for a placed spec: each capture in a fresh container of its plan (or on the
    host without one), the record saying where it ran."""
    plan = placement.plan
    if plan is None:
        return dataclasses.replace(options, isolation=placement.isolation)

    def factory(spec: ServerSpec, timeout: float) -> Transport:
        return launcher.open(plan)

    return dataclasses.replace(options, isolation=placement.isolation, open_transport=factory)


def container_measure(
    launcher: ContainerLauncher, containers: ContainerOptions, options: MeasureOptions
) -> Callable[[ServerSpec], Measurement]:
    """A ``spec -> Measurement`` function that runs stdio servers in containers (``place``),
    measured with ``options``. The record's launch and env names are the spec's as configured
    (never the ``DOCKER_HOST`` given to a docker run); the host's proxy credentials, which
    reach containers and may be echoed back, are masked as the spec's secrets are."""
    hidden = options.mask + (containers.trust.secret_values if containers.trust else ())

    def measure(spec: ServerSpec) -> Measurement:
        placement = place(spec, containers)
        placed = dataclasses.replace(placed_options(placement, launcher, options), mask=hidden)
        m = measure_server(placement.spec, placed)
        m = replace(m, launch_command=spec.display())
        if m.has_number:
            m = replace(m, env_var_names=spec.env_names)
        return m

    return measure
