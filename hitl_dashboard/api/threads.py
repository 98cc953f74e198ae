"""How many threads run the API's synchronous endpoints in one web worker.

Starlette runs a synchronous endpoint on AnyIO's default thread limiter: 40 threads per worker.
Every endpoint here spends most of its time in Python with a database connection held, and only
short moments waiting for the database, so a few threads keep a core busy; past that, extra
threads only queue for the interpreter lock and for connections, and under load the worker spends
its CPU switching between them (issue 12). The Reflex event handlers' threads are not these."""

from __future__ import annotations

import logging

import anyio.to_thread

log = logging.getLogger(__name__)


# bench/decisions_api.py, 200 clients on 2 cores (docs/benchmarks-history.md, stop 22): 3-8 threads per worker
# decided 62-78 a second, 16 threads 62, AnyIO's 40 threads 36-52.
DEFAULT_THREADS = 6


def api_thread_count(*, configured: int | None, connections: int | None) -> int:
    """API_THREADS when set; else DEFAULT_THREADS, and never more than the worker's connection pool
    (pool + overflow) holds: a thread without a connection only waits for one."""
    if configured is not None:
        return configured
    return max(1, min(DEFAULT_THREADS, connections)) if connections is not None else DEFAULT_THREADS


async def limit_api_threads() -> None:
    """A lifespan task (once per web worker, on its event loop: the limiter belongs to the loop)."""
    from hitl_dashboard.services.schema import connections_per_worker
    from hitl_dashboard.settings import get_settings

    threads = api_thread_count(configured=get_settings().api_threads, connections=connections_per_worker())
    anyio.to_thread.current_default_thread_limiter().total_tokens = threads
    log.info("API endpoints run on %d threads in this worker", threads)
