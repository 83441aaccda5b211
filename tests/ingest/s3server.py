"""A real S3 API server on 127.0.0.1 for the object-store tests, and a proxy in front of it.

moto's standalone server speaks the S3 protocol over HTTP. It runs with IAM
authentication on, so a request signed with a wrong secret is refused as
S3 refuses it. The proxy forwards bytes to it, records each request line,
can hold the first object read until a hook has run (an object deleted or
replaced between the listing and the read), can cut every connection
after a number of object reads (the network gone mid-run), and can answer
object reads a byte a second (a store that drips).  `silent_server` accepts
connections and never answers.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import boto3
from moto.core.authorization import enable_iam_authentication
from moto.server import ThreadedMotoServer

REGION = "us-east-1"
_REQUEST_LINE = re.compile(rb"^(GET|PUT|HEAD|POST|DELETE) (\S+) HTTP/1\.[01]\r\n")


@dataclass
class S3:
    """The running server: its endpoint and the one IAM user's credentials."""

    endpoint: str
    key_id: str
    secret: str

    def env(self, **extra: str) -> dict[str, str]:
        """The standard AWS environment for lanelog: these credentials and no profile or instance role."""
        return {
            "AWS_ACCESS_KEY_ID": self.key_id,
            "AWS_SECRET_ACCESS_KEY": self.secret,
            "AWS_DEFAULT_REGION": REGION,
            "AWS_CONFIG_FILE": "/nonexistent/aws-config",
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
            "AWS_EC2_METADATA_DISABLED": "true",
            **extra,
        }

    def client(self):  # type: ignore[no-untyped-def]
        return boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION,
                            aws_access_key_id=self.key_id, aws_secret_access_key=self.secret)

    def bucket(self) -> str:
        """A new empty bucket of its own for one test."""
        name = f"lanes-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name


@contextmanager
def running_s3() -> Iterator[S3]:
    """moto's server on a free port of 127.0.0.1, with an IAM user allowed every S3 action."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # the server's access log: a line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        iam = boto3.client("iam", endpoint_url=endpoint, region_name=REGION,
                           aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap")
        # moto keeps its accounts in the process, not the server: a second server started by
        # another test module in the same process already knows the first one's user.
        user = f"ci-{uuid.uuid4().hex[:8]}"
        iam.create_user(UserName=user)
        iam.put_user_policy(UserName=user, PolicyName="s3", PolicyDocument=json.dumps({
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}],
        }))
        key = iam.create_access_key(UserName=user)["AccessKey"]
        with enable_iam_authentication():
            yield S3(endpoint, key["AccessKeyId"], key["SecretAccessKey"])
    finally:
        server.stop()


@dataclass
class Proxy:
    """A TCP proxy to the server on a port of its own; `endpoint` is what lanelog is pointed at."""

    target: tuple[str, int]
    cut_after_reads: int | None = None  # object GETs forwarded before every connection is cut
    before_first_read: Callable[[], None] | None = None
    drip_reads: bool = False  # each object read's answer forwarded one byte a second
    requests: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.endpoint = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._reads = 0
        self._cut = False
        threading.Thread(target=self._accept, daemon=True).start()

    def object_reads(self) -> list[str]:
        """The paths of the object GETs seen (listings are GETs with a query, and left out)."""
        return [path for method, path in self.requests if method == "GET" and "?" not in path]

    def listings(self) -> list[str]:
        return [path for method, path in self.requests if method == "GET" and "list-type=2" in path]

    def close(self) -> None:
        with self._lock:
            self._cut_all()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self._lock:
                if self._cut:
                    client.close()
                    upstream.close()
                    continue
                self._sockets += [client, upstream]
            dripping = threading.Event()  # set once this connection has asked for an object
            threading.Thread(target=self._pipe, args=(client, upstream, True, dripping), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False, dripping), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, from_client: bool, dripping: threading.Event) -> None:
        try:
            while data := source.recv(65536):
                if from_client:
                    if not self._request(data):
                        return
                    asked = _REQUEST_LINE.match(data)
                    if self.drip_reads and asked is not None and asked[1] == b"GET" and b"?" not in asked[2]:
                        dripping.set()
                    sink.sendall(data)
                elif dripping.is_set():
                    for index in range(len(data)):
                        sink.sendall(data[index:index + 1])
                        time.sleep(1)
                else:
                    sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _request(self, data: bytes) -> bool:
        """Record a request line; False when the connection is to be cut instead of forwarded."""
        match = _REQUEST_LINE.match(data)
        if match is None:
            return not self._cut
        method, path = match[1].decode(), match[2].decode()
        with self._lock:  # reads wait here while the hook runs
            self.requests.append((method, path))
            if method == "GET" and "?" not in path:
                if self._reads == 0 and self.before_first_read is not None:
                    self.before_first_read()
                if self.cut_after_reads is not None and self._reads >= self.cut_after_reads:
                    self._cut_all()
                self._reads += 1
            return not self._cut

    def _cut_all(self) -> None:
        self._cut = True
        self._listener.close()
        for sock in self._sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


@contextmanager
def silent_server() -> Iterator[tuple[str, threading.Event]]:
    """An endpoint on 127.0.0.1 that accepts every connection and never says a word; the event
    is set once a connection has been accepted."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return
            accepted.set()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", accepted
    finally:
        listener.close()
        for sock in held:
            sock.close()
