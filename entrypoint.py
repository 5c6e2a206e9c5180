"""Container entry point of the GitHub Action (ENTRYPOINT runs it by absolute path)."""

from __future__ import annotations

import sys

from mcpcost.action.main import main

if __name__ == "__main__":
    sys.exit(main())
