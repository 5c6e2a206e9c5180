"""Running one server in a container, for ``sweep``, ``audit`` and ``measure`` (``--docker``).

* ``trust``          the host's CA bundle and proxy, given to containers behind a TLS proxy
* ``engine_client``  the engine's address, its published label, and a client that answers
* ``plans``          what one capture's container looks like, and which host paths it mounts
* ``attach_stream``  the container's stdio over the attach socket (frame demultiplexing)
* ``launcher``       ``ContainerLauncher``: one container per capture, removed when it ends
* ``placement``      where each spec runs (container, host ``docker run``, remote) and measuring it
"""

from __future__ import annotations

from mcpcost.measuring.containers.attach_stream import demultiplex
from mcpcost.measuring.containers.engine_client import (
    DEFAULT_DOCKER_HOST,
    DOCKER_HOST_VAR,
    EngineUnavailable,
    closing_client,
    engine_address,
    engine_label,
)
from mcpcost.measuring.containers.launcher import ContainerLauncher, container_name
from mcpcost.measuring.containers.placement import (
    ContainerOptions,
    Placement,
    container_measure,
    place,
    placed_options,
)
from mcpcost.measuring.containers.plans import (
    BASE_NOTE,
    ENGINE_NOTE,
    GIT_PREFIX,
    MEMORY_LIMIT,
    NETWORK,
    NODE_IMAGE,
    NPM_CACHE_VOLUME,
    PIDS_LIMIT,
    SELF_DOCKER_NOTE,
    UV_CACHE_VOLUME,
    UV_IMAGE,
    ContainerPlan,
    HostMounts,
    build_plan,
    default_image,
    host_mounts,
    is_self_docker,
    plan_for_spec,
    self_docker_isolation,
    with_docker_host,
)
from mcpcost.measuring.containers.trust import (
    CA_BUNDLE_AUTO,
    CA_ENV_VARS,
    CA_MOUNT_PATH,
    CA_NOTE,
    HOST_CA_FILE,
    PROXY_VARS,
    CABundleError,
    HostTrust,
    host_proxy,
    host_trust,
    resolve_ca_bundle,
)

__all__ = [
    "BASE_NOTE",
    "CA_BUNDLE_AUTO",
    "CA_ENV_VARS",
    "CA_MOUNT_PATH",
    "CA_NOTE",
    "DEFAULT_DOCKER_HOST",
    "DOCKER_HOST_VAR",
    "ENGINE_NOTE",
    "GIT_PREFIX",
    "HOST_CA_FILE",
    "MEMORY_LIMIT",
    "NETWORK",
    "NODE_IMAGE",
    "NPM_CACHE_VOLUME",
    "PIDS_LIMIT",
    "PROXY_VARS",
    "SELF_DOCKER_NOTE",
    "UV_CACHE_VOLUME",
    "UV_IMAGE",
    "CABundleError",
    "ContainerLauncher",
    "ContainerOptions",
    "ContainerPlan",
    "EngineUnavailable",
    "HostMounts",
    "HostTrust",
    "Placement",
    "build_plan",
    "closing_client",
    "container_measure",
    "container_name",
    "default_image",
    "demultiplex",
    "engine_address",
    "engine_label",
    "host_mounts",
    "host_proxy",
    "host_trust",
    "is_self_docker",
    "place",
    "placed_options",
    "plan_for_spec",
    "resolve_ca_bundle",
    "self_docker_isolation",
    "with_docker_host",
]
