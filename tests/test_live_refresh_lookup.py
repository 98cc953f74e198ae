"""A live refresh pass asks once which of the feeds it touched some tab watches (ui/live.py
`refresh`), then reads and sends only those (the fan-out asks for their tabs again after the read,
so a tab that began watching meanwhile is not left out); the stores answer that one
question for many feeds at once (in Redis: one pipelined round trip), and a streamed update saves
its text and learns its watchers in one round trip too."""

from __future__ import annotations

import asyncio

import pytest

from hitl_dashboard.services.live.streams import LocalStreams, RedisStreams, Stream
from hitl_dashboard.ui import live as live_ui
from hitl_dashboard.ui.fanout import watchers_store
from tests.support.redis_check import redis_or_skip

REDIS_URL = "redis://127.0.0.1:6379/13"  # a database of its own: emptied by this test
# One xdist worker runs them all: a test on another worker would empty it under this one.
pytestmark = pytest.mark.xdist_group("redis-db-13")


@pytest.fixture(params=["memory", "redis"])
def store(request) -> LocalStreams | RedisStreams:
    if request.param == "memory":
        return LocalStreams()
    redis_or_skip(REDIS_URL).flushdb()
    return RedisStreams(REDIS_URL)


def test_the_store_names_the_watched_feeds_only(store):
    async def scenario():
        await store.watch("conv-1", "tab-a")
        await store.watch("conv-1", "tab-b")
        await store.watch("queue-security-reviewer", "tab-c")
        await store.watch("conv-9", "tab-d")
        await store.watch("conv-3", "tab-d")  # a tab shows one page: it left conv-9
        found = await store.watched(
            ["conv-1", "conv-2", "conv-9", "conv-3", "queue-security-reviewer", "queue-product-reviewer"]
        )
        assert found == {"conv-1", "conv-3", "queue-security-reviewer"}
        assert {feed: sorted(await store.watchers(feed)) for feed in found} == {
            "conv-1": ["tab-a", "tab-b"],
            "conv-3": ["tab-d"],
            "queue-security-reviewer": ["tab-c"],
        }
        await store.forget("conv-3", "tab-d")  # its last tab gone: nobody watches it
        assert await store.watched(["conv-3", "conv-1"]) == {"conv-1"}
        assert await store.watched([]) == set()

    asyncio.run(scenario())


def test_a_pass_refreshes_only_what_is_watched(monkeypatch):
    sent: list[tuple] = []

    async def conversation(_app, conversation_id, outbox=None):
        if conversation_id == 4:
            raise RuntimeError("this conversation's view is broken")
        sent.append(("conversation", conversation_id))

    async def queue(_app, role, workspace_id, outbox=None):
        sent.append(("queue", role, workspace_id))

    monkeypatch.setattr(live_ui, "refresh_conversation", conversation)
    monkeypatch.setattr(live_ui, "refresh_queue", queue)
    monkeypatch.setattr(live_ui, "workspace_ids", lambda: [1, 2])

    async def scenario():
        store = watchers_store()  # this process's store (no REDIS_URL in the tests' settings)
        await store.watch("conv-2", "tab-x")
        await store.watch("conv-4", "tab-z")
        await store.watch("conv-5", "tab-w")
        await store.watch("queue-w2-final-approver", "tab-y")
        await live_ui.refresh(object(), [1, 2, 3, 4, 5], ("security_reviewer", "final_approver"))

    asyncio.run(scenario())
    # Conversations 1 and 3, the security queues and workspace 1's final queue: nobody watches them,
    # nothing is read. Conversation 4 fails and the feeds after it are still refreshed.
    assert sent == [("conversation", 2), ("conversation", 5), ("queue", "final_approver", 2)]


def test_saving_a_stream_answers_who_watches_its_conversation(store):
    async def scenario():
        await store.watch("conv-7", "tab-a")
        await store.watch("conv-8", "tab-b")
        stream = Stream("coder", "def retry(", Stream.now_ms())
        assert await store.save(7, stream, "conv-7") == ["tab-a"]
        assert await store.current(7) == stream  # a tab opening mid-stream starts from it
        assert await store.save(9, stream, "conv-9") == []

    asyncio.run(scenario())
