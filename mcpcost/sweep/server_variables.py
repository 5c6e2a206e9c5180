"""Which variables a registry entry may give its server. Pure.

An entry's variables are set in the environment of the launcher (``npx``, ``uvx``,
``docker``/``podman``), which hands them on to the server; so a variable the launcher, the
runtime under it, the dynamic loader, a TLS library or the container client reads would change
where the code comes from or how it runs, not what the server is configured to do. The rule is an
allow rule: a server may be given a variable whose name

* is upper-case words joined by single underscores (``API_KEY``, ``NEO4J_URI``): the runtimes'
  lower-case conventions (``http_proxy``, ``npm_config_registry``) and ``__`` forms
  (``NPM_CONFIG__AUTH``) are never a server's setting; and
* lies outside the runtimes' namespaces: it does not start with one of ``RUNTIME_PREFIXES``
  (``NODE``, ``NPM_``, ``UV_``, ``PYTHON``, ``PIP``, ``DOCKER_``, ``CONTAINER``, ``XDG_``,
  ``SSL_``, ``LD_``...), holds no ``PROXY`` word, and is none of the shell's own variables
  (``HOST_NAMES``: ``PATH``, ``HOME``, ``TMPDIR``...).

Anything else is never set from an entry. The prefixes are whole namespaces, not single names,
so a variable a runtime adds later under its own prefix is refused without a change here.
"""

from __future__ import annotations

import re

_UPPER_WORDS = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")
# Namespaces of the launchers and what they run on: node and its package managers, Python and
# its installers, the dynamic loader and libc, TLS and HTTP client libraries, git, the container
# clients (docker, podman, buildkit, compose), XDG directories and the locale.
RUNTIME_PREFIXES = (
    *("NODE", "NPM_", "NPX_", "COREPACK_", "YARN_", "PNPM_", "BUN_", "DENO_"),
    *("PYTHON", "PIP", "UV_", "VIRTUAL_ENV", "CONDA_"),
    *("LD_", "DYLD_", "MALLOC_", "GLIBC_", "GCONV_", "LOCPATH", "LC_"),
    *("SSL_", "TLS_", "OPENSSL_", "REQUESTS_", "CURL_", "WGET", "GIT_", "GNUTLS_"),
    *("DOCKER_", "CONTAINER", "PODMAN_", "BUILDKIT_", "COMPOSE_", "REGISTRY_AUTH", "CDI_"),
    *("XDG_", "GODEBUG", "GOFLAGS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "PERL5"),
)
# The shell's and the system's own variables, by whole name.
HOST_NAMES = frozenset(
    {
        *("PATH", "HOME", "SHELL", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TZDIR"),
        *("TMPDIR", "TMP", "TEMP", "PWD", "OLDPWD", "IFS", "ENV", "BASH_ENV", "ZDOTDIR"),
        *("PS4", "TERM", "TERMINFO", "HOSTALIASES", "RESOLV_CONF", "RES_OPTIONS", "LOCALDOMAIN"),
    }
)


def server_may_be_given(name: str) -> bool:
    """Whether an entry may set ``name`` for its server (the module's allow rule)."""
    if not _UPPER_WORDS.match(name) or name in HOST_NAMES:
        return False
    if "PROXY" in name.split("_"):
        return False
    return not name.startswith(RUNTIME_PREFIXES)
