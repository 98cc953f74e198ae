"""Helpers the benchmarks share: a temporary database (SQLite file or a PostgreSQL database created
and dropped here), the API served over real HTTP by granian (the server Reflex runs), percentiles.
Not a benchmark itself (scripts/bench.sh runs only files that do not start with an underscore)."""

from __future__ import annotations

import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The scripted model's pace, set explicitly: its default streams at a readable demo pace, which would
# be measured as ours. A benchmark that wants a pace (live_transcript) sets its own after this.
SCRIPTED_PACE = {"SCRIPTED_DELAY_MS": "0", "SCRIPTED_CHUNK_DELAY_MS": "0"}
os.environ.update(SCRIPTED_PACE)
PG_ADMIN_URL = os.environ.get("BENCH_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
BACKENDS = ("sqlite", "postgresql")


def use_database(url: str, **settings: str) -> None:
    """Point this process's settings at `url` (and any other settings given as env names), with the
    start-up's listeners installed: benchmarks write through services in-process."""
    from hitl_dashboard import listeners
    from hitl_dashboard.settings import reset_settings_cache

    os.environ.update(DATABASE_URL=url, **settings)
    reset_settings_cache()
    listeners.install()


@contextlib.contextmanager
def temporary_database(backend: str) -> Iterator[str]:
    """A migrated, empty database that this process's settings point at; removed afterwards. The audit
    anchor file and the deploy log go to the same temporary folder."""
    import psycopg

    from hitl_dashboard.db.engine import get_engine
    from hitl_dashboard.db.migrations import upgrade_to_head

    with tempfile.TemporaryDirectory(prefix="hitl-bench-") as tmp:
        name = None
        if backend == "sqlite":
            url = f"sqlite:///{tmp}/bench.db"
        else:
            name = f"hitl_bench_{uuid.uuid4().hex[:10]}"
            with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}"')
            url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
        use_database(url, AUDIT_ANCHOR_FILE=f"{tmp}/audit-heads.jsonl", DEPLOY_LOG_PATH=f"{tmp}/deploys.jsonl")
        try:
            upgrade_to_head()
            yield url
        finally:
            get_engine(url).dispose()
            if name:
                with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serve_api(database_url: str) -> Iterator[str]:
    """The FastAPI app (hitl_dashboard.api.app) under granian; yields the base URL."""
    with serving("hitl_dashboard.api.app:api", database_url) as (base, _server):
        yield base


@contextlib.contextmanager
def serving(target: str, database_url: str, *, factory: bool = False) -> Iterator[tuple[str, subprocess.Popen]]:
    """An ASGI app (`module:attribute`, or a function returning the app with factory=True) under
    granian, one worker, on a free loopback port; rate limits out of the way. Yields the base URL and
    the granian process (its worker is a child: see the RSS helpers); the server is stopped after."""
    port = free_port()
    unlimited = "1000000/minute"
    env = {**os.environ, "DATABASE_URL": database_url, "API_RATE_LIMIT": unlimited,
           "API_ADDRESS_RATE_LIMIT": unlimited, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [sys.executable, "-m", "granian", "--interface", "asgi", *(["--factory"] if factory else []),
         "--host", "127.0.0.1", "--port", str(port), "--workers", "1", "--no-access-log",
         "--log-level", "warning", target],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answers(server, f"{base}/api/health", 60, lambda: server.stderr.read().decode()[-2000:])
        yield base, server
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def wait_until_answers(server: subprocess.Popen, url: str, timeout: float, output: Callable[[], str]) -> None:
    """Poll `url` until it answers (below 500); fail with the server's last output if it exits first."""
    import httpx

    deadline = time.monotonic() + timeout
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited: {output()}")
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server did not answer within {timeout:.0f} s")
        time.sleep(0.2)


def timed_ms(call: Callable[[], object], samples: int, warmup: int = 3) -> list[float]:
    for _ in range(warmup):
        call()
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return times


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]
