"""What the ``measure`` command tests share: the command run in this process."""

from __future__ import annotations

import io

from mcpcost.cli import main


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["measure", *argv], out, err)
    return code, out.getvalue(), err.getvalue()
