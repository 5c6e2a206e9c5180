"""Measuring a pull request's local servers where the job's credentials are out of reach.

The Action's own process holds the workflow token (``INPUT_GITHUB-TOKEN``), the runner's
(``ACTIONS_RUNTIME_TOKEN``...) and the paths of the runner's file commands (``GITHUB_ENV``,
``GITHUB_OUTPUT``...). A server a pull request names is code the pull request wrote, so it never
runs in that process nor in one that ever held those values:

- the parent makes itself non-dumpable (``undumpable``), so another process of its uid without
  ``CAP_SYS_PTRACE`` cannot read ``/proc/<pid>/environ`` or its memory;
- each local launch is measured by a fresh measuring child (``python -m
  mcpcost.measuring.child``, the sweep's too) started with a scrubbed environment
  (``child_environ``: no job variable, no package-manager credential, a private ``HOME``), which
  gets one job on stdin and answers one measurement on stdout, read bounded;
- as root (a container Action always is), the child runs as an unprivileged user (``nobody``)
  through ``setpriv``, with no supplementary groups and no new privileges: it cannot open the runner's file commands, the parent's
  ``/proc`` files, nor write the Action's code. The parent alone writes the file commands, after
  the children returned.

A remote server runs no code of the pull request's, so it is measured in the parent; CI OAuth
credentials are bound to their issuer there (``mcpcost.auth.credentials_env``).
"""

from __future__ import annotations

import atexit
import ctypes
import os
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from typing import Any

from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.measuring.child import (
    CHILD_MODULE,
    MAX_ANSWER_BYTES,
    MAX_JOB_BYTES,
    job_line,
    read_answer,
    session_line,
)
from mcpcost.runtime.clock import iso_utc, utc_now
from mcpcost.runtime.processes import StartRefused, current_platform, start_tree, stop_tree
from mcpcost.transports.stdio import PASSTHROUGH_PREFIXES, safe_base_env

# Variables of the Action and of the runner: a config's ``${VAR}``/``${env:VAR}`` never resolves
# to them and no server is given them, whatever a config names.
JOB_VARIABLE_PREFIXES = ("INPUT_", "GITHUB_", "ACTIONS_", "RUNNER_", "MCPCOST_OAUTH_")
ISOLATION_USER = "nobody"  # the unprivileged user PR-named servers run as when we are root
NOBODY_UID = 65534  # its usual uid, when the image has no passwd entry for it
CHILD_GRACE_S = 60.0  # beyond the measuring's own budget (3x timeout, with its retry)
CHILD_STOP_GRACE_S = 2.0  # for what the child left in its session after answering
_PR_SET_DUMPABLE = 4  # <linux/prctl.h>
# Words that make a package manager's setting a credential (``NPM_CONFIG__AUTH``,
# ``NPM_CONFIG__AUTHTOKEN``, ``UV_PUBLISH_TOKEN``, ``UV_INDEX_<NAME>_PASSWORD``,
# ``YARN_NPM_AUTH_TOKEN``, ``BUN_AUTH_TOKEN``, npm's ``certfile``/``keyfile``...).
CREDENTIAL_WORDS = frozenset(
    {
        *("AUTH", "AUTHTOKEN", "TOKEN", "PASSWORD", "PASSWD", "SECRET", "USERNAME"),
        *("CREDENTIAL", "CREDENTIALS", "KEYFILE", "CERTFILE", "IDENT", "OTP"),
    }
)
PACKAGE_MANAGER_PREFIXES = tuple(p for p in PASSTHROUGH_PREFIXES if p != "XDG_")
_WORDS = re.compile(r"[A-Z0-9]+")
_USERINFO = re.compile(r"(?<=://)[^/\s]*@")


def is_package_manager_setting(name: str) -> bool:
    """True for a variable of npm, pnpm, yarn, bun, uv or pip (in any case)."""
    return name.upper().startswith(PACKAGE_MANAGER_PREFIXES)


