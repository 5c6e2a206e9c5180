"""For a server's own authors: the committed snapshot (``snapshot``), its check against the live
server, and the gate file (``gate_file``). docs/AUTHORS.md is the user's page."""
