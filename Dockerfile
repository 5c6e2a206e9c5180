# The GitHub Action's image. The runner builds it from the action's directory on every job, so
# it is layered for speed: the runtime first (from pyproject.toml alone), the code last.
#
# Fast path: build Dockerfile.base once, publish it, and build this file with
#   --build-arg BASE=ghcr.io/<owner>/mcp-context-cost-base:<version>
# Every runtime step then finds its work done and a run only copies the code (seconds).
# Locally, without a registry: --build-arg BASE="$(scripts/setup-podman.sh --print-prebuilt)",
# the localhost/mcpcost-prebuilt:<key> image setup-podman.sh builds from Dockerfile.base (what
# scripts/container-action-test.sh uses). Its plain localhost/mcpcost-base:bookworm is only the
# Python underneath: as BASE it would install the whole runtime again.
ARG BASE=python:3.12-slim-bookworm
FROM ${BASE}

# Runtime layer: git, Node.js/npm, uv and the dependencies listed in pyproject.toml (read with
# tomllib, never repeated here). Rebuilt only when pyproject.toml or the script changes.
COPY pyproject.toml scripts/image-deps.sh /app/build/
RUN sh /app/build/image-deps.sh /app/build/pyproject.toml

# Code layer: the package (the o200k_base tokenizer data ships inside it) and the entry point.
COPY mcpcost /app/mcpcost
COPY entrypoint.py /app/entrypoint.py
ENV PYTHONPATH=/app PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1

# No USER: the runner mounts the workspace owned by another uid; root is required.
ENTRYPOINT ["/usr/bin/env", "python3", "/app/entrypoint.py"]
