"""A ``ServerSpec`` as JSON, for a measuring process of our own that reads it from a pipe.

Values are carried whole, secrets included: the text goes over a pipe to a child process that
measures the server, never to a file, a log or a report. ``public_env`` is carried too, so the
child masks exactly what the parent would (a published placeholder is not a secret)."""

from __future__ import annotations

from typing import Any

from mcpcost.core.jsonvalue import JSONValue
from mcpcost.core.spec import ServerSpec, TransportName
from mcpcost.errors import InputError


def spec_to_json(spec: ServerSpec) -> dict[str, JSONValue]:
    """The spec as a measuring child reads it."""
    return {
        "name": spec.name,
        "argv": list(spec.argv),
        "url": spec.url,
        "transport": str(spec.transport),
        "env": [list(kv) for kv in spec.env],
        "headers": [list(kv) for kv in spec.headers],
        "cwd": spec.cwd,
        "launchCommand": spec.launch_command,
        "secrets": list(spec.secrets),
        "publicEnv": list(spec.public_env),
    }


def spec_from_json(data: Any) -> ServerSpec:
    """The spec ``spec_to_json`` wrote; InputError for anything else."""
    try:
        return ServerSpec(
            name=str(data["name"]),
            argv=tuple(str(a) for a in data["argv"]),
            url=None if data["url"] is None else str(data["url"]),
            transport=TransportName(data["transport"]),
            env=tuple((str(k), str(v)) for k, v in data["env"]),
            headers=tuple((str(k), str(v)) for k, v in data["headers"]),
            cwd=None if data["cwd"] is None else str(data["cwd"]),
            launch_command=None if data["launchCommand"] is None else str(data["launchCommand"]),
            secrets=tuple(str(s) for s in data["secrets"]),
            public_env=tuple(str(n) for n in data.get("publicEnv") or ()),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"not a server spec: {exc}") from None