def is_package_manager_credential(name: str) -> bool:
    """True for a package manager's setting that is a credential: one of ``CREDENTIAL_WORDS``
    among its words, a client certificate, or npm's per-registry form (``//host/:_authToken``,
    every setting of which is a credential or names one)."""
    if not is_package_manager_setting(name):
        return False
    upper = name.upper()
    if "//" in upper or "CLIENT_CERT" in upper:
        return True
    return any(word in CREDENTIAL_WORDS for word in _WORDS.findall(upper))


def without_userinfo(value: str) -> str:
    """Every URL in ``value`` without its ``user:password@`` (an index URL carrying its login)."""
    return str(_USERINFO.sub("", value))


def pull_request_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """The step's variables a pull request's server may be given or name: none of the job's
    (``is_job_variable``), no package-manager credential, and package-manager settings' URLs
    without their userinfo (``PIP_INDEX_URL=https://user:pass@host/`` keeps only the index)."""
    out: dict[str, str] = {}
    for name, value in environ.items():
        if is_job_variable(name) or is_package_manager_credential(name):
            continue
        out[name] = without_userinfo(value) if is_package_manager_setting(name) else value
    return out


def is_job_variable(name: str) -> bool:
    """True for a variable of the Action or the runner (``INPUT_*``, ``GITHUB_*``...)."""
    return name.upper().startswith(JOB_VARIABLE_PREFIXES)


def config_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables a pull request's config may reference: the step's, minus the job's own and
    the package managers' credentials (``pull_request_environ``)."""
    return pull_request_environ(environ)


def child_environ(
    environ: Mapping[str, str], *, home: str, python_path: str | None
) -> dict[str, str]:
    """The measuring child's whole environment: the base a server may inherit
    (``safe_base_env``) as ``pull_request_environ`` leaves it (no job variable, no
    package-manager credential), a private ``HOME`` and ``TMPDIR``, and the
    ``PYTHONPATH`` the Action itself was started with (so the child imports the same code)."""
    env = pull_request_environ(safe_base_env(environ))
    env["HOME"] = home
    env["TMPDIR"] = home
    env.pop("USER", None)
    env.pop("LOGNAME", None)
    if python_path:
        env["PYTHONPATH"] = python_path
    return env


def undumpable() -> bool:
    """Mark this process non-dumpable (Linux ``prctl(PR_SET_DUMPABLE, 0)``): its ``/proc``
    files become root's and ptrace-guarded, so a process of the same uid without
    ``CAP_SYS_PTRACE`` can read neither its environment nor its memory. False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0


def isolation_ids() -> tuple[int, int] | None:
    """The (uid, gid) children run as: ``nobody`` when we are root, else None (our own)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    import pwd  # POSIX only, like running as root

    try:
        entry = pwd.getpwnam(ISOLATION_USER)
    except KeyError:
        return NOBODY_UID, NOBODY_UID
    return entry.pw_uid, entry.pw_gid


def failed(spec: ServerSpec, timeout_s: float, why: str) -> Measurement:
    """The measurement of a launch whose isolated child gave no answer."""
    return Measurement(
        status=Status.STARTUP_FAILURE,
        server_name=spec.name,
        launch_command=spec.display(),
        measured_at=iso_utc(utc_now()),
        timeout_ms=int(timeout_s * 1000),
        notes=f"the isolated measuring process {why}",
    )


def _drain(end: Any, limit: int, into: list[bytes]) -> None:
    """Read ``end`` to its end, keeping at most ``limit`` + 1 bytes (the rest is dropped, so a
    child that writes without end never blocks on a full pipe nor fills our memory)."""
    kept = 0
    while True:
        try:
            chunk = end.read1(1 << 16)
        except (OSError, ValueError):
            return
        if not chunk:
            return
        if kept <= limit:
            into.append(chunk[: limit + 1 - kept])
            kept += len(into[-1])


def _feed(stream: Any, data: bytes) -> None:
    try:
        stream.write(data)
        stream.close()
    except (OSError, ValueError):  # the child went away before reading: its exit says why
        pass


