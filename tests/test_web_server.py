"""The web tier's server and what it costs per open tab (issue 33, bench/tab_cost.py): Reflex prod runs under
granian, whose websockets never negotiate permessage-deflate, so no socket holds a compression context.
uvicorn (which Reflex picks instead as soon as gunicorn is importable) accepts deflate by default: measured
117 KB of server RSS a connection with it, 18 KB without (docs/benchmarks.md)."""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.e2e.app_process import free_port

ROOT = Path(__file__).resolve().parent.parent
# What Chromium offers on every websocket.
CHROMIUM_OFFER = "permessage-deflate; client_max_window_bits"


def test_reflex_runs_the_web_tier_under_granian_even_with_gunicorn_installed(tmp_path):
    """scripts/common.sh's reflex_env pins granian; a gunicorn on the path (here an empty package) would
    otherwise make Reflex serve prod with gunicorn + uvicorn."""
    (tmp_path / "gunicorn").mkdir()
    (tmp_path / "gunicorn" / "__init__.py").write_text("")
    probe = ("import importlib.util as u; from reflex.utils.exec import should_use_granian; "
             "print(bool(u.find_spec('gunicorn')), should_use_granian())")
    env = {key: value for key, value in os.environ.items() if key != "REFLEX_USE_GRANIAN"}
    env["PYTHONPATH"] = str(tmp_path)

    def probe_with(setup: str) -> str:
        script = f'source "{ROOT}/scripts/common.sh"; {setup} exec "{sys.executable}" -c "{probe}"'
        result = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        return result.stdout.split()[-2] + " " + result.stdout.split()[-1]

    assert probe_with("") == "True False"  # without the pin, Reflex would leave granian
    assert probe_with("reflex_env;") == "True True"


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
'''


def test_granian_answers_a_browsers_deflate_offer_without_compression(tmp_path):
    (tmp_path / "wsapp.py").write_text(APP)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "granian", "--interface", "asgi", "--port", str(port),
                               "--workers", "1", "--log-level", "warning", "wsapp:app"],
                              cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                client = socket.create_connection(("127.0.0.1", port), timeout=10)
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "granian did not start"
                time.sleep(0.1)
        with client:
            key = base64.b64encode(os.urandom(16)).decode()
            client.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                            f"Sec-WebSocket-Extensions: {CHROMIUM_OFFER}\r\n\r\n").encode())
            answer = b""
            while b"\r\n\r\n" not in answer:
                chunk = client.recv(4096)
                assert chunk, answer
                answer += chunk
        head = answer.split(b"\r\n\r\n")[0].decode().lower()
        assert head.startswith("http/1.1 101"), head
        assert "sec-websocket-extensions" not in head, head
    finally:
        server.terminate()
        server.wait(timeout=20)
