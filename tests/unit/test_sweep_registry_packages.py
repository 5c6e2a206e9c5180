"""A registry entry's packages as launches: pinned versions, arguments, variables, refusals."""

from __future__ import annotations

from typing import Any

import pytest

from mcpcost.core.status import Status
from mcpcost.sweep.registry_packages import (
    NotLaunched,
    PackageLaunch,
    choose_package,
    plan_package,
)
from mcpcost.sweep.registry_source import catalog_from, listing_from, registry_entry_of

OFFICIAL = "io.modelcontextprotocol.registry/official"


def npm(**more: Any) -> dict[str, Any]:
    return {
        "registryType": "npm",
        "identifier": "@modelcontextprotocol/server-filesystem",
        "version": "2026.8.31",
        "transport": {"type": "stdio"},
        **more,
    }


def launch(pkg: dict[str, Any]) -> PackageLaunch:
    plan = plan_package(pkg)
    assert isinstance(plan, PackageLaunch), plan
    return plan


def refused(pkg: dict[str, Any]) -> NotLaunched:
    plan = plan_package(pkg)
    assert isinstance(plan, NotLaunched), plan
    return plan


def test_npm_is_npx_with_the_version_the_registry_states() -> None:
    plan = launch(npm())
    assert plan.argv == ("npx", "-y", "@modelcontextprotocol/server-filesystem@2026.8.31")


def test_pypi_is_uvx_pinned_with_double_equals() -> None:
    plan = launch({"registryType": "pypi", "identifier": "mcp-server-time", "version": "2026.1.7"})
    assert plan.argv == ("uvx", "mcp-server-time==2026.1.7")


def test_a_missing_version_is_left_unpinned_never_replaced() -> None:
    assert launch(npm(version=None)).argv[-1] == "@modelcontextprotocol/server-filesystem"
    assert launch(npm(version="latest")).argv[-1].endswith("@latest")


def test_oci_runs_the_image_with_environment_names_only() -> None:
    plan = launch(
        {
            "registryType": "oci",
            "identifier": "ghcr.io/example/server",
            "version": "1.4.0",
            "environmentVariables": [{"name": "API_KEY", "isRequired": True, "isSecret": True}],
        }
    )
    assert plan.argv == (
        "docker",
        "run",
        "-i",
        "--rm",
        "-e",
        "API_KEY",
        "ghcr.io/example/server:1.4.0",
    )
    assert plan.env == ("API_KEY",) and plan.env_values == {}
    tagged = launch({"registryType": "oci", "identifier": "docker.io/a/b:2", "version": "2"})
    assert tagged.argv[-1] == "docker.io/a/b:2"


def test_arguments_take_value_then_default_and_optional_empty_ones_are_left_out() -> None:
    plan = launch(
        npm(
            runtimeArguments=[{"type": "positional", "value": "--quiet"}],
            packageArguments=[
                {"type": "positional", "valueHint": "root", "default": "/tmp"},
                {
                    "type": "named",
                    "name": "--mode",
                    "value": "{mode}",
                    "variables": {"mode": {"default": "read-only"}},
                },
                {"type": "named", "name": "--log", "description": "optional log file"},
                {"type": "positional", "value": 7},
            ],
        )
    )
    assert plan.argv == (
        "npx",
        "-y",
        "--quiet",
        "@modelcontextprotocol/server-filesystem@2026.8.31",
        "/tmp",
        "--mode",
        "read-only",
        "7",
    )


@pytest.mark.parametrize(
    ("argument", "needs"),
    [
        (
            {"type": "positional", "valueHint": "target_dir", "isRequired": True},
            "packageArguments positional argument target_dir",
        ),
        (
            {"type": "named", "name": "--token", "isRequired": True, "isSecret": True},
            "packageArguments named argument --token",
        ),
        (
            {
                "type": "named",
                "name": "--db",
                "value": "{url}",
                "variables": {"url": {"isRequired": True, "description": "database URL"}},
            },
            "packageArguments named argument --db: variable {url} (database URL)",
        ),
    ],
)
def test_a_required_argument_without_a_default_is_needs_config(
    argument: dict[str, Any], needs: str
) -> None:
    plan = refused(npm(packageArguments=[argument]))
    assert plan.status is Status.NEEDS_CONFIG
    assert plan.reason == f"needs {needs}; no default to launch with"


