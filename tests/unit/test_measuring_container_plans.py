"""Container plans for ``measure --docker`` and ``audit --docker`` (``mcpcost.measuring.containers``)
on values alone: the host paths mounted for a ServerSpec (the file system is passed in), the plan's
argv and env inside the container, and where each launch runs."""

from __future__ import annotations

import shlex

import pytest

from mcpcost.core.spec import ServerSpec
from mcpcost.measuring.containers import (
    BASE_NOTE,
    NODE_IMAGE,
    SELF_DOCKER_NOTE,
    UV_IMAGE,
    ContainerOptions,
    HostMounts,
    HostTrust,
    host_mounts,
    place,
    plan_for_spec,
)

# -- host mounts (pure: the file system is passed in) ------------------------------------------

FILES = {
    "/home/u/proj/server.py",
    "/home/u/proj/lib/util.py",
    "/home/u/notes.txt",
    "/etc/passwd",
    "/srv/data/db.sqlite",
    "/home/u/.ssh/config",
    "/home/u/.ssh/id_ed25519",
    "/home/u/.aws/config",
    "/home/u/.aws/credentials",
    "/home/u/.config/gcloud/props",
    "/home/u/.config/tool.json",
}
DIRS = {
    "/",
    "/home",
    "/home/u",
    "/home/u/proj",
    "/home/u/proj/lib",
    "/home/u/.ssh",
    "/home/u/.aws",
    "/home/u/.config",
    "/home/u/.config/gcloud",
    "/etc",
    "/srv",
    "/srv/data",
    "/home/u/link-to-etc",
}
LINKS = {"/home/u/link-to-etc": "/etc"}


def _real(path: str) -> str:
    for link, target in LINKS.items():
        if path == link or path.startswith(link + "/"):
            return target + path[len(link) :]
    return path


def mounts(argv: list[str], cwd: str | None = None, base: str = "/home/u/proj") -> HostMounts:
    return host_mounts(
        argv,
        cwd,
        base_dir=base,
        roots=["/home/u/proj", "/home/u"],
        home="/home/u",
        exists=lambda p: _real(p) in FILES or _real(p) in DIRS,
        is_dir=lambda p: _real(p) in DIRS,
        realpath=_real,
    )


def test_an_absolute_script_is_mounted_as_its_directory() -> None:
    m = mounts(["python3", "/home/u/proj/server.py", "--flag"])
    assert m == HostMounts(("/home/u/proj",), None)
    assert m.binds() == {"/home/u/proj": "/home/u/proj"}


def test_a_relative_script_is_resolved_where_the_host_would_run_it_and_sets_the_workdir() -> None:
    assert mounts(["node", "server.py"]) == HostMounts(("/home/u/proj",), "/home/u/proj")
    # relative to the server's cwd when it has one
    assert mounts(["python3", "util.py"], cwd="/home/u/proj/lib") == HostMounts(
        ("/home/u/proj/lib",), "/home/u/proj/lib"
    )


def test_nothing_outside_the_roots_the_home_itself_or_through_a_symlink_escape() -> None:
    assert mounts(["python3", "/srv/data/db.sqlite"]) == HostMounts()
    assert mounts(["cat", "/etc/passwd", "/home/u/link-to-etc/passwd"]) == HostMounts()
    # a file directly in home is mounted alone: its directory is the home directory
    assert mounts(["x", "/home/u/notes.txt"]).paths == ("/home/u/notes.txt",)
    assert mounts(["x", "/home/u"]).paths == () and mounts(["x", "/"]).paths == ()


def test_a_file_in_a_credential_directory_is_mounted_alone_never_the_directory() -> None:
    assert mounts(["ssh-mcp", "--config", "/home/u/.ssh/config"]).paths == ("/home/u/.ssh/config",)
    assert mounts(["x", "/home/u/.aws/config"]).paths == ("/home/u/.aws/config",)
    assert mounts(["x", "/home/u/.config/gcloud/props"]).paths == ("/home/u/.config/gcloud/props",)
    # the directory itself, or one that holds a credential directory, is never mounted
    assert mounts(["x", "/home/u/.ssh"]).paths == ()
    assert mounts(["x", "/home/u/.config/tool.json"]).paths == ("/home/u/.config/tool.json",)
    assert mounts(["x", "/home/u/.config"]).paths == ()


