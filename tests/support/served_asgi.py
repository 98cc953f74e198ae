"""An ASGI app (or several, on ports of their own) served over real HTTP by uvicorn in a thread of the
test's process, on a free port of 127.0.0.1: the API app (served_api, built after the test set its
database; served_apis: several instances, the web workers of one deployment) or a test's own server."""

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
    with serving_together([app], lifespan=lifespan) as [base_url]:
        yield base_url


@contextlib.contextmanager
def serving_together(apps: list[Any], *, lifespan: str = "auto") -> Iterator[list[str]]:
    """Serves each app on a port of its own, all in one thread's event loop (as separate processes
    would, they share nothing but what the process shares: the database, module state), until the
    block ends; their base URLs."""
    import asyncio

    import uvicorn

    servers = [uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning",
                                             lifespan=lifespan, timeout_graceful_shutdown=2)) for app in apps]

    async def serve_all() -> None:
        await asyncio.gather(*(server.serve() for server in servers))

    thread = threading.Thread(target=asyncio.run, args=(serve_all(),), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not all(server.started for server in servers):
            assert time.monotonic() < deadline and thread.is_alive(), "a server did not start"
            time.sleep(0.01)
        yield [f"http://127.0.0.1:{server.config.port}" for server in servers]
    finally:
        for server in servers:
            server.should_exit = True
        thread.join(10)


@contextlib.contextmanager
def served_api(*, lifespan: str = "auto") -> Iterator[str]:
    """The real FastAPI app (create_api, on the test's database); lifespan "on" runs the MCP gateway."""
    with served_apis(1, lifespan=lifespan) as [base_url]:
        yield base_url


@contextlib.contextmanager
def served_apis(count: int, *, lifespan: str = "auto") -> Iterator[list[str]]:
    """`count` instances of the real app, each with its own MCP gateway, on ports of their own: the web
    workers of one deployment (settings read as the test set them)."""
    reset_settings_cache()
    from hitl_dashboard.api.app import create_api

    try:
        with serving_together([create_api() for _ in range(count)], lifespan=lifespan) as base_urls:
            yield base_urls
    finally:
        reset_settings_cache()
