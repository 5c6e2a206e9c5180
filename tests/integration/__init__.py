"""Integration tests: real parts on this machine. Our CLI as a subprocess, real MCP servers, HTTP
and SSE servers on loopback, git repositories, Node cross-checks and the linters."""
