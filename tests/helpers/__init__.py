"""What several test modules share, so that no test module imports another.

- ``paths``: the repository's directories the tests read (one home for ``ROOT``).
- ``audit_builders``: configs, entries, measurements and audit reports built from fixed tool
  arrays, and a report's JSON round trip as a baseline.
- ``report_schema``: the audit report's JSON Schema from ``spec/``.
- ``client_homes``: a home and project holding one config file of every client, per platform.
- ``live_processes``: live processes found by a tag in their command line (Linux).
- ``oauth_fake`` and ``fake_browser``: an OAuth authorization server on loopback and the
  browser that approves its sign-in.
- ``output_corpus``: hostile text and each output's rule for it.
- ``node_oracle`` and ``node24_runtime``: Node as a cross-check and the Node 24 the conformance
  suite needs.
"""
