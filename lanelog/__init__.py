"""lanelog: bound agent patches before a model call, and review the lane log afterwards."""

from pathlib import Path as _Path

__version__ = "0.1.0"

# Installed, setuptools maps the repository's layer folders (router/, ingest/, queries/,
# dashboard/) into this package.  Imported straight from a source checkout (the tests run
# from one, whatever kind of install is present), the same names resolve to those folders.
_CHECKOUT = _Path(__file__).resolve().parent.parent
if (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "router" / "__init__.py").is_file():
    __path__.append(str(_CHECKOUT))
