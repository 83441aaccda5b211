"""A real webhook receiver on 127.0.0.1 for the alert tests: it records each post and answers as scripted."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.loopback import serving

# How often a dripping receiver sends a byte: a tenth of a second, so that 300 bytes take 30 s,
# longer than any test waits, while each read comes well within any deadline a test sets.
DRIP_S = 0.1


@dataclass
class Answer:
    """How the receiver answers one post: a status, headers, and a pause before answering."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    during: Callable[[], None] | None = None  # run after the post is read, before it is answered
    body: bytes = b"ok"


@dataclass
class Receiver:
    """What the server got and how it answers next (the last answer repeats)."""

    url: str
    answers: list[Answer] = field(default_factory=lambda: [Answer()])
    posts: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)

    def next_answer(self) -> Answer:
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


@contextmanager
def receiver(path: str = "/services/T0001/B0002/XyZsecretToken42") -> Iterator[Receiver]:
    """An HTTP receiver in a thread; its URL holds a secret-looking path, as a Slack webhook's does."""
    state: Receiver

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            answer = state.next_answer()
            state.paths.append(self.path)
            state.posts.append({"status": answer.status, "body": json.loads(body),
                                "content_type": self.headers.get("Content-Type")})
            if answer.during is not None:
                answer.during()
            if answer.delay:
                time.sleep(answer.delay)
            try:
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state = Receiver(url=f"http://127.0.0.1:{server.server_address[1]}{path}")
    with serving(server):
        yield state


@contextmanager
def silent_receiver(path: str = "/hooks/silentSecret99") -> Iterator[str]:
    """A socket that accepts connections and never reads or answers: the URL to post to."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}{path}"
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        listener.close()


@contextmanager
def dripping_receiver(path: str = "/hooks/dripSecret55", *, version: str = "1.1", drip: str = "whole",
                      length: int | None = 300, sent: int = 300) -> Iterator[tuple[str, list[bytes]]]:
    """A receiver that reads each post whole, then answers 200, slowly: every read of it comes in
    time, and the answer never ends in any time a test waits.  The URL, and the request bodies it read.

    ``version`` is the answer's HTTP version; ``drip`` what comes a byte every DRIP_S seconds: the ``whole``
    answer, its ``headers`` (the status line at once), or its ``body`` (the head at once);
    ``length`` the Content-Length it announces (None: none, so an HTTP/1.0 answer is read until
    the connection closes); ``sent`` the bytes of body it sends, after which it holds the
    connection open and says nothing.
    """
    listener = socket.create_server(("127.0.0.1", 0))
    bodies: list[bytes] = []
    stop = threading.Event()
    status = f"HTTP/{version} 200 OK\r\n".encode()
    head = status + (f"Content-Length: {length}\r\n".encode() if length is not None else b"") + b"\r\n"
    answer = head + b"." * sent
    at_once = {"whole": 0, "headers": len(status), "body": len(head)}[drip]

    def serve(conn: socket.socket) -> None:
        with conn:
            body = _read_post(conn)
            if body is None:
                return
            bodies.append(body)
            try:
                conn.sendall(answer[:at_once])
                for index in range(at_once, len(answer)):
                    if stop.wait(DRIP_S):
                        return
                    conn.sendall(answer[index:index + 1])
            except OSError:
                return
            stop.wait()  # the rest never comes

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}{path}", bodies
    finally:
        stop.set()
        listener.close()


def _read_post(conn: socket.socket) -> bytes | None:
    """The body of the request on conn, read whole by its Content-Length; None when the client left."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        body += chunk
    return body


@contextmanager
def echoing_receiver(path: str = "/hooks/echoSecret66") -> Iterator[str]:
    """A receiver whose answer is no HTTP: it sends the request's first line back as its status line (a
    broken proxy quoting the path, which holds the webhook's secret).  The URL."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                if _read_post(conn) is not None:
                    request_line = f"POST {path} HTTP/1.1".encode()
                    conn.sendall(request_line + b"\r\n\r\n")

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}{path}"
    finally:
        listener.close()


def refused_url(path: str = "/hooks/refusedSecret77") -> str:
    """A URL on a port nothing listens on (bound, then closed): connecting is refused."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return f"http://127.0.0.1:{port}{path}"
