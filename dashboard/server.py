"""The dashboard's server process: Streamlit's own command line, less one dependency's notice.

The launcher starts `python -P -m lanelog.dashboard.server run app.py ...` where it would
start `python -m streamlit run app.py ...`; the two differ only in the filter below.

Streamlit's sign-in (st.login) imports Authlib's Starlette client.  Authlib (1.9 as tested) looks for
the httpx2 package there and, finding only httpx (which Streamlit's `auth` extra installs), warns
"The httpx module is deprecated; please use httpx2 instead." on that import, so the notice
opened every sign-in log.  lanelog never imports Authlib: Streamlit does, with the httpx it
chose, so nobody running the dashboard can act on it.  Exactly that warning is filtered: its
text, Authlib's warning class, raised from Authlib's httpx module.  Any other warning, of
Authlib's or anyone's, is shown as before.
"""

from __future__ import annotations

import re
import warnings

HTTPX_NOTICE = "The httpx module is deprecated; please use httpx2 instead."


def quiet_authlib_httpx_notice() -> None:
    """Filter Authlib's notice about httpx, and nothing else."""
    # Importing authlib.deprecate puts Authlib's own "always show" filter for its class in front
    # of every filter set before: import it first, so that this filter goes in front of that one.
    from authlib.deprecate import AuthlibDeprecationWarning

    warnings.filterwarnings("ignore", message=re.escape(HTTPX_NOTICE) + r"\Z", category=AuthlibDeprecationWarning,
                            module=r"authlib\.integrations\.httpx_client(\.|\Z)")


def main() -> None:
    """Run Streamlit's command line (sys.argv as `streamlit` would read it) with the filter in place."""
    quiet_authlib_httpx_notice()
    from streamlit.web.cli import main as streamlit_main

    streamlit_main(prog_name="streamlit")


if __name__ == "__main__":
    main()
