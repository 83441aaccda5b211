"""Posting a message to a webhook: urllib only, no redirect followed, each try bounded as a whole.

Only the standard library talks HTTP here (urllib): a webhook post needs no session,
no connection pool and no client that is not already installed everywhere lanelog runs.
Each attempt at a post has one deadline for all of it (resolving, connecting, sending,
the whole answer): a socket timeout alone bounds each read, and a receiver that answers
a byte a second would hold a run without end.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from lanelog import __version__
from lanelog.cli.alerts.messages import Receiver, plain_text
from lanelog.errors import AlertError

TIMEOUT_S = 10.0
ATTEMPTS = 3                # one post and two retries, on 429 and 5xx only
FIRST_BACKOFF_S = 1.0
MAX_RETRY_AFTER_S = 30.0    # a receiver's Retry-After is honoured up to this
RESPONSE_LIMIT = 64 * 1024  # bytes of a response body read, at most
ANSWER_LIMIT = 1024         # bytes of a refusal's body read, for its first line
# Statuses that say the URL is wrong (no such hook, revoked, forbidden), not the message.
WRONG_URL = (401, 403, 404, 410)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A webhook that answers with a redirect is a failed send, not a post to elsewhere."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class _Connections:
    """The sockets one attempt opens, so that its deadline can end a read blocked on one.

    Past the deadline the sockets are shut down, never closed, from the caller's thread: a
    response's close waits for the lock of the reader blocked in it (a receiver dripping its
    body once held a run until the drip ended), and urllib has let go of the connection's own
    socket by then (``sock`` is None) while the response still reads from it.  Shut down, the
    socket wakes that read at once, and the post's thread closes what it opened as it ends.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._ended = False

    def track(self, connection_class: Any) -> Any:
        """A subclass of `connection_class` whose sockets (the connected one, and a TLS one over it)
        are kept here as they are made."""
        connections = self

        class Tracked(connection_class):
            _create_connection: Callable[..., socket.socket]  # http.client's, made per connection

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                create = self._create_connection

                def created(*args: Any, **kwargs: Any) -> socket.socket:
                    made: socket.socket = create(*args, **kwargs)
                    connections.opened(made)
                    return made

                self._create_connection = created

            def connect(self) -> None:
                super().connect()
                connections.opened(self.sock)  # over HTTPS, the TLS socket over the one above

        return Tracked

    def opened(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            ended = self._ended
        if ended:
            _shut(sock)

    def end(self) -> None:
        """Shut every socket down: a read blocked on one returns at once; nothing here waits."""
        with self._lock:
            self._ended = True
            opened = list(self._sockets)
        for sock in opened:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    """Shut a socket down for both directions, by its descriptor (a TLS socket's own shutdown would
    first drop its TLS state under the thread reading it); one already closed is left alone."""
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass


class _HTTP(urllib.request.HTTPHandler):
    def __init__(self, connections: _Connections) -> None:
        super().__init__()
        self._connections = connections

    def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
        return super().do_open(self._connections.track(http_class), req, **kwargs)


class _HTTPS(urllib.request.HTTPSHandler):
    def __init__(self, connections: _Connections) -> None:
        super().__init__()
        self._connections = connections

    def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
        return super().do_open(self._connections.track(http_class), req, **kwargs)


def _attempt(request: urllib.request.Request, timeout: float) -> int:
    """One post, the status of its answer once read whole, within `timeout` seconds for all of it.

    It runs in a thread of its own, so nothing (not a name lookup, a connect, a read) can
    outlast the deadline: past it, its sockets are shut down and TimeoutError is raised at
    once, this thread waiting on nothing the post holds.
    An HTTP error status is raised as urllib's HTTPError, as urllib raises it.
    """
    connections = _Connections()
    opener = urllib.request.build_opener(_NoRedirect, _HTTP(connections), _HTTPS(connections))
    outcome: list[Any] = []

    def post_once() -> None:
        try:
            with opener.open(request, timeout=timeout) as response:
                response.read(RESPONSE_LIMIT)
                outcome.append(response.status)
        except urllib.error.HTTPError as error:
            try:  # the answer's words, read here within the deadline (Slack says why: "invalid_blocks")
                error.answer = error.read(ANSWER_LIMIT)  # type: ignore[attr-defined]
            except (OSError, http.client.HTTPException):
                error.answer = b""  # type: ignore[attr-defined]
            outcome.append(error)
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread as it is
            outcome.append(error)

    worker = threading.Thread(target=post_once, name="lanelog-webhook-post", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive() or not outcome:
        connections.end()
        raise TimeoutError(f"no complete answer within {timeout:g} s")
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    status: int = outcome[0]
    return status


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (seconds or an HTTP date), capped; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value) if value.isdigit() else (
            parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds()
    except (TypeError, ValueError, OverflowError):
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)


def post(receiver: Receiver, message: dict[str, Any], *, timeout: float = TIMEOUT_S,
         sleep: Callable[[float], None] = time.sleep) -> None:
    """POST the message as JSON; retry 429 and 5xx with backoff; raise AlertError when it is not delivered.

    `timeout` bounds each attempt as a whole: connecting, sending and the whole answer
    (ATTEMPTS of them at most, with waits of at most MAX_RETRY_AFTER_S between).  A
    timeout or a network error is not retried: the receiver may have taken the
    message, and the next run sends again.
    """
    body = json.dumps(message).encode("utf-8")
    backoff = FIRST_BACKOFF_S
    for attempt in range(1, ATTEMPTS + 1):
        try:
            request = urllib.request.Request(receiver.url, data=body, method="POST", headers={
                "Content-Type": "application/json", "User-Agent": f"lanelog/{__version__}"})
            status = _attempt(request, timeout)
            if 200 <= status < 300:
                return
            raise AlertError(f"receiver {receiver} answered HTTP {status}; not sent")
        except urllib.error.HTTPError as error:
            status, wait = error.code, _retry_after(error.headers.get("Retry-After") if error.headers else None)
            said = _answer(getattr(error, "answer", b""), receiver)
            error.close()
            if status != 429 and status < 500:
                why = "check the webhook URL" if status in WRONG_URL else "the receiver refused the message"
                raise AlertError(f"receiver {receiver} answered HTTP {status}; not sent ({why})"
                                 + (f", its answer: {said}" if said else "")) from None
            if attempt == ATTEMPTS:
                raise AlertError(f"receiver {receiver} answered HTTP {status} {ATTEMPTS} times; gave up, not sent"
                                 + (f", its last answer: {said}" if said else "")) from None
            sleep(wait if wait is not None else backoff)
            backoff *= 2
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as error:
            raise AlertError(f"receiver {receiver}: {_why(error)} (timeout {timeout:g} s); not sent") from None


def _answer(body: bytes, receiver: Receiver) -> str:
    """A refusal's first line as an error may show it ('"invalid_blocks"'): one line, control characters made
    visible, bounded, the webhook's path never quoted back; '' for an empty answer."""
    line = body.decode("utf-8", "replace").strip().splitlines()[0] if body.strip() else ""
    path = urllib.parse.urlsplit(receiver.url).path
    if len(path) > 1:
        line = line.replace(path, "/…")
    return json.dumps(plain_text(line), ensure_ascii=False) if line else ""


def _why(error: BaseException) -> str:
    """Why a post failed, in words that never quote the URL: from the error's type and its errno only.

    The libraries' own messages may quote the URL's path (http.client's "URL can't contain
    control characters. '/services/...'"), its scheme (urllib's "unknown url type") or the
    receiver's answer; none of them is shown.
    """
    reason = error.reason if isinstance(error, urllib.error.URLError) else error
    if isinstance(reason, TimeoutError):
        return "timed out"
    if isinstance(reason, socket.gaierror):
        return "its host's name does not resolve"
    if isinstance(reason, ssl.SSLCertVerificationError):
        return "its TLS certificate is not trusted"
    if isinstance(reason, ssl.SSLError):
        return "the TLS connection failed"
    if isinstance(reason, http.client.InvalidURL):
        return "the URL cannot be sent"
    if isinstance(reason, http.client.HTTPException):
        return f"the answer is not HTTP ({type(reason).__name__})"
    if isinstance(reason, OSError) and reason.errno:
        return os.strerror(reason.errno)  # the system's words for the errno ("Connection refused")
    return f"the post failed ({type(reason).__name__})"