def test_environment_required_gets_the_dummy_defaults_kept_optional_unset() -> None:
    plan = launch(
        npm(
            environmentVariables=[
                {"name": "API_KEY", "isRequired": True, "isSecret": True},
                {"name": "REGION", "isRequired": True, "default": "eu"},
                {"name": "VERBOSE", "description": "optional"},
                {"name": "MODE", "default": "fast"},
                {"name": "PATH", "isRequired": True, "default": "/evil"},
                {"name": "LD_PRELOAD", "default": "/tmp/x.so"},
            ]
        )
    )
    assert plan.env == ("API_KEY", "REGION", "MODE")
    assert plan.env_values == {"REGION": "eu", "MODE": "fast"}


@pytest.mark.parametrize(
    ("pkg", "why"),
    [
        (npm(identifier="--registry=http://evil"), "is not a package name"),
        (npm(version="1.0 --foo"), "is not a version"),
        (npm(packageArguments=[{"type": "positional", "value": "a\nb"}]), "control character"),
        (npm(packageArguments=[{"type": "flag", "value": "x"}]), "unknown argument type"),
        (
            {
                "registryType": "oci",
                "identifier": "ghcr.io/a/b",
                "version": "1",
                "runtimeArguments": [{"type": "named", "name": "-v", "value": "/:/host"}],
            },
            "docker option '-v' is not run from a registry entry",
        ),
        (npm(environmentVariables=[{"name": "A-B", "isRequired": True}]), "not a variable name"),
    ],
)
def test_hostile_or_malformed_packages_are_other_never_launched(
    pkg: dict[str, Any], why: str
) -> None:
    plan = refused(pkg)
    assert plan.status is Status.OTHER and why in plan.reason


def test_unsupported_types_and_network_transports_are_other() -> None:
    assert refused({"registryType": "nuget", "identifier": "X"}).status is Status.OTHER
    plan = refused(npm(transport={"type": "streamable-http", "url": "http://localhost:3000"}))
    assert plan.status is Status.OTHER and "serves over streamable-http" in plan.reason


def test_choose_prefers_a_launchable_package_then_needs_config() -> None:
    nuget = {"registryType": "nuget", "identifier": "X"}
    needs = npm(packageArguments=[{"type": "positional", "isRequired": True}])
    pypi = {"registryType": "pypi", "identifier": "mcp-server-time", "version": "1"}
    assert isinstance(choose_package([nuget, needs, pypi]), PackageLaunch)
    chosen = choose_package([nuget, needs])
    assert isinstance(chosen, NotLaunched) and chosen.status is Status.NEEDS_CONFIG
    assert choose_package([]) is None


def item(name: str, status: str = "active", **server: Any) -> dict[str, Any]:
    return {
        "server": {"name": name, "version": "1.0.0", **server},
        "_meta": {OFFICIAL: {"status": status}},
    }


def test_listing_records_every_entry_with_a_status_or_a_launch() -> None:
    items = [
        item("io.github.a/pkg", packages=[npm()]),
        item("io.github.b/old", status="deprecated", packages=[npm()]),
        item("io.github.c/gone", status="deleted"),
        item(
            "io.github.d/needs",
            packages=[
                npm(
                    packageArguments=[
                        {"type": "positional", "valueHint": "dir", "isRequired": True}
                    ]
                )
            ],
        ),
        item(
            "io.github.e/both",
            packages=[npm()],
            remotes=[{"type": "streamable-http", "url": "https://e.example/mcp"}],
        ),
        item(
            "io.github.f/tenant", remotes=[{"type": "sse", "url": "https://{tenant}.f.example/sse"}]
        ),
        item(
            "io.github.g/region",
            remotes=[
                {
                    "type": "streamable-http",
                    "url": "https://{region}.g.example/mcp",
                    "variables": {"region": {"default": "eu"}},
                }
            ],
        ),
        item("io.github.h/empty"),
        item("io.github.i/ws", remotes=[{"type": "websocket", "url": "https://i.example/ws"}]),
    ]
    listing = listing_from(items, 1)
    assert [(r.slug, r.url) for r in listing.remotes] == [
        ("io.github.e-both", "https://e.example/mcp"),
    ]
    assert [(p.slug, p.command) for p in listing.packages] == [
        ("io.github.a-pkg", "npx -y @modelcontextprotocol/server-filesystem@2026.8.31"),
        ("io.github.e-both-npm", "npx -y @modelcontextprotocol/server-filesystem@2026.8.31"),
    ]
    assert {r.slug: r.status for r in listing.recorded} == {
        "io.github.b-old": Status.INACTIVE,
        "io.github.d-needs": Status.NEEDS_CONFIG,
        "io.github.f-tenant": Status.NEEDS_CONFIG,
        "io.github.g-region": Status.NEEDS_CONFIG,
        "io.github.h-empty": Status.OTHER,
        "io.github.i-ws": Status.OTHER,
    }
    assert listing.deleted == 1  # io.github.c/gone: counted, not swept
    reasons = {r.slug: r.reason for r in listing.recorded}
    assert reasons["io.github.b-old"] == "registry status deprecated; not launched"
    assert reasons["io.github.f-tenant"] == (
        "URL holds {tenant}: the user's own value, which a sweep does not have"
    )
    catalog = catalog_from(listing, "http://registry")
    by_name = catalog.by_name()
    assert len(by_name) == 1 + 2 + 6
    pkg = by_name["io.github.a-pkg"]
    assert pkg.argv[0] == "npx" and pkg.registry_name == "io.github.a/pkg"
    assert pkg.version == "1.0.0" and pkg.category == "registry" and pkg.url is None


