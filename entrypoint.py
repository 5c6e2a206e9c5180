"""Container entry point of the GitHub Action (ENTRYPOINT runs it by absolute path)."""

from __future__ import annotations

from mcpcost.action.main import main
from mcpcost.runtime.process_exit import leave

if __name__ == "__main__":
    leave(main())
