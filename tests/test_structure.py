"""Rules about the package's shape that hold for every module: each is imported here."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import mcpcost
from mcpcost.errors import McpcostError


def _all_modules() -> list[ModuleType]:
    """Every module of the package, imported (``__main__`` modules run the CLI, so not those)."""
    modules = [mcpcost]
    for info in pkgutil.walk_packages(mcpcost.__path__, prefix="mcpcost."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue
        modules.append(importlib.import_module(info.name))
    return modules


def _exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined (not merely imported) in the package, by qualified name."""
    found: dict[str, type[BaseException]] = {}
    for module in _all_modules():
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if obj.__module__ == module.__name__ and issubclass(obj, BaseException):
                found[f"{module.__name__}.{obj.__qualname__}"] = obj
    return found


def test_the_walk_finds_modules_in_every_layer() -> None:
    names = {m.__name__.split(".")[1] for m in _all_modules() if m.__name__ != "mcpcost"}
    assert {"errors", "core", "transports", "measuring", "audit", "sweep", "cli"} <= names


def test_every_exception_class_derives_from_mcpcost_error() -> None:
    classes = _exception_classes()
    assert "mcpcost.measuring.containers.engine_client.EngineUnavailable" in classes
    strays = sorted(name for name, cls in classes.items() if not issubclass(cls, McpcostError))
    assert strays == []
