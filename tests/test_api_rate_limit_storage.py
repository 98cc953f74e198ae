"""The rate limiter itself: counts shared through Redis by every web worker, memory otherwise,
and an unreachable Redis lets requests through instead of failing them."""

from __future__ import annotations

import os
import uuid

from fastapi import HTTPException

from hitl_dashboard.api.rate_limits import RateLimiter
from tests.e2e.app_process import free_port
from tests.support.redis_check import redis_or_skip

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def refused(limiter: RateLimiter, key: str) -> HTTPException | None:
    try:
        limiter.check_token(key)
    except HTTPException as exc:
        return exc
    return None


def test_two_workers_share_one_budget_through_redis() -> None:
    redis_or_skip(REDIS_URL)
    worker_a = RateLimiter(REDIS_URL, "3/minute", "1000/minute")
    worker_b = RateLimiter(REDIS_URL, "3/minute", "1000/minute")
    key = uuid.uuid4().hex
    assert refused(worker_a, key) is None and refused(worker_b, key) is None and refused(worker_a, key) is None
    exc = refused(worker_b, key)
    assert exc is not None and exc.status_code == 429
    assert 1 <= int(exc.headers["Retry-After"]) <= 60
    assert refused(worker_b, uuid.uuid4().hex) is None  # another token


def test_memory_storage_and_several_limits() -> None:
    limiter = RateLimiter("memory://", "2/second;3/minute", "1000/minute")
    key = uuid.uuid4().hex
    assert refused(limiter, key) is None and refused(limiter, key) is None
    assert refused(limiter, key).status_code == 429


def test_unreachable_redis_fails_open() -> None:
    limiter = RateLimiter(f"redis://127.0.0.1:{free_port()}/0", "1/minute", "1/minute")
    for _ in range(3):
        assert refused(limiter, "any") is None
        limiter.check_address("127.0.0.1")
