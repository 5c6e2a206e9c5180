"""Container isolation for catalog entries; the launcher itself is ``mcpcost.measuring.containers``.

A catalog command runs as ``sh -lc "<command>"`` (the reference's wrapping) with the entry's dummy
environment; the image is the entry's ``dockerImage``, else the sweep's ``--image``, else the
launcher's default (uv for ``uvx``, Node otherwise). Everything about containers that audit and
measure share (plans, host trust, the SDK launcher, engine addresses) lives in the measuring layer
and is re-exported here for the sweep's callers.
"""

from __future__ import annotations

from mcpcost.measuring.containers import (
    BASE_NOTE,
    CA_BUNDLE_AUTO,
    CA_ENV_VARS,
    CA_MOUNT_PATH,
    CA_NOTE,
    DOCKER_HOST_VAR,
    ENGINE_NOTE,
    GIT_PREFIX,
    HOST_CA_FILE,
    MEMORY_LIMIT,
    NETWORK,
    NODE_IMAGE,
    NPM_CACHE_VOLUME,
    PIDS_LIMIT,
    PROXY_VARS,
    SELF_DOCKER_NOTE,
    UV_CACHE_VOLUME,
    UV_IMAGE,
    CABundleError,
    ContainerLauncher,
    ContainerPlan,
    EngineUnavailable,
    HostTrust,
    build_plan,
    closing_client,
    container_name,
    default_image,
    demultiplex,
    engine_label,
    host_proxy,
    resolve_ca_bundle,
    self_docker_isolation,
    with_docker_host,
)
from mcpcost.sweep.catalog import CatalogEntry

__all__ = [
    "BASE_NOTE",
    "CA_BUNDLE_AUTO",
    "CA_ENV_VARS",
    "CA_MOUNT_PATH",
    "CA_NOTE",
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
    "ContainerPlan",
    "EngineUnavailable",
    "HostTrust",
    "closing_client",
    "container_name",
    "demultiplex",
    "engine_label",
    "host_proxy",
    "image_for",
    "plan_container",
    "resolve_ca_bundle",
    "self_docker_isolation",
    "with_docker_host",
]


def image_for(entry: CatalogEntry, image_override: str | None = None) -> str:
    """The entry's image, the sweep's override, or the launcher's default image."""
    if entry.docker_image:
        return entry.docker_image
    return default_image(entry.argv, image_override)


def plan_container(
    entry: CatalogEntry,
    *,
    image_override: str | None = None,
    shared_cache: bool = True,
    trust: HostTrust | None = None,
) -> ContainerPlan:
    """The container plan for an entry (not for ``docker run`` commands: see ``is_self_docker``)."""
    return build_plan(
        image_for(entry, image_override),
        entry.command,
        entry.dummy_env(),
        name_prefix=f"mcp-ctx-{entry.name}",
        shared_cache=shared_cache,
        trust=trust,
        needs_git=entry.needs_git,
    )
