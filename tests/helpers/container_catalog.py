"""A sweep catalog for the container tests: a tiny stdio server that reports its environment
(``boxed``), one that cannot start, npx and uvx launches, and one that runs ``docker`` itself;
``E`` holds its entries by name and ``NOW`` is the clock reading the tests measure at."""

from __future__ import annotations

import datetime as dt
import shlex

import yaml

from mcpcost.sweep.catalog import load_catalog

NOW = dt.datetime(2026, 9, 1, 12, 0, tzinfo=dt.UTC)

TINY_SERVER = r"""
import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m.get("method") == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "box", "version": "1.0"}}
    elif m.get("method") == "tools/list":
        d = "key=%s url=%s home=%s" % (os.environ.get("EXAMPLE_API_KEY"), os.environ.get("EXAMPLE_URL"), os.environ["HOME"])
        r = {"tools": [{"name": "env_probe", "description": d, "inputSchema": {"type": "object"}}]}
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}}) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
"""

CATALOG = load_catalog(
    yaml.safe_dump(
        {
            "servers": [
                {
                    "name": "boxed",
                    "command": "python3 -u -c " + shlex.quote(TINY_SERVER),
                    "env": ["EXAMPLE_API_KEY", "EXAMPLE_URL"],
                    "envValues": {"EXAMPLE_URL": "http://localhost:9200"},
                },
                {"name": "broken-box", "command": "echo cannot start >&2; exit 3"},
                {"name": "npx-thing", "command": "npx -y some-server", "needsGit": True},
                {"name": "uvx-thing", "command": "uvx some-server", "dockerImage": "example/own:1"},
                {
                    "name": "self-docker",
                    "command": "docker run -i --rm -e TOKEN=dummy example/server",
                },
            ]
        },
        sort_keys=False,
    )
)
E = CATALOG.by_name()
