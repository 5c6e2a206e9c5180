"""End-to-end tests: the GitHub Action run as a runner runs it, containers (podman), headless
Chromium, the MCP conformance suite, the README's command chains and whole-feature audits with real
servers."""
