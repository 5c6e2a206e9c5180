"""The measuring child: a process of our own that measures specs sent to it over a pipe, and the
line protocol both ends speak. The Action measures each of a pull request's local launches in
one (credential-isolated: ``mcpcost.action.untrusted_launches``); a sweep measures its remote
endpoints in several (``mcpcost.sweep.measuring_pool``).

    python -m mcpcost.measuring.child

Standard input carries JSON lines. The first opens the session (``session_line``):
``{"policy": <address policy or null>, "launches": <bool>}``. ``policy`` says how URLs are
opened: ``{"allowPrivate": ..., "allowedNetworks": [...], "allowCleartext": ...}`` for URLs from
the world (a registry's: every connection under that policy, error bodies never quoted), null
for the user's own. ``launches`` says whether a job may launch a process; without it a job that
would is refused, so nothing the child starts can outlive it. Each later line is one job
(``job_line``): ``{"id": N, "spec": <spec_to_json>, "timeout": SECONDS}``, measured with
``measure_server`` on a thread of its own; its answer is one line on standard output
(``read_answer``): ``{"id": N, "measurement": <measurement.json's object>}``, or ``{"id": N,
"error": "..."}`` for a job that is not one. A first line that is not a session ends the child
with exit code 2 before it measures anything.

When its input ends, a child that may launch waits for its jobs (each stops the processes it
started) and exits. One that measures URLs only ends at once, dropping any job in flight, and
ignores SIGINT and SIGTERM: a sweep closes the pipe once every job has answered, or when it is
interrupted, and a sweep killed outright closes it by dying; so an interrupt reaches the sweep
alone, which records nothing for the jobs it drops, and no child outlives its sweep.
Nothing is written to standard error (a traceback could quote a secret).

Specs cross whole, secrets included: the text goes over a pipe to the child, never to a file, a
log or a report. ``public_env`` crosses too, so the child masks exactly what the parent would
(a published placeholder is not a secret).
"""

from __future__ import annotations

import signal
import sys
import threading
from dataclasses import dataclass
from functools import partial
from typing import Any, BinaryIO

from mcpcost.core.jsonvalue import JSONValue, parse_json, stringify
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec, TransportName
from mcpcost.errors import InputError
from mcpcost.measuring.server import MeasureOptions, measure_server
from mcpcost.runtime.addresses import AddressPolicy
from mcpcost.runtime.process_exit import leave
from mcpcost.runtime.workers import start_on_kept_thread
from mcpcost.transports.base import MAX_CAPTURE_BYTES

CHILD_MODULE = "mcpcost.measuring.child"
MAX_JOB_BYTES = 16 << 20  # one job line: a spec (its env, headers, secrets) and a timeout
# A measurement carries its capture (at most MAX_CAPTURE_BYTES on the wire), re-serialised and
# counted tool by tool: four times the cap holds any of them.
MAX_ANSWER_BYTES = 4 * MAX_CAPTURE_BYTES + (1 << 20)
URLS_ONLY = "a measuring child measures URLs only"


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


def _line(doc: dict[str, Any]) -> bytes:
    return stringify(doc).encode("utf-8") + b"\n"


def session_line(policy: AddressPolicy | None, *, launches: bool) -> bytes:
    """The first line a child reads (see the module's docstring)."""
    wire: dict[str, Any] | None = None
    if policy is not None:
        wire = {
            "allowPrivate": policy.allow_private,
            "allowedNetworks": list(policy.allowed_networks),
            "allowCleartext": policy.allow_cleartext,
        }
    return _line({"policy": wire, "launches": launches})


def job_line(job_id: int, spec: ServerSpec, timeout_s: float) -> bytes:
    """One job's line."""
    return _line({"id": job_id, "spec": spec_to_json(spec), "timeout": timeout_s})


def read_answer(line: bytes) -> tuple[int | None, Measurement | str]:
    """(job id, its measurement or why the child refused the job) from one answer line; id None
    for a line that is not an answer."""
    try:
        doc = parse_json(line)
    except InputError:
        return None, ""
    if not isinstance(doc, dict):
        return None, ""
    job_id = doc.get("id")
    if isinstance(job_id, bool) or not isinstance(job_id, int):
        return None, ""
    if isinstance(doc.get("error"), str):
        return job_id, str(doc["error"])
    try:
        return job_id, Measurement.from_dict(doc.get("measurement"))
    except (InputError, KeyError, TypeError, ValueError, AttributeError):
        return None, ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChildSession:
    """What a child's first line says: how URLs are opened (None: as the user's own) and
    whether a job may launch a process."""

    policy: AddressPolicy | None
    launches: bool


def session_from_json(data: Any) -> ChildSession:
    """The session a first line opens; InputError for anything else."""
    if not isinstance(data, dict) or "policy" not in data:
        raise InputError("the first line does not say how URLs are opened")
    launches = data.get("launches", False)
    if not isinstance(launches, bool):
        raise InputError("launches is true or false")
    wire = data["policy"]
    if wire is None:
        return ChildSession(policy=None, launches=launches)
    try:
        policy = AddressPolicy(
            allow_private=bool(wire["allowPrivate"]),
            allowed_networks=tuple(str(n) for n in wire["allowedNetworks"]),
            allow_cleartext=bool(wire["allowCleartext"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not an address policy: {exc}") from None
    return ChildSession(policy=policy, launches=launches)


class _Answers:
    """Standard output, one whole line per answer whichever thread writes it."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._lock = threading.Lock()

    def send(self, answer: dict[str, Any]) -> None:
        line = _line(answer)
        with self._lock:
            try:
                self._out.write(line)
                self._out.flush()
            except (OSError, ValueError):  # the parent has gone: nobody is left to answer
                pass


def run_job(raw: bytes, session: ChildSession, answers: _Answers) -> None:
    """Measure the job on one line and answer it (an unreadable job is answered with an error
    when it names its id, and otherwise dropped: the parent's wait for it runs out)."""
    job_id: Any = None
    try:
        job = parse_json(raw)
        if not isinstance(job, dict):
            raise InputError("a job is an object")
        job_id = job.get("id")
        if isinstance(job_id, bool) or not isinstance(job_id, int):
            return
        spec = spec_from_json(job.get("spec"))
        timeout = job.get("timeout")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise InputError("a job has a positive timeout")
        if spec.url is None and not session.launches:
            raise InputError(URLS_ONLY)
    except InputError as exc:
        if isinstance(job_id, int) and not isinstance(job_id, bool):
            answers.send({"id": job_id, "error": str(exc)})
        return
    options = MeasureOptions(timeout_s=float(timeout), url_policy=session.policy)
    measured = measure_server(spec, options)
    answers.send({"id": job_id, "measurement": measured.to_dict()})


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    stdin = sys.stdin.buffer
    answers = _Answers(sys.stdout.buffer)
    try:
        session = session_from_json(parse_json(stdin.readline(MAX_JOB_BYTES)))
    except InputError:
        return 2
    if session.launches:  # its parent stops it (and what it launched) by signal
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    jobs: list[threading.Thread] = []
    while line := stdin.readline(MAX_JOB_BYTES + 1):
        if len(line) > MAX_JOB_BYTES:
            return 2  # not a job a parent of ours would send; its waits run out
        if session.launches:  # waited for below: each stops the processes it started
            jobs.append(threading.Thread(target=run_job, args=(line, session, answers)))
            jobs[-1].start()
        else:
            start_on_kept_thread(partial(run_job, line, session, answers))
    for job in jobs:
        job.join()
    return 0  # URL jobs still in flight end with the process: nothing is waiting for them


if __name__ == "__main__":
    leave(main())
