"""A webhook receiver on 127.0.0.1 for the tests: records every POST (headers and raw body).

`receiver` (a fixture, registered from tests/conftest.py) or `with receiving(...) as receiver:` start
one on a free port and stop it however the test ends."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.e2e.app_process import free_port


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    port: int
    status: int = 200
    delay_s: float = 0.0
    hold: threading.Event | None = None  # set: every POST waits for it before answering
    holding: int = 0  # POSTs read and waiting for `hold`
    received: list[Received] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                time.sleep(receiver.delay_s)
                if receiver.hold is not None:
                    receiver.holding += 1
                    receiver.hold.wait(30)
                receiver.received.append(Received({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(receiver.status)
                self.end_headers()

            def log_message(self, *args) -> None:  # keep the test output quiet
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.hold is not None:
            self.hold.set()  # no POST left waiting for its answer
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


@contextlib.contextmanager
def receiving(**options: Any) -> Iterator[Receiver]:
    """A started receiver on a free port (options: status, delay_s, hold), stopped after the block."""
    started = Receiver(free_port(), **options).start()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as started:
        yield started
