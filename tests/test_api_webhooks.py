"""The running app delivers webhooks by itself: its runner loop sends what the API's changes queued."""

from __future__ import annotations

import time

import pytest
from sqlmodel import select

from hitl_dashboard.db.models import Webhook
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.webhooks import webhooks
from hitl_dashboard.services.webhooks.webhook_payloads import verify_signature
from tests.support.api_app import ApiApp
from tests.support.api_helpers import start, wait_for_review
from tests.support.webhook_receiver import Receiver

pytestmark = pytest.mark.e2e


def test_the_app_delivers_signed_webhooks_for_api_changes(api_app: ApiApp, receiver: Receiver) -> None:
    try:
        with UnitOfWork(api_app.running.engine) as uow:  # the app's database: the step, on its engine
            hook = webhooks.insert_webhook(uow, None, url=receiver.url, events=["review.decided"])
            uow.commit()
        client = api_app.client(api_app.token(["security_reviewer"]))
        review = wait_for_review(client, start(client))
        decided = client.post(f"/api/reviews/{review['id']}/decision", json={"action": "abort", "reason": "no"})
        assert decided.status_code == 200, decided.text

        deadline = time.monotonic() + 30
        while not receiver.received and time.monotonic() < deadline:
            time.sleep(0.1)
        [got] = receiver.received
        assert verify_signature(hook.secret, got.body, got.headers["x-hitl-signature"])
        assert got.json["data"]["decision"]["id"] == decided.json()["decision_id"]
    finally:
        with UnitOfWork(api_app.running.engine) as uow:  # later tests on this app expect no webhooks
            for row in uow.session.exec(select(Webhook)):
                row.active = False
                uow.session.add(row)
            uow.commit()
