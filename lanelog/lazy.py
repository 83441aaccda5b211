"""A package's public names, each imported from its module when first used (PEP 562).

A command that only opens the database (`lanelog report`) should not import
pyarrow and numpy because the package it imports from also exports the lake
writer or the reading side.  This leaf imports nothing of lanelog.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any


def lazy_attributes(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """The package's module-level __getattr__: a name of `homes` from its module (then kept on
    the package), or a submodule (lanelog.store.replays) by its name.

    A home is the module's name, or "module:attribute" where the package exports the
    module's attribute under another name (``"claim_alert": "alerts:claim"``).
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is not None:
            module, _, attribute = home.partition(":")
            value = getattr(importlib.import_module(f"{package}.{module}"), attribute or name)
            setattr(sys.modules[package], name, value)
            return value
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    return __getattr__


def lazy_module(name: str) -> ModuleType:
    """The module `name`, run only when one of its attributes is first read (importlib.util.LazyLoader).

    For a module most runs of a command never use (`lanelog report`'s webhook poster
    and YAML reader): importing it costs the command's start-up, using it costs nothing
    more.  An error in the module is raised where it is first used.
    """
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
