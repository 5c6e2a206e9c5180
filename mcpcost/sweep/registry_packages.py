"""A registry entry's ``packages[]`` item as a launch, or the reason it is not launched. Pure.

The launch is the one the entry asks for, with the version pinned as the registry states it:
``npx -y [runtime args] identifier@version [package args]`` for npm,
``uvx [runtime args] identifier==version [package args]`` for PyPI, and
``docker run -i --rm [-e NAME ...] [runtime args] image [package args]`` for an OCI image (a
command that is itself ``docker run``, so the sweep runs it as written; see
``CatalogEntry.is_self_docker``). Without a version the identifier is used bare; a version given
is never replaced by ``latest``. ``runtimeHint`` is not read: each registry type has the one
launcher above, the one its clients document (``npx`` for npm, ``uvx`` for PyPI, ``docker`` for
OCI), so the same package is always started the same way.

Arguments (``runtimeArguments``, ``packageArguments``) take their fixed ``value``, else their
``default``; ``{name}`` in a value is filled from the argument's ``variables`` the same way. A
required argument (or variable) with neither is ``needs-config``, with what it needs in the
reason: it is never launched with a guess. An optional one with neither is left out.
``positional`` arguments are one word; ``named`` ones are two, the name then the value. An OCI
entry's runtime arguments reach ``docker run`` on the host's engine, so only ``-e``/``--env``
pass; any other docker option is ``other``. An image whose registry host is an address
(``169.254.169.254/x``, ``127.1/x``, ``localhost/x``) goes through the sweep's address policy
(``runtime.addresses``) as a URL from the world does. An npm or PyPI entry's runtime arguments reach
``npx``/``uvx`` before the package, so only the runner flags that change neither the package,
its version, its index nor the runner's configuration pass (``RUNNER_FLAGS``): anything else
(``--registry``, ``--index-url``, ``--from``, ``--with``, ``--python``, ``--``, a value after a
flag) is ``other``, with the word in the reason. Package arguments come after the package,
where both runners hand every word to the server.

Environment variables take their fixed ``value`` or ``default``; a required one without either
gets the methodology's dummy value (``core.redact.DUMMY_VALUE``), as catalog entries do; an optional
one without either is not set. Only the names ``sweep.server_variables`` allows a server are set
(an allow rule); ``PATH``, ``NODE_OPTIONS``, ``LD_PRELOAD``, proxies, TLS switches, ``XDG_*``
and the container client's ``DOCKER_*`` never are.

Everything here is the registry's text, so it is hostile: identifiers and versions must look
like package names and versions (a leading ``-`` would be read as an option by the launcher), no
value may hold a control character, and counts and lengths are bounded. A package type or a
transport this project does not run is ``other``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from mcpcost.core.status import Status
from mcpcost.errors import McpcostError
from mcpcost.runtime.addresses import PUBLIC_ONLY, AddressPolicy, literal_address
from mcpcost.sweep.catalog import ENV_NAME_RE
from mcpcost.sweep.server_variables import server_may_be_given

MAX_ARGUMENTS = 64
MAX_VALUE_CHARS = 4096
MAX_ENV = 64
SHOWN_CHARS = 80  # registry text quoted in a note


class RegistryType(StrEnum):
    """A ``packages[].registryType`` this project launches (npx, uvx, docker run)."""

    NPM = "npm"
    PYPI = "pypi"
    OCI = "oci"


SUPPORTED_TYPES = tuple(RegistryType)
# The runner options an npm or PyPI entry's runtime arguments may hold: each changes only how
# much the runner prints or that it asks no question, never the package, its version, the index
# it comes from, the interpreter or the runner's configuration; each is one word (a value after
# it would be read as the package to run).
RUNNER_FLAGS = {
    RegistryType.NPM: frozenset({"-y", "--yes", "--quiet", "--silent"}),
    RegistryType.PYPI: frozenset({"-q", "--quiet", "--no-progress"}),
}
DOCKER_ENV_OPTIONS = ("-e", "--env")
_NPM_NAME = re.compile(r"^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$")
_PYPI_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
_OCI_REF = re.compile(
    r"^[a-z0-9][a-z0-9._/-]*(?::[A-Za-z0-9_][A-Za-z0-9._-]{0,127})?(?:@sha256:[a-f0-9]{64})?$"
)
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+_~-]{0,127}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.-]*)\}")


@dataclass(frozen=True, slots=True, kw_only=True)
class PackageLaunch:
    """How to start one package: the argv, the variables set and their values."""

    registry_type: RegistryType
    identifier: str
    version: str | None
    argv: tuple[str, ...]
    env: tuple[str, ...]  # names set, in the entry's order
    env_values: Mapping[str, str] = field(default_factory=dict)  # fixed or default values


@dataclass(frozen=True, slots=True)
class NotLaunched:
    """Why a package is not launched: ``needs-config`` (with what it needs) or ``other``."""

    status: Status
    reason: str


class _Needs(McpcostError):
    """A required value nobody gave; ``what`` says which."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class _Refused(McpcostError):
    """Registry text this project will not put on a command line."""


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    """A string value (numbers and booleans as the registry's JSON spells them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value if isinstance(value, str) else None


def _clean(value: str, what: str) -> str:
    if len(value) > MAX_VALUE_CHARS:
        raise _Refused(f"{what} is longer than {MAX_VALUE_CHARS} characters")
    if _CONTROL.search(value):
        raise _Refused(f"{what} holds a control character")
    return value


def _given(inp: Mapping[str, Any]) -> str | None:
    """An input's fixed value, else its default."""
    for key in ("value", "default"):
        text = _text(inp.get(key))
        if text is not None:
            return text
    return None


