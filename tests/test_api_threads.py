"""The API's synchronous endpoints run on a few threads per web worker (API_THREADS), not AnyIO's 40:
issue 12 measured 200 clients deciding at 36-52 a second on 40 threads per worker and 62-78 on 3-8,
the CPU going to threads queueing for the interpreter and for pooled connections."""

from __future__ import annotations

import anyio
import anyio.to_thread
import pytest

from hitl_dashboard.api.threads import DEFAULT_THREADS, api_thread_count, limit_api_threads
from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.settings import reset_settings_cache
from tests.conftest import run_cli
from tests.test_configuration_errors import assert_clean_refusal, bad_env


def _threads_after_start() -> int:
    async def worker_start() -> int:  # what the lifespan task does in each worker, on its own loop
        await limit_api_threads()
        return anyio.to_thread.current_default_thread_limiter().total_tokens

    return anyio.run(worker_start)


@pytest.fixture
def settings_from_env(monkeypatch):
    def apply(**env: str) -> None:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        reset_settings_cache()

    yield apply
    reset_settings_cache()


def test_a_worker_runs_endpoints_on_the_default_few_threads(db_url, settings_from_env):
    settings_from_env(DATABASE_URL=db_url)
    pool = get_engine().pool
    assert pool.size() + pool._max_overflow > DEFAULT_THREADS  # the pool is not what limits it here
    assert _threads_after_start() == DEFAULT_THREADS < 40


def test_api_threads_sets_the_count(db_url, settings_from_env):
    settings_from_env(DATABASE_URL=db_url, API_THREADS="3")
    assert _threads_after_start() == 3


def test_a_pool_smaller_than_the_default_caps_it():
    # A thread past the pool's connections would only wait for one.
    assert api_thread_count(configured=None, connections=2) == 2
    assert api_thread_count(configured=None, connections=30) == DEFAULT_THREADS
    assert api_thread_count(configured=12, connections=2) == 12  # said explicitly: the operator's call


def test_a_bad_thread_count_is_refused_by_name():
    result = run_cli("users", "list", env=bad_env(API_THREADS="0"), check=False)
    [line] = assert_clean_refusal(result, "API_THREADS")
    assert "should be greater than or equal to 1" in line
