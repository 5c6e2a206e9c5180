"""The container flags ``measure``, ``audit`` and ``sweep`` share, declared and checked once."""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from mcpcost.errors import UsageError

_FLAG_OF = {"image": "--image", "docker_host": "--docker-host", "ca_bundle": "--ca-bundle"}


def add_container_arguments(parser: argparse.ArgumentParser, *, docker_help: str) -> None:
    """``--docker``, ``--image``/``--docker-image``, ``--docker-host`` and ``--ca-bundle``."""
    parser.add_argument("--docker", action="store_true", help=docker_help)
    parser.add_argument("--image", "--docker-image", dest="image", metavar="IMAGE",
                        help="with --docker: the image (default: uv image for uvx, Node "
                        "otherwise)")  # fmt: skip
    parser.add_argument("--docker-host", metavar="URL",
                        help="container engine API (default: $DOCKER_HOST), also given to "
                        "commands that are themselves `docker run`")  # fmt: skip
    parser.add_argument("--ca-bundle", metavar="PATH|auto",
                        help="with --docker: a full CA bundle (PEM) mounted read-only into each "
                        "container and named by NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, "
                        "REQUESTS_CA_BUNDLE, PIP_CERT (for a TLS-intercepting proxy); 'auto' = "
                        "$SSL_CERT_FILE, $REQUESTS_CA_BUNDLE or "
                        "/etc/ssl/certs/ca-certificates.crt, the first that exists")  # fmt: skip


def require_docker_for(args: argparse.Namespace, prog: str, names: Iterable[str]) -> None:
    """A usage error when one of the named container flags is given without ``--docker``."""
    if args.docker:
        return
    for name in names:
        if getattr(args, name) is not None:
            raise UsageError(f"{prog}: {_FLAG_OF[name]} applies only with --docker")
