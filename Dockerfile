# The GitHub Action's image. Built by the runner from the action's directory on every job, so
# it is layered for speed: dependencies first, the code last.
#
# Fast path: build a base once (this file's first stages, or Dockerfile.base-style image with
# Python, Node.js/npm, uv and the dependencies), publish it, and build with
#   --build-arg BASE=ghcr.io/<owner>/mcp-context-cost-base:<n>
# Then a run only copies the code (seconds). Locally: --build-arg BASE=localhost/mcpcost-base:bookworm
ARG BASE=python:3.12-slim-bookworm
FROM ${BASE}

# Node.js/npm and uv so npx and uvx servers can start; git to read base and head configs.
# Skipped when the base already has them.
RUN set -eux; \
    if ! command -v node >/dev/null || ! command -v git >/dev/null; then \
      apt-get update; \
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm git ca-certificates; \
      rm -rf /var/lib/apt/lists/*; \
    fi; \
    git config --system --add safe.directory '*'

# Dependencies layer: changes only when pyproject.toml does.
COPY pyproject.toml /app/pyproject.toml
RUN set -eux; \
    PY=$(command -v python3); \
    "$PY" -m pip --version >/dev/null 2>&1 || (apt-get update && apt-get install -y --no-install-recommends python3-pip && rm -rf /var/lib/apt/lists/*); \
    "$PY" -m pip install --no-cache-dir --break-system-packages \
      'tiktoken>=0.7,<1' 'pyyaml>=6' 'requests>=2.31' 'jinja2>=3.1' 'docker>=7' 'uv' \
    || "$PY" -m pip install --no-cache-dir \
      'tiktoken>=0.7,<1' 'pyyaml>=6' 'requests>=2.31' 'jinja2>=3.1' 'docker>=7' 'uv'

# Code layer: the package (tokenizer data ships inside it) and the entry point.
COPY mcpcost /app/mcpcost
COPY entrypoint.py /app/entrypoint.py
ENV PYTHONPATH=/app PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1

# No USER: the runner mounts the workspace owned by another uid; root is required.
ENTRYPOINT ["/usr/bin/env", "python3", "/app/entrypoint.py"]
