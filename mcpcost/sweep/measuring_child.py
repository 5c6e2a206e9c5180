"""A measuring process of a sweep's ``MeasuringPool``: remote endpoints in, measurements out.

    python -m mcpcost.sweep.measuring_child

Standard input carries JSON lines. The first says how URLs are opened:
``{"policy": {"allowPrivate": ..., "allowedNetworks": [...], "allowCleartext": ...}}`` for URLs
from the world (a registry's entries: every connection under that address policy), or
``{"policy": null}`` for the user's own catalog. Each later line is one job,
``{"id": N, "spec": <core.spec_wire>, "timeout": SECONDS}``, measured with ``measure_server``
on a thread of its own (a kept one, ``runtime.workers``); its answer is one line on standard
output, ``{"id": N, "measurement": <measurement.json's object>}``, or ``{"id": N, "error":
"..."}`` for a job that is not one. The sweep bounds how many jobs are in flight.

Only URLs are measured here: a job that would launch a process is refused, so nothing this
process starts can outlive it. It ignores SIGINT and SIGTERM and ends when its standard input
ends, dropping any job still in flight: the sweep closes the pipe once every job has answered,
or when it is interrupted, and a sweep killed outright closes it by dying. So an interrupt
reaches the sweep alone, which records nothing for the jobs it drops, and no child outlives
its sweep.
Nothing is written to standard error; the sweep drops it (a traceback could quote a secret).
"""

from __future__ import annotations

import signal
import sys
import threading
from functools import partial
from typing import Any, BinaryIO

from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.spec_wire import spec_from_json
from mcpcost.errors import InputError
from mcpcost.measuring.server import measure_server
from mcpcost.runtime.addresses import AddressPolicy
from mcpcost.runtime.process_exit import leave
from mcpcost.runtime.workers import start_on_kept_thread
from mcpcost.transports.base import TransportFactory
from mcpcost.transports.open import open_transport, world_url_opener

MAX_JOB_BYTES = 1 << 20  # one job line: a spec and a timeout


def policy_to_json(policy: AddressPolicy | None) -> dict[str, Any]:
    """The opener line for a child (see the module's docstring)."""
    if policy is None:
        return {"policy": None}
    return {
        "policy": {
            "allowPrivate": policy.allow_private,
            "allowedNetworks": list(policy.allowed_networks),
            "allowCleartext": policy.allow_cleartext,
        }
    }


def opener_from_json(data: Any) -> TransportFactory:
    """The transport factory the opener line names; InputError for anything else."""
    if not isinstance(data, dict) or "policy" not in data:
        raise InputError("the first line does not say how URLs are opened")
    policy = data["policy"]
    if policy is None:
        return open_transport
    try:
        return world_url_opener(
            AddressPolicy(
                allow_private=bool(policy["allowPrivate"]),
                allowed_networks=tuple(str(n) for n in policy["allowedNetworks"]),
                allow_cleartext=bool(policy["allowCleartext"]),
            )
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not an address policy: {exc}") from None


class _Answers:
    """Standard output, one whole line per answer whichever thread writes it."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._lock = threading.Lock()

    def send(self, answer: dict[str, Any]) -> None:
        line = stringify(answer).encode("utf-8") + b"\n"
        with self._lock:
            try:
                self._out.write(line)
                self._out.flush()
            except (OSError, ValueError):  # the sweep has gone: nobody is left to answer
                pass


def run_job(raw: bytes, opener: TransportFactory, answers: _Answers) -> None:
    """Measure the job on one line and answer it (an unreadable job is answered with an error
    when it names its id, and otherwise dropped: the sweep's wait for it runs out)."""
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
        if spec.url is None:
            raise InputError("a measuring child measures URLs only")
    except InputError as exc:
        if isinstance(job_id, int) and not isinstance(job_id, bool):
            answers.send({"id": job_id, "error": str(exc)})
        return
    measured = measure_server(spec, timeout_s=float(timeout), open_transport=opener)
    answers.send({"id": job_id, "measurement": measured.to_dict()})


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    stdin = sys.stdin.buffer
    answers = _Answers(sys.stdout.buffer)
    try:
        opener = opener_from_json(parse_json(stdin.readline(MAX_JOB_BYTES)))
    except InputError:
        return 2
    while line := stdin.readline(MAX_JOB_BYTES + 1):
        if len(line) > MAX_JOB_BYTES:
            return 2  # not a job this sweep would send; its waits run out
        start_on_kept_thread(partial(run_job, line, opener, answers))
    return 0  # jobs still in flight end with the process: nothing is waiting for them


if __name__ == "__main__":
    leave(main())
