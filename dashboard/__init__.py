"""The dashboard: Streamlit pages over lanelog.queries, sign-in, and the local server that runs them.

Other layers import these names, never the modules (the CLI's `dashboard` and `demo --serve`
start the server through them); the pages themselves are scripts Streamlit runs by path.
"""

from typing import TYPE_CHECKING

from lanelog.lazy import lazy_attributes

_HOMES = dict.fromkeys(("check_exposure", "check_port_free", "serve"), "launch")

if TYPE_CHECKING:
    from lanelog.dashboard.launch import check_exposure, check_port_free, serve

__getattr__ = lazy_attributes(__name__, _HOMES)

__all__ = ["check_exposure", "check_port_free", "serve"]
