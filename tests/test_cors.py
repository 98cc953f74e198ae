"""CORS over real HTTP against the served app: only the configured PUBLIC_URL is an allowed
origin, for /api and for the websocket handshake (both allow credentials, so any origin would
let a foreign page act with the user's cookies)."""

from __future__ import annotations

import base64
import os
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support.api_app import ApiApp, start_app

PUBLIC = "https://review.example.test"
FOREIGN = "https://evil.example.test"


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Iterator[ApiApp]:
    yield from start_app(tmp_path_factory, "sqlite", PUBLIC_URL=PUBLIC)


def test_a_foreign_origin_gets_no_cors_grant(app: ApiApp) -> None:
    response = httpx.get(f"{app.base_url}/api/health", headers={"Origin": FOREIGN}, timeout=10)
    assert response.status_code == 200
    # Starlette still sends Allow-Credentials; without Allow-Origin the browser hides the response.
    assert "access-control-allow-origin" not in response.headers


def test_the_public_url_is_granted(app: ApiApp) -> None:
    response = httpx.get(f"{app.base_url}/api/health", headers={"Origin": PUBLIC}, timeout=10)
    assert response.headers["access-control-allow-origin"] == PUBLIC
    assert response.headers["access-control-allow-credentials"] == "true"


def test_a_foreign_preflight_is_refused(app: ApiApp) -> None:
    headers = {"Origin": FOREIGN, "Access-Control-Request-Method": "POST",
               "Access-Control-Request-Headers": "authorization"}
    response = httpx.options(f"{app.base_url}/api/conversations", headers=headers, timeout=10)
    assert response.status_code == 400
    assert "access-control-allow-origin" not in response.headers
    allowed = httpx.options(f"{app.base_url}/api/conversations", headers={**headers, "Origin": PUBLIC}, timeout=10)
    assert allowed.status_code == 200 and allowed.headers["access-control-allow-origin"] == PUBLIC


def websocket_handshake_status(base_url: str, origin: str) -> int:
    """The HTTP status of a websocket upgrade of Reflex's event socket, sent from `origin`."""
    parts = urlsplit(base_url)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET /_event/?EIO=4&transport=websocket HTTP/1.1\r\nHost: {parts.netloc}\r\n"
               f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               f"Sec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n")
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(request.encode())
        status_line = sock.makefile("rb").readline().decode()
    return int(status_line.split()[1])


def test_the_websocket_refuses_a_foreign_origin(app: ApiApp) -> None:
    assert websocket_handshake_status(app.base_url, PUBLIC) == 101
    assert websocket_handshake_status(app.base_url, FOREIGN) != 101


def test_allowed_origins_come_from_public_url() -> None:
    from pydantic import ValidationError

    from hitl_dashboard.settings import Settings

    assert Settings(public_url="https://review.example.com/").allowed_origins() == ["https://review.example.com"]
    # A loopback address has two spellings for the same server; both reach it.
    assert Settings(public_url="http://127.0.0.1:3000").allowed_origins() == [
        "http://127.0.0.1:3000", "http://localhost:3000"]
    with pytest.raises(ValidationError, match=r"is not an http\(s\) URL"):
        Settings(public_url="review.example.com")
