"""What the package does in a fresh interpreter, where nothing else has been imported first: the
tokenizer never touches the network, a small count never builds tiktoken's core, and the renderer
table loads no renderer until one is chosen."""

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


def test_the_renderer_table_loads_no_renderer_until_one_is_chosen() -> None:
    probe = (
        "import sys\n"
        "from mcpcost.render.report_layout import OutputFormat\n"
        "from mcpcost.render.renderer import RENDERERS\n"
        "loaded = lambda: sorted(m for m in sys.modules if m.endswith('_report'))\n"
        "before = loaded()\n"
        "RENDERERS[OutputFormat.JSON]()\n"
        "print(before, loaded())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip() == "[] ['mcpcost.render.json_report']"
