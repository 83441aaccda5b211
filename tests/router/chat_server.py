"""A real chat-completions server on 127.0.0.1 for the model-runner tests: it answers from a script and
records what each request sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.loopback import serving


@dataclass
class Reply:
    """One scripted answer: a status, the message text, usage, headers, or a stall."""

    status: int = 200
    content: str | None = "hold"
    usage: dict[str, Any] | None = field(default_factory=lambda: {"prompt_tokens": 1200,
                                                                   "completion_tokens": 1})
    headers: dict[str, str] = field(default_factory=dict)
    stall: float = 0.0
    error: dict[str, Any] | None = None  # the body of an error answer


class ChatServer:
    """Answers POST /v1/chat/completions from a script; the last reply repeats."""

    def __init__(self) -> None:
        self.replies: list[Reply] = [Reply()]
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                server.requests.append(json.loads(self.rfile.read(length)))
                server.headers.append(dict(self.headers.items()))
                reply = server.replies[min(len(server.requests) - 1, len(server.replies) - 1)]
                if reply.stall:
                    server.stop.wait(reply.stall)
                body: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion",
                                        "model": "test-model-2026"}
                if reply.status == 200:
                    body["choices"] = [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": reply.content}}]
                    if reply.usage is not None:
                        body["usage"] = reply.usage
                else:
                    body = {"error": reply.error or {"message": "busy", "type": "server_error"}}
                data = json.dumps(body).encode()
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the runner gave up waiting (the timeout case)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def script(self, *replies: Reply) -> None:
        self.replies = list(replies)


@contextmanager
def running_chat() -> Iterator[ChatServer]:
    """A ChatServer serving in a thread until the block ends; a stalled reply is let go at the end."""
    server = ChatServer()
    with serving(server.httpd):
        try:
            yield server
        finally:
            server.stop.set()
