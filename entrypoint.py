"""Container entry point of the GitHub Action (ENTRYPOINT runs it by absolute path).

Without arguments (as the runner starts a container action) it runs the Action. With arguments
it is the ``mcpcost`` command line, so the same image serves the API: ``docker run IMAGE serve
--host 0.0.0.0`` (docs/SERVE.md).
"""

from __future__ import annotations

import sys

from mcpcost.runtime.process_exit import leave

if __name__ == "__main__":
    if len(sys.argv) > 1:
        from mcpcost.cli import main as command_line

        leave(command_line(sys.argv[1:]))
    from mcpcost.action.main import main

    leave(main())
