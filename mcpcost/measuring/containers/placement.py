"""Measuring in containers: where each spec runs (``place``), and measuring it there.

Remote servers are reached from the host; ``docker run`` commands run on the host as written;
every other stdio server gets a container plan, and each capture gets a fresh container.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from mcpcost.core.model import HOST_ISOLATION, Isolation, Measurement
from mcpcost.core.redact import redact_text
from mcpcost.core.spec import EraChoice, ServerSpec
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
from mcpcost.measuring.server import measure_server
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


def measure_placed(
    placement: Placement,
    launcher: ContainerLauncher,
    *,
    timeout_s: float,
    retry_timeouts: bool = True,
    protocol: EraChoice = EraChoice.AUTO,
    now: Callable[[], datetime] | None = None,
) -> Measurement:
    """Measure a placed spec: in fresh containers per capture, or on the host.

    The record's launch and env names are the original spec's (never ``DOCKER_HOST``).
    """
    plan = placement.plan
    factory = None
    if plan is not None:
        active = plan

        def factory(spec: ServerSpec, timeout: float) -> Transport:
            return launcher.open(active)

    return measure_server(
        placement.spec,
        timeout_s=timeout_s,
        retry_timeouts=retry_timeouts,
        open_transport=factory,
        isolation=placement.isolation,
        now=now,
        protocol=protocol,
    )


def container_measure(
    launcher: ContainerLauncher,
    options: ContainerOptions,
    *,
    timeout_s: float,
    retry_timeouts: bool = True,
    protocol: EraChoice = EraChoice.AUTO,
    now: Callable[[], datetime] | None = None,
) -> Callable[[ServerSpec], Measurement]:
    """A ``spec -> Measurement`` function that runs stdio servers in containers."""

    def measure(spec: ServerSpec) -> Measurement:
        placement = place(spec, options)
        m = measure_placed(
            placement,
            launcher,
            timeout_s=timeout_s,
            retry_timeouts=retry_timeouts,
            protocol=protocol,
            now=now,
        )
        # The record names the spec as configured, never the DOCKER_HOST given to a docker run.
        m = replace(m, launch_command=spec.display())
        if m.has_number:
            m = replace(m, env_var_names=spec.env_names)
        if m.notes:  # proxy credentials reach containers and may be echoed back on stderr
            hidden = spec.secret_values + (options.trust.secret_values if options.trust else ())
            m = replace(m, notes=redact_text(m.notes, hidden))
        return m

    return measure