def _fill(value: str, variables: Mapping[str, Any], what: str) -> str:
    """``{name}`` replaced from ``variables`` (value, then default); an unknown name is left."""

    def one(match: Any) -> str:
        name = match.group(1)
        if name not in variables:
            return str(match.group(0))
        var = _obj(variables[name])
        given = _given(var)
        if given is None:
            raise _Needs(f"{what}: variable {{{name}}}" + _hint(var))
        return given

    return str(_TEMPLATE.sub(one, value))


def _shown(text: str) -> str:
    """Registry text as a note quotes it: whitespace runs as one space, at most SHOWN_CHARS."""
    return " ".join(text.split())[:SHOWN_CHARS]


def _hint(inp: Mapping[str, Any]) -> str:
    description = _text(inp.get("description"))
    return f" ({_shown(description)})" if description else ""


def _arguments(items: Any, where: str) -> list[str]:
    """The words of ``runtimeArguments`` or ``packageArguments``."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise _Refused(f"{where} is not a list")
    if len(items) > MAX_ARGUMENTS:
        raise _Refused(f"{where} has more than {MAX_ARGUMENTS} arguments")
    words: list[str] = []
    for index, raw in enumerate(items):
        arg = _obj(raw)
        kind = arg.get("type")
        required = arg.get("isRequired") is True
        variables = _obj(arg.get("variables"))
        if kind == "positional":
            label = _shown(_text(arg.get("valueHint")) or f"#{index}")
            what = f"{where} positional argument {label}"
            given = _given(arg)
            if given is None:
                if required:
                    raise _Needs(what + _hint(arg))
                continue
            words.append(_clean(_fill(given, variables, what), what))
        elif kind == "named":
            name = _text(arg.get("name"))
            if not name:
                raise _Refused(f"{where}[{index}] is a named argument without a name")
            what = f"{where} named argument {_shown(name)}"
            _clean(name, what)
            given = _given(arg)
            if given is None:
                if required:
                    raise _Needs(what + _hint(arg))
                continue
            words.extend([name, _clean(_fill(given, variables, what), what)])
        else:
            shown = _shown(kind) if isinstance(kind, str) else type(kind).__name__
            raise _Refused(f"{where}[{index}] has an unknown argument type {shown!r}")
    return words


def _environment(items: Any) -> tuple[list[str], dict[str, str]]:
    """Names to set and the values that are not the dummy."""
    if items is None:
        return [], {}
    if not isinstance(items, list):
        raise _Refused("environmentVariables is not a list")
    if len(items) > MAX_ENV:
        raise _Refused(f"environmentVariables has more than {MAX_ENV} entries")
    names: list[str] = []
    values: dict[str, str] = {}
    for raw in items:
        var = _obj(raw)
        name = _text(var.get("name"))
        if not name or not ENV_NAME_RE.match(name):
            shown = None if name is None else _shown(name)
            raise _Refused(f"environment variable name {shown!r} is not a variable name")
        if not server_may_be_given(name) or name in names:
            continue
        given = _given(var)
        what = f"environment variable {name}"
        if given is not None:
            try:
                given = _clean(_fill(given, _obj(var.get("variables")), what), what)
            except _Needs:
                given = None  # a required variable's dummy stands for the whole value
        if given is None and var.get("isRequired") is not True:
            continue
        names.append(name)
        if given is not None:
            values[name] = given
    return names, values


def _pinned(registry_type: RegistryType, identifier: str, version: str | None) -> str:
    if version is None:
        return identifier
    if registry_type is RegistryType.NPM:
        return f"{identifier}@{version}"
    if registry_type is RegistryType.PYPI:
        return f"{identifier}=={version}"
    tail = identifier.rsplit("/", 1)[-1]
    if ":" in tail or "@" in identifier:  # the image reference names its own tag or digest
        return identifier
    return f"{identifier}:{version}"


def _check_identifier(registry_type: RegistryType, identifier: str, version: str | None) -> None:
    pattern = {
        RegistryType.NPM: _NPM_NAME,
        RegistryType.PYPI: _PYPI_NAME,
        RegistryType.OCI: _OCI_REF,
    }[registry_type]
    if len(identifier) > 256 or not pattern.match(identifier):
        raise _Refused(f"{registry_type} identifier {_shown(identifier)!r} is not a package name")
    if version is not None and not _VERSION.match(version):
        raise _Refused(f"version {_shown(version)!r} is not a version")


def _check_runner_options(registry_type: RegistryType, words: Sequence[str]) -> None:
    """An npm or PyPI entry's runtime arguments go to ``npx``/``uvx`` before the package, where
    ``--registry``, ``--index-url``, ``--from``, ``--with``, ``--package``, ``--python``, a
    ``--`` or a second package would change what runs: only ``RUNNER_FLAGS`` pass."""
    allowed = RUNNER_FLAGS[registry_type]
    for word in words:
        if word not in allowed:
            runner = "npx" if registry_type is RegistryType.NPM else "uvx"
            raise _Refused(
                f"runtime argument {_shown(word)[:40]!r} is not run from a registry entry "
                f"({runner} takes only {', '.join(sorted(allowed))} from one)"
            )


def image_registry_host(reference: str) -> str | None:
    """The registry host an image reference names, or None for Docker Hub: as the engine reads
    a reference, the first of two or more components when it holds a ``.`` or a ``:`` or is
    ``localhost``."""
    first, slash, _ = reference.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        return first
    return None


def _check_image_host(reference: str, policy: AddressPolicy) -> None:
    """An image's registry host that is an address goes through the address policy, as a URL
    from the world does: the engine would pull from this machine, the local network or a
    cloud's metadata service."""
    host = image_registry_host(reference)
    address = None if host is None else literal_address(host)
    if host is None or address is None:
        return
    kind = policy.refusal(address)
    if kind is not None:
        shown = address if host == address else f"{host} ({address})"
        raise _Refused(
            f"image registry {_shown(shown)} is a {kind} address, refused by the address policy"
        )


