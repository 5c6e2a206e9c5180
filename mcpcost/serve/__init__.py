"""``mcpcost serve``: an HTTP API that measures remote MCP servers on demand, exactly, and serves
a published tree (the ``serve`` extra: uvicorn and starlette).

* ``options``    ``ServeSettings``, the service's knobs
* ``api``        the API's values, pure: requests, the public fields of a measurement, ETags
* ``guards``     measuring slots, the per-client rate limit, the result cache
* ``on_demand``  one measurement per request, off the event loop, within those bounds
* ``dataset``    the published tree's ``/data.json`` and per-server records
* ``openapi``    the OpenAPI 3.1 document the app serves
* ``site``       the pages: the measure page at ``/``, the published tree's files
* ``app``        the ASGI app: routes, headers every answer carries, the access log
* ``listener``   the listening socket and the run under uvicorn

The command line is ``mcpcost.cli.serve_cmd``; docs/SERVE.md describes the API and a deployment.
"""
