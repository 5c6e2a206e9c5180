"""Every command imports where a POSIX-only module does not exist: Windows has no ``fcntl``.

Each ``mcpcost.cli.*_cmd`` module and the Action's entry are imported in a fresh interpreter whose
import system refuses ``fcntl`` (a meta-path finder raising ``ImportError``, as on Windows).
Platform code imports such modules inside the branch that runs on their platform.
"""

from __future__ import annotations

import json
import subprocess
import sys

from mcpcost.cli import COMMANDS
from tests.helpers.paths import ROOT

COMMAND_MODULES = sorted(
    f"mcpcost.cli.{p.stem}" for p in (ROOT / "mcpcost" / "cli").glob("*_cmd.py")
)
ENTRY_MODULES = [*COMMAND_MODULES, "mcpcost.action.main"]

WITHOUT = """
import importlib, importlib.abc, json, sys

class Refuse(importlib.abc.MetaPathFinder):
    def __init__(self, names):
        self.names = set(names)

    def find_spec(self, name, path=None, target=None):
        if name in self.names:
            raise ImportError(f"No module named {name!r} (refused, as on Windows)")
        return None

refused = sys.argv[1].split(",")
for name in refused:
    sys.modules.pop(name, None)
sys.meta_path.insert(0, Refuse(refused))
try:
    importlib.import_module(refused[0])
except ImportError:
    pass
else:
    raise SystemExit("the finder did not refuse the import")
failed = {}
for module in sys.argv[2:]:
    try:
        importlib.import_module(module)
    except Exception as exc:
        failed[module] = f"{type(exc).__name__}: {exc}"
print(json.dumps({"failed": failed, "loaded": sorted(set(refused) & set(sys.modules))}))
"""


def import_without(refused: list[str], modules: list[str]) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", WITHOUT, ",".join(refused), *modules],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout)
    return result


def test_every_command_module_is_one_of_the_commands() -> None:
    assert sorted(module for module, _ in COMMANDS.values()) == COMMAND_MODULES


def test_every_command_imports_without_fcntl() -> None:
    assert import_without(["fcntl"], ENTRY_MODULES) == {"failed": {}, "loaded": []}
