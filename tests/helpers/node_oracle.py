"""A long-lived Node process that answers "what does JSON.stringify(JSON.parse(x)) give?"."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.helpers.paths import TESTS

SCRIPT = TESTS / "node" / "oracle.mjs"


def js_tiktoken_dir() -> Path | None:
    """Where a pinned js-tiktoken is installed by the test setup, if anywhere."""
    for base in (TESTS / "servers" / "npm", TESTS / "action" / "npm"):
        candidate = base / "node_modules" / "js-tiktoken"
        if candidate.is_dir():
            return candidate
    return None


class NodeOracle:
    """Send wire bytes, get Node's canonical text, sha256 and (if available) token count."""

    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None:
            raise RuntimeError("node is not installed")
        env = dict(os.environ)
        tk = js_tiktoken_dir()
        if tk is not None:
            env["JS_TIKTOKEN_DIR"] = str(tk)
        self.has_tokens = tk is not None
        self._proc = subprocess.Popen(
            [node, str(SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
            encoding="utf-8",
        )

    def ask(self, wire: bytes) -> dict[str, Any]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(base64.b64encode(wire).decode() + "\n")
        self._proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self._proc.stdout.readline())
        return answer

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(timeout=10)
        if self._proc.stdout is not None:
            self._proc.stdout.close()
