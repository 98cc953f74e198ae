"""Ending a user's sessions reaches their open tabs: the per-user tab registry (in this process or in
Redis), and the event from a process without browsers (the CLI) through Redis to a web worker."""

from __future__ import annotations

import asyncio

import pytest

from hitl_dashboard.services.live import live
from hitl_dashboard.services.live.live_redis import RedisPublisherSink, consume
from hitl_dashboard.services.live.user_tabs import LocalUserTabs, RedisUserTabs
from tests.support.redis_check import redis_or_skip

REDIS_URL = "redis://127.0.0.1:6379/14"  # a database of its own: emptied by these tests
pytestmark = pytest.mark.xdist_group("redis-db-14")


@pytest.fixture(params=["memory", "redis"])
def tabs(request) -> LocalUserTabs | RedisUserTabs:
    if request.param == "memory":
        return LocalUserTabs()
    redis_or_skip(REDIS_URL).flushdb()
    return RedisUserTabs(REDIS_URL)


def test_the_registry_keeps_each_users_tabs(tabs) -> None:
    async def scenario() -> None:
        await tabs.add(1, "tab-a")
        await tabs.add(1, "tab-b")
        await tabs.add(1, "tab-a")  # every page of a tab registers it again: once is kept
        await tabs.add(2, "tab-c")
        assert (await tabs.tabs(1), await tabs.tabs(2), await tabs.tabs(3)) == (["tab-a", "tab-b"], ["tab-c"], [])
        await tabs.forget(1, "tab-a")
        assert await tabs.tabs(1) == ["tab-b"]

    asyncio.run(scenario())


def test_a_cli_process_ends_sessions_through_redis(monkeypatch) -> None:
    redis_or_skip(REDIS_URL).flushdb()
    monkeypatch.setattr(live, "_sinks", [])
    live.register_sink(RedisPublisherSink(REDIS_URL))  # what the CLI installs when REDIS_URL is set

    async def scenario() -> list[int]:
        ended: list[int] = []
        got = asyncio.Event()

        def on_ended(user_id: int) -> None:
            ended.append(user_id)
            got.set()

        worker = asyncio.create_task(consume(REDIS_URL, lambda *_: None, _no_stream, on_ended))
        live.publish_sessions_ended(42)
        await asyncio.wait_for(got.wait(), 10)
        worker.cancel()
        return ended

    assert asyncio.run(scenario()) == [42]


async def _no_stream(*_args) -> None:
    return None
