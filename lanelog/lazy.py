"""A package's public names, each imported from its module when first used (PEP 562).

A command that only opens the database (`lanelog report`) should not import
pyarrow and numpy because the package it imports from also exports the lake
writer or the reading side.  This leaf imports nothing of lanelog.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_attributes(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """The package's module-level __getattr__: a name of `homes` from its module (then kept on
    the package), or a submodule (lanelog.store.replays) by its name."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is not None:
            value = getattr(importlib.import_module(f"{package}.{home}"), name)
            setattr(sys.modules[package], name, value)
            return value
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    return __getattr__
