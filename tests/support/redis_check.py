"""Tests that need the Redis at 127.0.0.1:6379: a client, or a skip where there is none (a failure
in CI, where the hosted setup must be tested)."""

from __future__ import annotations

import pytest

from tests.conftest import IN_CI


def redis_or_skip(url: str):
    """A client of the Redis database at `url`, once it answered a ping."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        if IN_CI:
            pytest.fail(f"Redis not reachable at {url}: {exc} (CI=true: Redis tests must run)")
        pytest.skip(f"Redis not reachable at {url}: {exc}")
    return client