def private_home(ids: tuple[int, int] | None) -> str:
    """A new directory the children share as ``HOME`` and ``TMPDIR`` (package caches: npx and
    uvx fetch a server once per run), owned by the user they run as; removed at exit."""
    home = tempfile.mkdtemp(prefix="mcpcost-isolated-")
    if ids is not None:
        os.chown(home, *ids)
    atexit.register(shutil.rmtree, home, True)
    return home


def child_argv(python: str, ids: tuple[int, int] | None) -> list[str]:
    """The measuring child's command: as ``ids`` (``setpriv``, util-linux: new uid and gid, no
    supplementary group, no new privileges through set-uid programs) when given."""
    child = [python, "-s", "-m", CHILD_MODULE]
    if ids is None:
        return child
    uid, gid = ids
    drop = [f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--no-new-privs"]
    return ["setpriv", *drop, "--", *child]


def run_child(
    request: bytes,
    *,
    deadline_s: float,
    environ: Mapping[str, str],
    ids: tuple[int, int] | None,
    home: str,
    python: str = sys.executable,
) -> tuple[bytes | None, str]:
    """Start the measuring child, give it ``request``, and return (its answer or None, why)."""
    env = child_environ(environ, home=home, python_path=environ.get("PYTHONPATH"))
    try:
        tree = start_tree(current_platform(), child_argv(python, ids), env=env, cwd=home)
    except (OSError, StartRefused) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return None, f"could not start ({why or type(exc).__name__})"
    got: list[bytes] = []
    writer = threading.Thread(target=_feed, args=(tree.stdin, request), daemon=True)
    reader = threading.Thread(target=_drain, args=(tree.stdout, MAX_ANSWER_BYTES, got), daemon=True)
    errors = threading.Thread(target=_drain, args=(tree.stderr, 0, []), daemon=True)
    for thread in (writer, reader, errors):
        thread.start()
    reader.join(deadline_s)
    late = reader.is_alive()
    stop_tree(tree, 0.0 if late else CHILD_STOP_GRACE_S)
    reader.join(5)
    code = tree.exit_code()
    tree.close_pipes()
    answer = b"".join(got)
    if late:
        return None, f"gave no answer within {deadline_s:.0f} s"
    if len(answer) > MAX_ANSWER_BYTES:
        return None, f"answered more than {MAX_ANSWER_BYTES} bytes"
    if not answer:
        return None, f"ended without an answer (exit {code})"
    return answer, ""


def isolated_measure(
    measure_remote: Callable[[ServerSpec, float], Measurement],
    environ: Mapping[str, str],
) -> Callable[[ServerSpec, float], Measurement]:
    """The Action's ``MeasureServer``: a local launch in an isolated child, a remote one by
    ``measure_remote`` in this process."""
    ids = isolation_ids()
    homes: list[str] = []
    lock = threading.Lock()

    def home() -> str:
        with lock:
            if not homes:
                homes.append(private_home(ids))
            return homes[0]

    def measure(spec: ServerSpec, timeout_s: float) -> Measurement:
        if spec.is_remote:
            return measure_remote(spec, timeout_s)
        job = job_line(1, spec, timeout_s)
        if len(job) > MAX_JOB_BYTES:
            return failed(spec, timeout_s, "was not started: the launch is too large")
        answer, why = run_child(
            session_line(None, launches=True) + job,
            deadline_s=3 * timeout_s + CHILD_GRACE_S,
            environ=environ,
            ids=ids,
            home=home(),
        )
        if answer is None:
            return failed(spec, timeout_s, why)
        job_id, told = read_answer(answer)
        if job_id != 1:
            return failed(spec, timeout_s, "gave an unreadable answer")
        if not isinstance(told, Measurement):
            return failed(spec, timeout_s, f"refused the job ({told})")
        # the child shares a uid with the server, which may have rewritten its answer: what
        # was launched is ours to say
        return told.with_(launch_command=spec.display())

    return measure
