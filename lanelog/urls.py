"""A URL as a message names it: without its query string, fragment or user info, wherever it stands.

A URL given to lanelog (a lake, an object-store prefix, an endpoint, the dashboard's
address) may carry a credential where a reader does not look for one: user info
(``s3://KEY:SECRET@bucket``), a query string (DuckDB's ``?s3_secret_access_key=``, a
presigned URL's ``X-Amz-Security-Token=``, an Azure SAS's ``sig=``) or a fragment.
``shown_url`` is a URL with those left out; ``without_url_secrets`` shows every URL in a
text so (an error from a client library may quote one), and the value of every
credential parameter named in it.  A webhook's URL is a secret whole: lanelog.cli.alerts
names a receiver by its host and digest alone.  This leaf imports nothing of lanelog.
"""

from __future__ import annotations

import re

# A URL in a message: a scheme, "://", and what follows up to white space or a quote.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]*")
# Parameters whose values are credentials, wherever a text names them.
_CREDENTIAL = re.compile(
    r"(?i)\b(s3_(?:secret_access_key|session_token|access_key_id)|aws_(?:secret_access_key|session_token|access_key_id)"
    r"|x-amz-(?:security-token|signature|credential)|sig|signature|token|access_token|password|secret|client_secret)"
    r"=[^&\s'\",;)\]}]*")
HIDDEN = "…"


def shown_url(url: str) -> str:
    """``url`` with its query string or fragment (shown ``?…``, ``#…``) and its user info left out, and a
    ``KEY:SECRET`` where an object store's bucket stands shown ``…``; text that is no URL as it is."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        return url
    cut = min((at for at in (rest.find("?"), rest.find("#")) if at >= 0), default=len(rest))
    rest, tail = rest[:cut], (rest[cut] + HIDDEN if cut < len(rest) else "")
    if "@" in rest:  # user info, even one holding a "/": everything up to the last "@"
        return f"{scheme}://{rest.rsplit('@', 1)[1]}{tail}"
    host, slash, path = rest.partition("/")
    _, colon, after = host.partition(":")
    if colon and after and not after.isdigit() and not host.startswith("["):
        host = HIDDEN  # s3://KEY:SECRET/...: no bucket's name holds a colon, and this is no port
    return f"{scheme}://{host}{slash}{path}{tail}"


def without_url_secrets(text: str) -> str:
    """``text`` with every URL in it shown by ``shown_url`` and every credential parameter's value left out."""
    return _CREDENTIAL.sub(lambda found: f"{found.group(1)}={HIDDEN}", _URL.sub(lambda found: shown_url(found.group()),
                                                                                 text))
