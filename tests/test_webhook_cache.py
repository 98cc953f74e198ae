"""Events nobody subscribed to cost no webhook query (services/webhooks/webhook_cache.py), and a
webhook added in another process still gets every event from WEBHOOK_CACHE_SECONDS after its commit
on; one added in this process, from its commit on. Time is moved forward, not waited for."""

from __future__ import annotations

import pytest
from sqlalchemy import event, text
from sqlmodel import select

from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.models import WebhookDelivery
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.webhooks import webhook_cache, webhooks
from hitl_dashboard.settings import get_settings


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(db_url, monkeypatch):
    webhook_cache.invalidate()
    fake = Clock()
    monkeypatch.setattr(webhook_cache, "_clock", fake)
    yield fake
    webhook_cache.invalidate()


def _queue(event_name: str = "review.decided") -> tuple[int, list[str]]:
    """Queue one event in its own transaction; returns (deliveries queued, statements it sent)."""
    statements: list[str] = []

    def seen(_conn, _cursor, statement, *_args):
        statements.append(statement)

    engine = get_engine()
    event.listen(engine, "before_cursor_execute", seen)
    try:
        with UnitOfWork() as uow:
            queued = webhooks.enqueue_event(uow.session, event_name, f"{event_name}:1", {"n": 1})
            uow.commit()
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    return queued, statements


def _add_from_another_process(url: str) -> None:
    """A row as another process's add_webhook leaves it: committed, this process's cache not told."""
    with get_engine(url).begin() as conn:
        conn.execute(text("INSERT INTO webhooks (url, events, secret, format, active, created_at, workspace_id) "
                          "VALUES ('http://127.0.0.1:9/hook', :events, 's', 'json', true, CURRENT_TIMESTAMP, 1)"),
                     {"events": '["review.decided"]'})


def test_no_subscriber_means_no_webhook_query_once_the_cache_is_warm(clock):
    assert _queue()[0] == 0  # reads the subscriptions once
    queued, statements = _queue()
    assert queued == 0 and not [s for s in statements if "webhooks" in s]


def test_a_webhook_added_in_another_process_gets_events_within_the_bound(clock, db_url):
    assert _queue()[0] == 0  # cache warm: nobody wants review.decided
    _add_from_another_process(db_url)
    bound = get_settings().webhook_cache_seconds
    assert bound > 0
    clock.now += bound  # the documented bound has passed since the cache was filled
    assert _queue()[0] == 1
    with UnitOfWork() as uow:
        [delivery] = uow.session.exec(select(WebhookDelivery)).all()
    assert delivery.event == "review.decided"


def test_within_the_bound_the_cache_may_still_say_nobody(clock, db_url):
    """What the bound means: this is the staleness it allows, and no more (see the test above)."""
    assert _queue()[0] == 0
    _add_from_another_process(db_url)
    clock.now += get_settings().webhook_cache_seconds / 2
    assert _queue()[0] == 0


def test_a_webhook_added_in_this_process_gets_the_next_event(clock):
    assert _queue()[0] == 0
    webhooks.add_webhook(None, url="http://127.0.0.1:9/hook", events=["review.decided"])
    assert _queue()[0] == 1  # no time passed: the commit invalidated this process's cache
    assert _queue("review.requested")[0] == 0  # and a subscription is still per event


def test_the_cache_can_be_turned_off(clock, db_url, monkeypatch):
    from hitl_dashboard.settings import reset_settings_cache

    monkeypatch.setenv("WEBHOOK_CACHE_SECONDS", "0")
    reset_settings_cache()
    assert _queue()[0] == 0
    _add_from_another_process(db_url)
    assert _queue()[0] == 1
