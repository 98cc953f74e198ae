"""Webhooks: queued with the change that caused them, signed, retried with backoff, delivered
once a receiver that was down is back, never sent twice by two workers."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
import threading
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import select

from hitl_dashboard.db.models import WebhookDelivery, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.webhooks import webhooks
from hitl_dashboard.services.webhooks.webhook_delivery import CLAIM_MARGIN_S, deliver_due
from hitl_dashboard.services.webhooks.webhook_payloads import verify_signature
from hitl_dashboard.settings import reset_settings_cache
from tests.e2e.app_process import free_port
from tests.support import flow
from tests.support.db_state import use_cheap_passwords, wait_for
from tests.support.webhook_receiver import Receiver, receiving


@pytest.fixture
def people(db_url, monkeypatch):
    monkeypatch.setenv("PUBLIC_URL", "http://hitl.test")
    reset_settings_cache()
    use_cheap_passwords(monkeypatch)
    flow.make_people()


def add_hook(url: str, events=webhooks.EVENTS, fmt: str = "json"):
    return webhooks.add_webhook(flow.actor("erin"), url=url, events=list(events), fmt=fmt)


def deliveries() -> list[WebhookDelivery]:
    with UnitOfWork() as uow:
        return list(uow.session.exec(select(WebhookDelivery).order_by(WebhookDelivery.id)))


def deliver():
    return asyncio.run(deliver_due())


def test_signed_deliveries_reach_a_receiver(people, receiver) -> None:
    hook = add_hook(receiver.url)
    cid = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()
    review = flow.only_open_review(cid)

    report = deliver()
    assert len(report.delivered) == 1 and len(receiver.received) == 1
    got = receiver.received[0]
    assert verify_signature(hook.secret, got.body, got.headers["x-hitl-signature"])
    assert not verify_signature("another-secret", got.body, got.headers["x-hitl-signature"])
    assert got.headers["x-hitl-event"] == "review.requested"
    assert got.headers["x-hitl-delivery"] == str(report.delivered[0])
    assert got.json["id"] == f"review.requested:{review.id}"
    assert got.json["data"]["review"]["role"] == "security_reviewer"
    assert got.json["data"]["url"] == f"http://hitl.test/reviews/{review.id}"
    [row] = deliveries()
    assert (row.status, row.attempts, row.last_status_code) == ("delivered", 1, 200)
    assert deliver().delivered == []  # nothing is sent twice


def test_the_whole_flow_reports_each_event(people, receiver) -> None:
    add_hook(receiver.url)
    cid = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()
    flow.decide_as("alice", flow.only_open_review(cid).id, "approve")
    flow.decide_as("carol", flow.only_open_review(cid).id, "approve")
    deliver()
    in_order = sorted(receiver.received, key=lambda r: int(r.headers["x-hitl-delivery"]))
    events = [r.headers["x-hitl-event"] for r in in_order]
    assert events == ["review.requested", "review.decided", "review.requested", "review.decided",
                      "conversation.finished"]
    finished = [r.json for r in in_order if r.headers["x-hitl-event"] == "conversation.finished"][0]
    assert finished["data"]["conversation"]["status"] == "approved"
    decided = [r.json for r in in_order if r.headers["x-hitl-event"] == "review.decided"]
    assert [d["data"]["decision"]["reviewer"] for d in decided] == ["alice", "carol"]
    assert {d["data"]["review"]["status"] for d in decided} == {"decided"}


def test_only_subscribed_events_and_only_committed_changes_are_queued(people, receiver) -> None:
    add_hook(receiver.url, events=["conversation.finished"])
    cid = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()
    assert deliveries() == []  # review.requested is not subscribed
    review = flow.only_open_review(cid)
    with UnitOfWork() as uow:  # the abort is rolled back: so is its event
        from hitl_dashboard.domain.decisions import DecisionInput
        from hitl_dashboard.domain.enums import Action
        from hitl_dashboard.services.reviews.decide import record_decision

        record_decision(uow, flow.actor("alice"), review.id, DecisionInput(Action.ABORT, reason="leaks secrets"))
    assert deliveries() == []
    flow.decide_as("alice", review.id, "abort", reason="leaks secrets")
    assert [d.event for d in deliveries()] == ["conversation.finished"]


def test_a_receiver_that_is_down_gets_the_delivery_once_it_is_back(people) -> None:
    down = Receiver(free_port())  # nothing listens on this port yet
    add_hook(down.url)
    cid = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()

    report = deliver()
    assert report.retrying and not report.delivered
    [row] = deliveries()
    assert row.status == "pending" and row.attempts == 1 and "Connect" in row.last_error
    assert row.next_attempt_at > utcnow() + timedelta(seconds=20)  # backoff: not retried at once
    assert deliver().retrying == []

    with UnitOfWork() as uow:  # the backoff has passed
        uow.session.exec(update(WebhookDelivery).values(next_attempt_at=utcnow() - timedelta(seconds=1)))
        uow.commit()
    down.start()
    try:
        assert deliver().delivered == [row.id]
    finally:
        down.stop()
    assert len(down.received) == 1
    assert down.received[0].json["data"]["review"]["conversation_id"] == cid
    [row] = deliveries()
    assert (row.status, row.attempts, row.last_error) == ("delivered", 2, None)


def test_failing_receiver_is_given_up_after_the_last_attempt(people, receiver, monkeypatch) -> None:
    monkeypatch.setenv("WEBHOOK_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("WEBHOOK_RETRY_BASE_S", "0")
    reset_settings_cache()
    receiver.status = 500
    add_hook(receiver.url)
    flow.start("Add retry with exponential backoff to the payments client")
    flow.work()
    assert deliver().retrying and deliver().failed
    [row] = deliveries()
    assert (row.status, row.attempts, row.last_status_code) == ("failed", 2, 500)
    assert deliver().failed == [] and len(receiver.received) == 2


def test_two_workers_never_send_one_delivery_twice(people, receiver) -> None:
    receiver.delay_s = 0.05
    hook = add_hook(receiver.url, events=["review.requested"])
    with UnitOfWork() as uow:
        for n in range(12):
            uow.session.add(WebhookDelivery(webhook_id=hook.id, event="review.requested", event_id=f"e{n}",
                                            payload={"id": f"e{n}", "event": "review.requested", "data": {}}))
        uow.commit()
    threads = [threading.Thread(target=lambda: asyncio.run(deliver_due(limit=12))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sent = [r.headers["x-hitl-delivery"] for r in receiver.received]
    assert len(sent) == len(set(sent)) == 12
    assert {d.status for d in deliveries()} == {"delivered"}


def test_each_answer_is_recorded_when_it_comes_not_after_the_whole_round(people, receiver) -> None:
    # What a worker killed mid-round leaves to be sent again (at least once) is only what it was
    # still sending: a fast receiver's delivery is recorded while a slow one's is still in flight.
    with receiving(hold=threading.Event()) as held:
        fast_hook = add_hook(receiver.url, events=["review.requested"])
        add_hook(held.url, events=["review.requested"])
        flow.start("Add retry with exponential backoff to the payments client")
        flow.work()

        async def round_with_one_receiver_holding() -> dict[int, str]:
            task = asyncio.create_task(deliver_due())
            seen: dict[int, str] = {}
            for _ in range(500):  # until the fast answer is recorded (10 s at most)
                seen = {d.webhook_id: d.status for d in deliveries()}
                if seen.get(fast_hook.id) == "delivered":
                    break
                await asyncio.sleep(0.02)
            held.hold.set()
            await task
            return seen

        while_held = asyncio.run(round_with_one_receiver_holding())
    assert sorted(while_held.values()) == ["delivered", "pending"], while_held
    assert {d.status for d in deliveries()} == {"delivered"} and len(held.received) == 1


def _deliver_in_this_process() -> None:
    asyncio.run(deliver_due())


def test_a_worker_killed_after_sending_leaves_the_delivery_to_be_sent_again_under_its_id(people) -> None:
    # At least once: the receiver has the delivery, the worker died before it could record that.
    # Nobody sends it while the dead worker's claim holds; then the next worker sends it again under
    # the same X-HITL-Delivery, so the receiver can tell it is the same one.
    with receiving(hold=threading.Event()) as held:
        add_hook(held.url, events=["review.requested"])
        flow.start("Add retry with exponential backoff to the payments client")
        flow.work()
        worker = multiprocessing.get_context("fork").Process(target=_deliver_in_this_process)
        worker.start()
        wait_for(lambda: held.holding == 1, timeout=10, what="the worker's POST to reach the receiver")
        os.kill(worker.pid, signal.SIGKILL)
        worker.join()
        held.hold.set()
        wait_for(lambda: len(held.received) == 1, timeout=10, what="the receiver to keep the first POST")

        [row] = deliveries()
        assert (row.status, row.attempts) == ("pending", 1)  # claimed, never recorded
        assert row.next_attempt_at > utcnow() + timedelta(seconds=CLAIM_MARGIN_S)
        assert deliver().delivered == []  # the dead worker's claim still holds
        with UnitOfWork() as uow:  # the claim has run out
            uow.session.exec(update(WebhookDelivery).values(next_attempt_at=utcnow() - timedelta(seconds=1)))
            uow.commit()
        assert deliver().delivered == [row.id]
    assert [r.headers["x-hitl-delivery"] for r in held.received] == [str(row.id)] * 2
    [row] = deliveries()
    assert (row.status, row.attempts) == ("delivered", 2)


def test_slack_format_has_text_blocks_and_the_review_link(people, receiver) -> None:
    add_hook(receiver.url, events=["review.requested"], fmt="slack")
    cid = flow.start("Add retry <b>now</b>", title="Retry <b>now</b> & later")
    flow.work()
    deliver()
    review = flow.only_open_review(cid)
    message = receiver.received[0].json
    link = f"http://hitl.test/reviews/{review.id}"
    assert link in message["text"] and "&lt;b&gt;now&lt;/b&gt; &amp; later" in message["text"]
    assert "<b>" not in message["text"]
    buttons = next(b for b in message["blocks"] if b["type"] == "actions")["elements"]
    assert [b["text"]["text"] for b in buttons] == ["Approve", "Deny", "Open in dashboard"]
    assert buttons[-1]["url"] == link
    assert json.loads(buttons[0]["value"]) == {"review_id": review.id, "version": review.version,
                                               "content_hash": review.content_hash}
    assert message["blocks"][0]["text"]["type"] == "mrkdwn"


def test_only_admins_register_webhooks(people) -> None:
    from hitl_dashboard.domain.errors import InvalidInput, PermissionDenied

    with pytest.raises(PermissionDenied):
        webhooks.add_webhook(flow.actor("dave"), url="http://127.0.0.1:9/x", events=["review.decided"])
    with pytest.raises(InvalidInput):
        webhooks.add_webhook(None, url="http://127.0.0.1:9/x", events=["review.maybe"])
