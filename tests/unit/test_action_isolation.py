"""The environments the Action gives a pull request's configs and its measuring children."""

from __future__ import annotations

from mcpcost.action.untrusted_launches import (
    child_environ,
    config_environ,
    is_job_variable,
)
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring.child import spec_from_json, spec_to_json

STEP = {
    "PATH": "/usr/bin",
    "HOME": "/github/home",
    "USER": "root",
    "INPUT_GITHUB-TOKEN": "ghs_x",
    "ACTIONS_RUNTIME_TOKEN": "rt",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "id",
    "GITHUB_ENV": "/github/file_commands/set_env",
    "github_token": "lower",
    "RUNNER_TEMP": "/home/runner/work/_temp",
    "MCPCOST_OAUTH_CLIENT_SECRET": "s",
    "SEARCH_API_KEY": "k",
    "NPM_CONFIG_REGISTRY": "https://registry.example",
}


def test_job_variables_are_named_by_prefix_in_any_case() -> None:
    assert is_job_variable("INPUT_GITHUB-TOKEN") and is_job_variable("github_token")
    assert is_job_variable("MCPCOST_OAUTH_CLIENT_SECRET")
    assert not is_job_variable("SEARCH_API_KEY") and not is_job_variable("MY_GITHUB_TOKEN")


def test_a_config_sees_the_steps_variables_but_never_the_jobs() -> None:
    seen = config_environ(STEP)
    assert seen == {
        "PATH": "/usr/bin",
        "HOME": "/github/home",
        "USER": "root",
        "SEARCH_API_KEY": "k",
        "NPM_CONFIG_REGISTRY": "https://registry.example",
    }


def test_the_measuring_child_gets_the_safe_base_with_a_private_home() -> None:
    env = child_environ(STEP, home="/tmp/h", python_path="/app")
    assert env == {
        "PATH": "/usr/bin",
        "HOME": "/tmp/h",
        "TMPDIR": "/tmp/h",
        "NPM_CONFIG_REGISTRY": "https://registry.example",
        "PYTHONPATH": "/app",
    }


def test_a_spec_crosses_to_the_child_whole() -> None:
    spec = ServerSpec(
        name="s",
        argv=("node", "x.js"),
        env=(("K", "v"),),
        cwd="/w",
        launch_command="node x.js",
        secrets=("v",),
        public_env=("K",),
    )
    back = spec_from_json(spec_to_json(spec))
    assert back == spec and back.secrets == ("v",) and back.launch_command == "node x.js"
    assert back.public_env == ("K",)


CREDENTIALS = {
    "NPM_CONFIG__AUTH": "dXNlcjpwYXNz",
    "NPM_CONFIG__AUTHTOKEN": "npm_secret",
    "npm_config__authToken": "npm_secret2",
    "NPM_CONFIG_//registry.example/:_authToken": "npm_secret3",
    "npm_config_//registry.example/:_password": "cGFzcw==",
    "UV_PUBLISH_TOKEN": "pypi-secret",
    "UV_PUBLISH_PASSWORD": "pw",
    "UV_INDEX_PRIVATE_PASSWORD": "pw2",
    "UV_INDEX_PRIVATE_USERNAME": "me",
    "YARN_NPM_AUTH_TOKEN": "yarn_secret",
    "YARN_NPM_AUTH_IDENT": "me:pw",
    "BUN_AUTH_TOKEN": "bun_secret",
    "PIP_CLIENT_CERT": "/secrets/client.pem",
}
INDEXES = {
    "PIP_INDEX_URL": "https://me:pip@pass@pypi.example/simple",
    "PIP_EXTRA_INDEX_URL": "https://a.example/simple https://me:extra-pass@b.example/simple",
    "UV_INDEX": "private=https://me:uv-pass@uv.example/simple",
    "NPM_CONFIG_REGISTRY": "https://me:npm-pass@registry.example/",
}


def test_a_pull_requests_server_gets_no_package_manager_credential() -> None:
    step = {**STEP, **CREDENTIALS, **INDEXES, "PIP_CERT": "/ca.pem", "UV_NATIVE_TLS": "1"}
    for env in (config_environ(step), child_environ(step, home="/h", python_path=None)):
        assert not set(CREDENTIALS) & set(env), env
        assert env["PIP_INDEX_URL"] == "https://pypi.example/simple"
        assert env["PIP_EXTRA_INDEX_URL"] == "https://a.example/simple https://b.example/simple"
        assert env["UV_INDEX"] == "private=https://uv.example/simple"
        assert env["NPM_CONFIG_REGISTRY"] == "https://registry.example/"
        assert env["PIP_CERT"] == "/ca.pem" and env["UV_NATIVE_TLS"] == "1"
        assert not any("pass" in v for v in env.values()), env