def test_registry_text_quoted_in_a_note_is_one_line_and_bounded() -> None:
    hint = "dir\n" + "x" * 10_000
    plan = refused(
        npm(packageArguments=[{"type": "positional", "valueHint": hint, "isRequired": True}])
    )
    assert plan.status is Status.NEEDS_CONFIG
    assert "\n" not in plan.reason and len(plan.reason) < 200
    odd = refused(npm(packageArguments=[{"type": {"deep": ["x"] * 1000}}]))
    assert odd.reason == "not launched: packageArguments[0] has an unknown argument type 'dict'"
    long_type = refused({"registryType": "n" * 5000, "identifier": "x"})
    assert len(long_type.reason) < 200


def test_a_remote_url_with_variables_is_needs_config_even_with_defaults() -> None:
    """A URL variable stands for the user's tenant or host: its default is an example, and a
    URL that starts with one (``{baseUrl}/mcp``) is needs-config, not 'no http(s) URL'."""
    items = [
        item(
            "io.github.t/tenant",
            remotes=[
                {
                    "type": "streamable-http",
                    "url": "https://{tenant_id}.api.example/mcp",
                    "variables": {"tenant_id": {"default": "acme", "isRequired": True}},
                }
            ],
        ),
        item(
            "io.github.t/base",
            remotes=[{"type": "sse", "url": "{baseUrl}/sse", "variables": {"baseUrl": {}}}],
        ),
    ]
    listing = listing_from(items, 1)
    assert listing.remotes == ()
    assert [(r.slug, r.status, r.launch) for r in listing.recorded] == [
        ("io.github.t-tenant", Status.NEEDS_CONFIG, "https://{tenant_id}.api.example/mcp"),
        ("io.github.t-base", Status.NEEDS_CONFIG, "{baseUrl}/sse"),
    ]
    assert "{baseUrl}" in listing.recorded[1].reason


def test_two_entries_naming_one_endpoint_each_keep_their_row() -> None:
    url = "https://shared.example/mcp"
    walled = {"type": "streamable-http", "url": url}
    walled["headers"] = [{"name": "X-Api-Key", "isRequired": True}]  # type: ignore[assignment]
    items = [
        item("io.github.one/open", remotes=[{"type": "streamable-http", "url": url}]),
        item("io.github.two/keyed", remotes=[walled]),
        item("io.github.three/twice", remotes=[{"type": "sse", "url": url}] * 2),
    ]
    listing = listing_from(items, 1)
    assert [(r.slug, r.url, r.required_headers) for r in listing.remotes] == [
        ("io.github.one-open", url, ()),
        ("io.github.two-keyed", url, ("X-Api-Key",)),
        ("io.github.three-twice", url, ()),  # named twice by one entry: measured once
    ]
    names = {e.name for e in catalog_from(listing, "http://registry").entries}
    assert names == {"io.github.one-open", "io.github.two-keyed", "io.github.three-twice"}


