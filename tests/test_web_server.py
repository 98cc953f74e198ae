"""The web tier's server and what it costs per open tab (issues 33 and 44, bench/tab_cost.py): Reflex prod runs
under gunicorn + uvicorn with hitl_dashboard/web_worker.py's worker (scripts/common.sh), chosen by measurement
over granian: 141 KB of server memory per idle tab against 246 KB, no more CPU (docs/benchmarks.md). Its
websockets never negotiate permessage-deflate (a compression context per socket measured about 100 KB a
connection), and it leaves X-Forwarded-* to the app (TRUSTED_PROXY_HOPS)."""

from __future__ import annotations

import base64
import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.app_process import free_port

ROOT = Path(__file__).resolve().parent.parent
# What Chromium offers on every websocket.
CHROMIUM_OFFER = "permessage-deflate; client_max_window_bits"


def _in_common_sh(setup: str, probe: str, env: dict[str, str]) -> str:
    script = f'source "{ROOT}/scripts/common.sh"; {setup} exec "{sys.executable}" -c "{probe}"'
    result = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_reflex_runs_the_web_tier_under_gunicorn_and_uvicorn():
    """reflex_env leaves granian; gunicorn is installed (Reflex's prod path without granian needs it)."""
    probe = ("import importlib.util as u; from reflex.utils.exec import should_use_granian; "
             "print(bool(u.find_spec('gunicorn')), should_use_granian())")
    env = {key: value for key, value in os.environ.items() if key != "REFLEX_USE_GRANIAN"}
    assert _in_common_sh("reflex_env;", probe, env) == "True False"
    assert _in_common_sh("REFLEX_USE_GRANIAN=true reflex_env;", probe, env) == "True True"  # the way back


@pytest.mark.parametrize(("given", "expected"), [
    ({}, "--workers 1"),
    ({"REDIS_URL": "redis://x"}, f"--workers {min(2 * (os.cpu_count() or 1) + 1, 8)}"),
    ({"WEB_WORKERS": "3", "REDIS_URL": "redis://x"}, "--workers 3"),
    ({"GRANIAN_WORKERS": "2"}, "--workers 2"),
    ({"GUNICORN_CMD_ARGS": "--keep-alive 5"}, "--workers 1 --timeout 120 --keep-alive 5"),
])
def test_web_server_env_sets_the_worker_and_the_worker_count(given, expected):
    env = {key: value for key, value in os.environ.items()
           if key not in ("WEB_WORKERS", "GRANIAN_WORKERS", "REDIS_URL", "GUNICORN_CMD_ARGS")}
    probe = "import os; print(os.environ['GUNICORN_CMD_ARGS'])"
    args = _in_common_sh("web_server_env;", probe, {**env, **given})
    assert args.startswith("--worker-class hitl_dashboard.web_worker.WebWorker ")
    assert expected in args


APP = '''
async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            kind = "startup" if message["type"] == "lifespan.startup" else "shutdown"
            await send({"type": f"lifespan.{kind}.complete"})
            if kind == "shutdown":
                return
    elif scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        await receive()
    else:
        body = f"{scope['client'][0]} {scope['scheme']}".encode()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % len(body))]})
        await send({"type": "http.response.body", "body": body})
'''


@contextlib.contextmanager
def _gunicorn(tmp_path: Path, worker_class: str) -> Iterator[int]:
    (tmp_path / "wsapp.py").write_text(APP)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    env.pop("GUNICORN_CMD_ARGS", None)
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "--worker-class", worker_class, "--workers", "1",
                               "--bind", f"127.0.0.1:{port}", "--log-level", "warning", "wsapp:app"],
                              cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=10).close()
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "gunicorn did not start"
                time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


def _exchange(port: int, request: str) -> str:
    """The answer's head (a websocket upgrade), or all of it (an HTTP request with Connection: close)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        client.sendall(request.encode())
        answer = b""
        while "Connection: close" in request or b"\r\n\r\n" not in answer:
            chunk = client.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.decode().lower()


@pytest.mark.parametrize(("worker_class", "deflate"), [
    ("hitl_dashboard.web_worker.WebWorker", False),
    ("uvicorn.workers.UvicornH11Worker", True),  # Reflex's own choice: the offer is accepted
])
def test_the_web_worker_answers_a_browsers_deflate_offer_without_compression(tmp_path, worker_class, deflate):
    with _gunicorn(tmp_path, worker_class) as port:
        key = base64.b64encode(os.urandom(16)).decode()
        head = _exchange(port, f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                               f"Sec-WebSocket-Extensions: {CHROMIUM_OFFER}\r\n\r\n").split("\r\n\r\n")[0]
    assert head.startswith("http/1.1 101"), head
    assert ("sec-websocket-extensions: permessage-deflate" in head) is deflate, head


def test_the_web_worker_leaves_forwarded_headers_to_the_app(tmp_path):
    """The peer stays the proxy's address, the scheme the connection's: the app reads X-Forwarded-* itself,
    from TRUSTED_PROXY_HOPS proxies only (uvicorn's default would rewrite both for a proxy on 127.0.0.1)."""
    with _gunicorn(tmp_path, "hitl_dashboard.web_worker.WebWorker") as port:
        answer = _exchange(port, f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Forwarded-For: 203.0.113.9\r\n"
                                 "X-Forwarded-Proto: https\r\nConnection: close\r\n\r\n")
    assert answer.endswith("\r\n\r\n127.0.0.1 http"), answer


def test_the_hosted_tests_start_web_workers_in_serve_sh_environment(monkeypatch):
    """tests/hosted's web workers run as scripts/serve.sh runs one: with reflex_env's choice of server."""
    from tests.hosted.cluster import tool_env

    monkeypatch.delenv("REFLEX_USE_GRANIAN", raising=False)
    assert tool_env()["REFLEX_USE_GRANIAN"] == "false"
