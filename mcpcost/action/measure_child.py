"""The measuring child of ``mcpcost.action.untrusted_launches``: one spec on stdin, one measurement
(the measurement.json object) on stdout. It is started with a scrubbed environment, as an
unprivileged user when the Action runs as root, and holds no credential of the job."""

from __future__ import annotations

import sys

from mcpcost.action.untrusted_launches import MAX_REQUEST_BYTES
from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.spec_wire import spec_from_json
from mcpcost.errors import InputError
from mcpcost.measuring.server import measure_server
from mcpcost.runtime.process_exit import leave


def main() -> int:
    """Measure the spec read from stdin; exit 2 on a request that is not one."""
    raw = sys.stdin.buffer.read(MAX_REQUEST_BYTES + 1)
    try:
        if len(raw) > MAX_REQUEST_BYTES:
            raise InputError("the request is too large")
        request = parse_json(raw)
        if not isinstance(request, dict):
            raise InputError("the request is not an object")
        spec = spec_from_json(request.get("spec"))
        timeout = request.get("timeout")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise InputError("the request has no positive timeout")
    except InputError:
        return 2
    measured = measure_server(spec, timeout_s=float(timeout))
    sys.stdout.write(stringify(measured.to_dict()))
    return 0


if __name__ == "__main__":
    leave(main())