def _check_docker_options(words: Sequence[str]) -> None:
    """An OCI entry's runtime arguments go to ``docker run`` on the host's engine, so only
    environment options pass (``-e``/``--env``): a mount, a device or a privilege from a
    registry entry would reach the host."""
    index = 0
    while index < len(words):
        word = words[index]
        if word in DOCKER_ENV_OPTIONS and index + 1 < len(words):
            index += 2
            continue
        if word.startswith("--env="):
            index += 1
            continue
        raise _Refused(f"docker option {word[:40]!r} is not run from a registry entry")


def plan_package(package: Any, policy: AddressPolicy = PUBLIC_ONLY) -> PackageLaunch | NotLaunched:
    """The launch for one ``packages[]`` item, or why there is none; ``policy`` is the address
    policy an image's registry host must pass."""
    pkg = _obj(package)
    written = _text(pkg.get("registryType")) or ""
    identifier = _text(pkg.get("identifier")) or ""
    if written not in SUPPORTED_TYPES:
        return NotLaunched(
            Status.OTHER, f"package type {_shown(written)!r} is not one this project launches"
        )
    registry_type = RegistryType(written)
    transport = _obj(pkg.get("transport"))
    kind = _text(transport.get("type")) or "stdio"
    if kind != "stdio":
        return NotLaunched(
            Status.OTHER,
            f"{registry_type} package {_shown(identifier)} serves over {_shown(kind)}: launching a "
            "package to "
            "reach it over the network is not supported",
        )
    version = _text(pkg.get("version")) or None
    try:
        _check_identifier(registry_type, identifier, version)
        runtime = _arguments(pkg.get("runtimeArguments"), "runtimeArguments")
        arguments = _arguments(pkg.get("packageArguments"), "packageArguments")
        env, env_values = _environment(pkg.get("environmentVariables"))
        if registry_type is RegistryType.OCI:
            _check_image_host(identifier, policy)
            _check_docker_options(runtime)
        else:
            _check_runner_options(registry_type, runtime)
    except _Needs as need:
        return NotLaunched(Status.NEEDS_CONFIG, f"needs {need.what}; no default to launch with")
    except _Refused as refused:
        return NotLaunched(Status.OTHER, f"not launched: {refused}")
    target = _pinned(registry_type, identifier, version)
    argv: list[str]
    if registry_type is RegistryType.NPM:
        argv = ["npx", "-y", *runtime, target, *arguments]
    elif registry_type is RegistryType.PYPI:
        argv = ["uvx", *runtime, target, *arguments]
    else:
        passed = [w for name in env for w in ("-e", name)]
        argv = ["docker", "run", "-i", "--rm", *passed, *runtime, target, *arguments]
    return PackageLaunch(
        registry_type=registry_type,
        identifier=identifier,
        version=version,
        argv=tuple(argv),
        env=tuple(env),
        env_values=env_values,
    )


def choose_package(
    packages: Sequence[Any], policy: AddressPolicy = PUBLIC_ONLY
) -> PackageLaunch | NotLaunched | None:
    """The entry's first launchable package; else its first needs-config, else its first other
    (None when it lists no packages)."""
    plans = [plan_package(p, policy) for p in packages]
    launchable = [p for p in plans if isinstance(p, PackageLaunch)]
    if launchable:
        return launchable[0]
    refused = [p for p in plans if isinstance(p, NotLaunched)]
    needs = [p for p in refused if p.status is Status.NEEDS_CONFIG]
    chosen = needs or refused
    return chosen[0] if chosen else None
