"""The folders' one-way data flow is enforced here, not just described."""

import subprocess
import sys

import pytest

FORBIDDEN = {
    # package imported -> modules it must never pull in
    "router": ["ingest", "queries", "dashboard", "duckdb", "streamlit", "altair", "pandas"],
    "ingest": ["router", "queries", "dashboard", "streamlit", "altair"],
    "queries": ["router", "dashboard", "streamlit", "altair"],
    "lanelog.commands.route": ["ingest", "queries", "dashboard", "duckdb", "streamlit"],
}


def _loaded_after_import(module: str) -> set[str]:
    code = (
        "import importlib, pkgutil, sys\n"
        f"pkg = importlib.import_module({module!r})\n"
        "for info in pkgutil.walk_packages(getattr(pkg, '__path__', []), pkg.__name__ + '.'):\n"
        "    if not info.name.split('.')[-1].startswith('_'):\n"
        "        importlib.import_module(info.name)\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in out.stdout.split()} | set(out.stdout.split())


@pytest.mark.parametrize("module", sorted(FORBIDDEN))
def test_layer_does_not_import_what_sits_above_it(module: str) -> None:
    loaded = _loaded_after_import(module)
    leaked = sorted(name for name in FORBIDDEN[module] if name in loaded)
    assert leaked == [], f"{module} imports {leaked}"
