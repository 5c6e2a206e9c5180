# The GitHub Action's image. Releases build it once per version tag and publish it (the released
# action.yml pulls it by digest); the default branch's action.yml builds it from this file, so
# development needs no registry.
#
# BASE is a plain Debian bookworm: debian:bookworm-slim on GitHub, the debootstrap image
# scripts/setup-podman.sh makes here (scripts/build-image.sh builds this file on it). The runtime
# comes from scripts/image-deps.sh on either, so what is built here is what is released.
# Fast path for local tests: --build-arg BASE="$(scripts/setup-podman.sh --print-prebuilt)",
# the runtime already installed by Dockerfile.base, so a build only copies the code.
# The default is pinned by digest: the multi-arch index debian:bookworm-slim resolved to on
# 2026-08-24 (Debian 12.15), so what GitHub builds does not move when the tag does. Moving it is
# a reviewed change to this line. A local build passes BASE and never reads it.
ARG BASE=debian:bookworm-slim@sha256:88200866dfff7ea7f5cbcb6ec7c8a701889efe6fe859fe64d6990e4b07ea4171
FROM ${BASE}

# Runtime layer: Python's venv with the dependencies listed in pyproject.toml (read with tomllib,
# never repeated here), Node.js with npm/npx, uv/uvx and git. Rebuilt only when
# pyproject.toml or the script changes.
COPY pyproject.toml scripts/image-deps.sh /app/build/
RUN sh /app/build/image-deps.sh /app/build/pyproject.toml

# Code layer: the package (the o200k_base tokenizer data ships inside it) and the entry point.
COPY mcpcost /app/mcpcost
COPY entrypoint.py /app/entrypoint.py
ENV PATH=/opt/mcpcost/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONPATH=/app PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1

# No USER: the runner mounts the workspace owned by another uid; root is required.
ENTRYPOINT ["/usr/bin/env", "python3", "/app/entrypoint.py"]