def test_the_registrys_status_message_and_post_install_steps_are_recorded() -> None:
    deprecated = item("io.github.s/old", status="deprecated", packages=[npm()])
    deprecated["_meta"][OFFICIAL].update(
        statusMessage="Moved to\n io.github.s/new", statusChangedAt="2026-10-01T00:00:00Z"
    )
    steps = [
        {"description": "Run the login once", "command": "fs-login  --init", "optional": False},
        {"description": "x" * 5000, "documentation": "https://s.example/docs"},
        {"command": "no description: dropped"},
    ]
    active = item("io.github.s/new", packages=[npm(postInstallInstructions=steps)])
    listing = listing_from([deprecated, active], 1)
    (old,) = listing.recorded
    assert old.details == {
        "status": "deprecated",
        "statusMessage": "Moved to io.github.s/new",
        "statusChangedAt": "2026-10-01T00:00:00Z",
    }
    (new,) = listing.packages
    kept = new.details["postInstallInstructions"]
    assert kept[0] == {
        "description": "Run the login once",
        "command": "fs-login --init",
        "optional": False,
    }
    assert len(kept) == 2 and len(kept[1]["description"]) == 500
    entries = catalog_from(listing, "http://registry").by_name()
    assert registry_entry_of(entries["io.github.s-old"]) == {
        "name": "io.github.s/old",
        "version": "1.0.0",
        **old.details,
    }
    assert registry_entry_of(entries["io.github.s-new"])["postInstallInstructions"] == kept  # type: ignore[index]


def test_slug_suffixes_are_words_of_enums_and_stable() -> None:
    from mcpcost.core.spec import TransportName
    from mcpcost.sweep.registry_packages import RegistryType
    from mcpcost.sweep.registry_source import RecordKind, Seen

    slugs = Seen().slugs
    taken = [
        slugs.take("io.x/y", RecordKind.REMOTE),
        slugs.take("io.x/y", TransportName.SSE),
        slugs.take("io.x/y", RegistryType.PYPI),
        slugs.take("io.x/y", RecordKind.INACTIVE),
        slugs.take("io.x/y", RecordKind.INACTIVE),
    ]
    assert taken == ["io.x-y", "io.x-y-sse", "io.x-y-pypi", "io.x-y-inactive", "io.x-y-2"]


def pypi(**more: Any) -> dict[str, Any]:
    return {"registryType": "pypi", "identifier": "mcp-server-time", "version": "2026.1.7", **more}


def positional(*words: str) -> list[dict[str, Any]]:
    return [{"type": "positional", "value": w} for w in words]


@pytest.mark.parametrize(
    ("pkg", "word"),
    [
        (npm(runtimeArguments=positional("--registry", "http://127.0.0.1:9/")), "--registry"),
        (npm(runtimeArguments=positional("--registry=http://127.0.0.1:9/")), "--registry="),
        (npm(runtimeArguments=positional("-p", "evil-pkg")), "-p"),
        (npm(runtimeArguments=positional("--package=evil-pkg")), "--package=evil-pkg"),
        (npm(runtimeArguments=positional("--prefix", "/tmp/x")), "--prefix"),
        (npm(runtimeArguments=positional("--userconfig", "/tmp/npmrc")), "--userconfig"),
        (npm(runtimeArguments=positional("--", "evil-pkg")), "--"),
        (npm(runtimeArguments=positional("evil-pkg")), "evil-pkg"),
        (npm(runtimeArguments=[{"type": "named", "name": "--yes", "value": "evil"}]), "evil"),
        (npm(runtimeArguments=positional("--yes=false")), "--yes=false"),
        (pypi(runtimeArguments=positional("--index-url", "http://127.0.0.1:9/")), "--index-url"),
        (pypi(runtimeArguments=positional("--extra-index-url=http://x/")), "--extra-index-url"),
        (pypi(runtimeArguments=positional("--from", "evil")), "--from"),
        (pypi(runtimeArguments=positional("--with", "evil")), "--with"),
        (pypi(runtimeArguments=positional("--python", "3.9")), "--python"),
        (pypi(runtimeArguments=positional("-p", "3.9")), "-p"),
        (pypi(runtimeArguments=positional("--default-index", "http://x/")), "--default-index"),
        (pypi(runtimeArguments=positional("--config-file", "/tmp/uv.toml")), "--config-file"),
        (pypi(runtimeArguments=positional("evil")), "evil"),
    ],
)
def test_runner_arguments_that_change_the_source_or_the_runner_are_refused(
    pkg: dict[str, Any], word: str
) -> None:
    plan = refused(pkg)
    assert plan.status is Status.OTHER
    assert "runtime argument" in plan.reason and repr(word)[:-1] in plan.reason


