"""After a decision or a claim, the live refresh is told which review queues changed (the roles of
the requests decided, claimed, dismissed or opened), so a web worker reloads only those queues and
the conversation, not every queue (issue 12). Also through Redis, from runner processes."""

from __future__ import annotations

import asyncio

import pytest

from hitl_dashboard.services.live import live
from hitl_dashboard.services.live.live_redis import QUEUE_KEY, RedisPublisherSink, consume
from hitl_dashboard.services.reviews import claims
from tests.support.db_state import use_cheap_passwords
from tests.support.flow import actor, decide_as, make_people, only_open_review, start, work
from tests.support.redis_check import redis_or_skip

REDIS_URL = "redis://127.0.0.1:6379/12"  # a database of its own: another process must not pop our events
# One xdist worker runs them all, so no two of them pop each other's events.
pytestmark = pytest.mark.xdist_group("redis-db-12")


class Recorder:
    def __init__(self):
        self.changes: list[tuple[int, tuple[str, ...] | None]] = []

    async def chunk(self, conversation_id: int, source: str, message_id: str, text: str) -> None:
        return None

    def changed(self, conversation_id: int, roles: tuple[str, ...] | None = None) -> None:
        self.changes.append((conversation_id, roles))


@pytest.fixture
def recorder(db_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    make_people()
    sink = Recorder()
    live.register_sink(sink)
    yield sink
    live._sinks.remove(sink)


def test_a_claim_and_an_approval_touch_only_their_queues_and_the_next_ones(recorder):
    cid = start("Add retry with backoff to the client")
    work()
    review = only_open_review(cid)
    recorder.changes.clear()
    claims.claim(actor("alice"), review.id)
    outcome = decide_as("alice", review.id, "approve")
    roles = {review.required_role}
    if outcome.next_review_id is not None:  # the next sign-off role's queue gained a request
        roles.add(only_open_review(cid).required_role)
    assert len(roles) < 4
    assert recorder.changes == [(cid, (review.required_role,)), (cid, tuple(sorted(roles)))]


def test_a_revision_touches_the_queues_of_the_requests_it_dismisses(recorder):
    cid = start("Add retry with backoff to the client")
    work()
    review = only_open_review(cid)
    recorder.changes.clear()
    decide_as("alice", review.id, "revise", instructions="add a timeout")
    assert recorder.changes == [(cid, (review.required_role,))]


def test_a_replayed_decision_touches_no_queue(recorder):
    cid = start("Add retry with backoff to the client")
    work()
    review = only_open_review(cid)
    decide_as("alice", review.id, "approve", idempotency_key="once")
    recorder.changes.clear()
    assert decide_as("alice", review.id, "approve", idempotency_key="once").replayed
    assert recorder.changes == [(cid, ())]


def test_the_roles_travel_through_redis_from_runner_processes():
    redis_or_skip(REDIS_URL).delete(QUEUE_KEY)
    publisher = RedisPublisherSink(REDIS_URL)
    publisher.changed(7, ("security_reviewer",))
    publisher.changed(8)  # a runner that cannot tell: every queue

    async def receive() -> list:
        got: list = []
        both = asyncio.Event()

        def on_changed(conversation_id: int, roles: tuple[str, ...] | None) -> None:
            got.append((conversation_id, roles))
            if len(got) == 2:
                both.set()

        async def on_stream(*_args) -> None:
            return None

        consumer = asyncio.create_task(consume(REDIS_URL, on_changed, on_stream))
        try:
            await asyncio.wait_for(both.wait(), 30)
        finally:
            consumer.cancel()
        return got

    assert asyncio.run(receive()) == [(7, ("security_reviewer",)), (8, None)]
