"""Container isolation for catalog entries; the launcher itself is ``mcpcost.measuring.containers``.

A catalog command runs as ``sh -lc "<command>"`` (the reference's wrapping) with the entry's dummy
environment; the image is the entry's ``dockerImage``, else the sweep's ``--image``, else the
launcher's default (uv for ``uvx``, Node otherwise). Everything about containers that audit and
measure share (plans, host trust, the SDK launcher, engine addresses) lives in the measuring layer,
``mcpcost.measuring.containers``; the sweep imports it from there.
"""

from __future__ import annotations

from mcpcost.measuring.containers import (
    ContainerPlan,
    HostTrust,
    build_plan,
    default_image,
)
from mcpcost.sweep.catalog import CatalogEntry


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