def test_runner_flags_that_change_neither_pass_and_package_arguments_follow_the_package() -> None:
    plan = launch(npm(runtimeArguments=positional("--yes", "--quiet")))
    assert plan.argv[:4] == ("npx", "-y", "--yes", "--quiet")
    plan = launch(
        pypi(
            runtimeArguments=positional("-q"),
            packageArguments=positional("--index-url", "http://example.test/"),
        )
    )
    # after the package both runners hand every word to the server, not to themselves
    assert plan.argv == (
        "uvx",
        "-q",
        "mcp-server-time==2026.1.7",
        "--index-url",
        "http://example.test/",
    )


@pytest.mark.parametrize(
    "name",
    [
        "HTTPS_PROXY",
        "ALL_PROXY",
        "https_proxy",
        "NODE_TLS_REJECT_UNAUTHORIZED",
        "NODE_EXTRA_CA_CERTS",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "PYTHONHTTPSVERIFY",
        "XDG_CONFIG_HOME",
        "DOCKER_CONTEXT",
        "DOCKER_CONFIG",
        "DOCKER_CERT_PATH",
        "DOCKER_TLS_VERIFY",
        "CONTAINER_HOST",
        "CONTAINERS_CONF",
        "npm_config_registry",
        "NPM_CONFIG__AUTH",
        "UV_INDEX_URL",
        "PIP_INDEX_URL",
        "PIPX_HOME",
        "GIT_SSL_NO_VERIFY",
        "LD_PRELOAD",
        "TMPDIR",
    ],
)
def test_variables_outside_the_allow_rule_are_never_set_for_any_launcher(name: str) -> None:
    env = [{"name": name, "isRequired": True, "default": "x"}, {"name": "API_KEY", "default": "k"}]
    oci = {"registryType": "oci", "identifier": "ghcr.io/a/b", "version": "1"}
    for pkg in (
        npm(environmentVariables=env),
        pypi(environmentVariables=env),
        oci | {"environmentVariables": env},
    ):
        plan = launch(pkg)
        assert plan.env == ("API_KEY",) and name not in plan.env_values
        assert name not in plan.argv


def oci(identifier: str) -> dict[str, Any]:
    return {"registryType": "oci", "identifier": identifier, "version": "1"}


@pytest.mark.parametrize(
    ("identifier", "kind"),
    [
        ("169.254.169.254/evil/image", "cloud metadata"),
        ("169.254.1.1/evil/image", "link-local"),
        ("127.0.0.1/evil/image:2", "loopback"),
        ("127.1/evil/image", "loopback"),
        ("0x7f.1/evil/image", "loopback"),
        ("localhost/evil/image", "loopback"),
        ("registry.localhost/evil/image", "loopback"),
        ("10.0.0.5/evil/image", "private"),
        ("192.168.1.1/evil/image", "private"),
    ],
)
def test_an_image_from_an_internal_address_is_refused_by_the_address_policy(
    identifier: str, kind: str
) -> None:
    plan = refused(oci(identifier))
    assert plan.status is Status.OTHER
    assert f"is a {kind} address, refused by the address policy" in plan.reason


def test_private_image_hosts_pass_only_when_the_policy_allows_them_and_metadata_never() -> None:
    from mcpcost.runtime.addresses import AddressPolicy

    private = AddressPolicy(allow_private=True)
    assert isinstance(plan_package(oci("127.0.0.1/a/b"), private), PackageLaunch)
    assert isinstance(plan_package(oci("10.0.0.5/a/b"), private), PackageLaunch)
    assert isinstance(plan_package(oci("169.254.169.254/a/b"), private), NotLaunched)
    # names are left to the engine's resolver; Docker Hub's short forms name no host
    for public in ("ghcr.io/a/b", "a/b", "b", "8.8.8.8/a/b"):
        assert isinstance(plan_package(oci(public)), PackageLaunch), public