def test_flag_values_words_that_are_not_paths_and_nested_mounts() -> None:
    m = mounts(
        [
            "npx",
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "--root=/home/u/proj/lib",
            "/home/u/proj",
            "https://example.com/x",
        ]
    )
    assert m == HostMounts(("/home/u/proj",), None)  # lib folded into its parent
    assert mounts(["server.py"]) == HostMounts()  # a bare program name is looked up on PATH
    assert mounts(["./server.py"]) == HostMounts(("/home/u/proj",), "/home/u/proj")


def test_the_cwd_is_mounted_and_becomes_the_working_directory() -> None:
    assert mounts(["uvx", "tool"], cwd="/home/u/proj") == HostMounts(
        ("/home/u/proj",), "/home/u/proj"
    )
    assert mounts(["uvx", "tool"], cwd="/srv/data") == HostMounts()  # outside the roots


# -- plans and placement ----------------------------------------------------------------------


def test_a_spec_plan_carries_the_exact_argv_and_the_env_values_inside_the_container() -> None:
    spec = ServerSpec.stdio(
        "s",
        ["python3", "/home/u/my server.py", "it's"],
        env={"API_KEY": "v@lue with space", "MODE": "x"},
    )
    plan = plan_for_spec(spec, mounts=HostMounts(("/home/u",), "/home/u"))
    assert shlex.split(plan.shell_command) == list(spec.argv)
    assert plan.environment["API_KEY"] == "v@lue with space" and plan.environment["HOME"] == "/tmp"
    assert plan.binds == {"/home/u": "/home/u"} and plan.working_dir == "/home/u"
    assert plan.image == NODE_IMAGE and plan.name_prefix == "mcp-ctx-s"
    note = plan.isolation.note
    assert note == f"{BASE_NOTE}, env values passed (API_KEY, MODE), 1 host path mounted read-only"
    assert "v@lue" not in repr(plan.isolation)
    uvx = ServerSpec.stdio("t", ["uvx", "mcp-server-time"])
    assert plan_for_spec(uvx).image == UV_IMAGE and plan_for_spec(uvx).working_dir == "/tmp"
    assert plan_for_spec(uvx, image_override="local/img").image == "local/img"
    assert plan_for_spec(uvx).isolation.note == BASE_NOTE
    trusted = plan_for_spec(uvx, trust=HostTrust(ca_bundle="/b.pem"))
    assert trusted.binds == {"/b.pem": "/run/mcpcost/ca-bundle.pem"}
    with pytest.raises(ValueError):
        plan_for_spec(ServerSpec.remote("r", "https://example.com/mcp"))


def test_placement_remote_on_host_docker_run_on_host_else_a_container() -> None:
    options = ContainerOptions(docker_host="unix:///tmp/engine.sock", roots=("/nowhere",))
    remote = place(ServerSpec.remote("r", "https://example.com/mcp"), options)
    assert remote.plan is None and remote.isolation.docker is False
    own = ServerSpec.stdio(
        "d",
        ["docker", "run", "-i", "--rm", "-e", "TOKEN", "img"],
        env={"TOKEN": "secret-token-value"},
    )
    placed = place(own, options)
    assert placed.plan is None
    assert (
        placed.isolation.note == f"{SELF_DOCKER_NOTE}; engine DOCKER_HOST=unix:///tmp/engine.sock"
    )
    env = dict(placed.spec.env)
    assert env == {"TOKEN": "secret-token-value", "DOCKER_HOST": "unix:///tmp/engine.sock"}
    boxed = place(ServerSpec.stdio("b", ["npx", "-y", "pkg"], env={"K": "v"}), options)
    assert boxed.plan is not None and boxed.plan.environment["K"] == "v"
    assert boxed.isolation.docker is True and boxed.isolation.image == NODE_IMAGE
