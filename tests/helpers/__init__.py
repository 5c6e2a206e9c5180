"""What several test modules share, so that no test module imports another.

- ``paths``: the repository's directories the tests read (one home for ``ROOT``).
- ``audit_builders``: configs, entries, measurements and audit reports built from fixed tool
  arrays, and a report's JSON round trip as a baseline.
- ``report_schema``: the audit report's JSON Schema (package data, ``mcpcost/schemas/``).
- ``client_homes``: a home and project holding one config file of every client, per platform.
- ``cli_exits``, ``cli_core``, ``cli_audit``, ``cli_measure``: each command's tests' in-process
  runner and the inputs they build (fixtures are imported by name where used).
- ``sarif_checks``: the SARIF schema, a validator and a project for ``audit --sarif``.
- ``sweep_sites``: a sweep's published inputs; ``container_catalog``: the container tests'
  catalog.
- ``json_strategies``: Hypothesis strategies for JSON values and wire texts.
- ``live_processes``: live processes found by a tag in their command line (Linux).
- ``oauth_fake`` and ``fake_browser``: an OAuth authorization server on loopback and the
  browser that approves its sign-in.
- ``output_corpus``: hostile text and each output's rule for it.
- ``count_api_fake``: loopback fakes of the Anthropic and OpenAI token-counting endpoints.
- ``peak_memory``: a piece of Python run in a fresh interpreter, with its peak memory and time.
- ``crash_points``: ``mcpcost`` run to a named instant and paused there, for a test to kill it.
- ``node_oracle`` and ``node24_runtime``: Node as a cross-check and the Node 24 the conformance
  suite needs.
- ``serve_process``: ``mcpcost serve`` as a real process on a loopback port, a plain HTTP
  client for it, and answers checked against its OpenAPI document.
"""
