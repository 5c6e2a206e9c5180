"""What ``measure``, ``audit`` and ``sweep`` share about containers, written once: the flags and
their check, the host trust given to containers, and opening the engine with its error message.

The containers package is imported only when a command uses it, so commands that never run a
container do not pay for it.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from mcpcost.errors import UsageError
from mcpcost.measuring.containers import (
    DEFAULT_DOCKER_HOST,
    CABundleError,
    ContainerLauncher,
    EngineUnavailable,
    closing_client,
    engine_label,
    host_trust,
)

if TYPE_CHECKING:
    from mcpcost.measuring.containers import ContainerLauncher, HostTrust

_FLAG_OF = {"image": "--image", "docker_host": "--docker-host", "ca_bundle": "--ca-bundle"}

IMAGE_HELP = "with --docker: the image (default: uv image for uvx, Node otherwise)"
DOCKER_HOST_HELP = (
    "container engine API (default: $DOCKER_HOST), also given to commands that are themselves "
    "`docker run`"
)
CA_BUNDLE_HELP = (
    "with --docker: a full CA bundle (PEM) mounted read-only into each container and named by "
    "NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, REQUESTS_CA_BUNDLE, PIP_CERT (for a TLS-intercepting "
    "proxy); 'auto' = $SSL_CERT_FILE, $REQUESTS_CA_BUNDLE or /etc/ssl/certs/ca-certificates.crt, "
    "the first that exists"
)


def add_container_arguments(parser: argparse.ArgumentParser, *, docker_help: str) -> None:
    """``--docker``, ``--image``/``--docker-image``, ``--docker-host`` and ``--ca-bundle``."""
    parser.add_argument("--docker", action="store_true", help=docker_help)
    parser.add_argument("--image", "--docker-image", dest="image", metavar="IMAGE", help=IMAGE_HELP)
    parser.add_argument("--docker-host", metavar="URL", help=DOCKER_HOST_HELP)
    parser.add_argument("--ca-bundle", metavar="PATH|auto", help=CA_BUNDLE_HELP)


def require_docker_for(args: argparse.Namespace, prog: str, names: Iterable[str]) -> None:
    """A usage error when one of the named container flags is given without ``--docker``."""
    if args.docker:
        return
    for name in names:
        if getattr(args, name) is not None:
            raise UsageError(f"{prog}: {_FLAG_OF[name]} applies only with --docker")


def container_trust(prog: str, ca_bundle: str | None, environ: Mapping[str, str]) -> HostTrust:
    """``--ca-bundle`` resolved and the host's proxy; a usage error when the bundle is no file."""

    try:
        return host_trust(ca_bundle, environ)
    except CABundleError as exc:
        raise UsageError(f"{prog}: {exc}") from None


@dataclass(frozen=True, slots=True)
class ContainerEngine:
    """An engine that answered: a launcher over its client, and its address fit to print."""

    launcher: ContainerLauncher
    label: str


def open_engine(
    prog: str, docker_host: str | None, err: TextIO, stack: contextlib.ExitStack
) -> ContainerEngine | None:
    """The engine at ``docker_host`` (else the default socket), its client closed with ``stack``.

    When no engine answers: one line on ``err`` naming the address and how to give another, and
    None (the command then exits with the usage code).
    """

    address = docker_host or DEFAULT_DOCKER_HOST
    label = engine_label(address)
    try:
        client = stack.enter_context(closing_client(address))
    except EngineUnavailable as exc:
        err.write(
            f"{prog}: cannot reach a container engine at {label} ({exc}); "
            "set --docker-host or DOCKER_HOST\n"
        )
        return None
    return ContainerEngine(ContainerLauncher(client), label)
