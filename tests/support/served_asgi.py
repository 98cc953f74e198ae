"""An ASGI app served over real HTTP by uvicorn in a thread of the test's process, on a free port of
127.0.0.1: the API app (served_api, built after the test set its database) or a test's own server."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

from hitl_dashboard.settings import reset_settings_cache
from tests.e2e.app_process import free_port


@contextlib.contextmanager
def serving_asgi(app: Any, *, lifespan: str = "auto") -> Iterator[str]:
    """Serves `app` until the block ends; its base URL."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning",
                                           lifespan=lifespan, timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
            time.sleep(0.01)
        yield f"http://127.0.0.1:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextlib.contextmanager
def served_api(*, lifespan: str = "auto") -> Iterator[str]:
    """The real FastAPI app (create_api, on the test's database); lifespan "on" runs the MCP gateway."""
    reset_settings_cache()
    from hitl_dashboard.api.app import create_api

    try:
        with serving_asgi(create_api(), lifespan=lifespan) as base_url:
            yield base_url
    finally:
        reset_settings_cache()
