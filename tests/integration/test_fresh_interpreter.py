"""What the package does in a fresh interpreter, where nothing else has been imported first: the
tokenizer never touches the network, and a small count never builds tiktoken's core."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers.paths import ROOT


def test_tokenizer_never_touches_the_network() -> None:
    code = (
        "import socket\n"
        "def refuse(*a, **k):\n"
        "    raise SystemExit('network used')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from mcpcost.core.tokenizer import count_tokens\n"
        "print(count_tokens('hello world'))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "TIKTOKEN_CACHE_DIR": "/nonexistent", "HOME": "/nonexistent"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2"


def test_a_small_count_never_builds_the_core() -> None:
    code = (
        "import sys\n"
        "from mcpcost.core.tokenizer import count_tokens\n"
        "print(count_tokens('{\"a\": \"hello world\"}'), 'tiktoken' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["7", "False"]
