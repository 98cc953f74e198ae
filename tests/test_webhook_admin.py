"""Webhook management behind the /webhooks page (services/webhooks/webhook_admin.py), on SQLite and
PostgreSQL: a test delivery sent at once to a receiver on 127.0.0.1 and recorded with its response
code, tried once; a rotated secret signs from then on; a removed webhook gets nothing more."""

from __future__ import annotations

import asyncio
import json

import pytest

from hitl_dashboard.domain.errors import NotFound, PermissionDenied
from hitl_dashboard.services.webhooks import webhook_admin, webhooks
from hitl_dashboard.services.webhooks.webhook_payloads import verify_signature
from tests.conftest import run_cli
from tests.support.db_state import audit_events, use_cheap_passwords
from tests.support.flow import actor, make_people


@pytest.fixture
def people(db_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    make_people()  # erin is the admin


def test_test_delivery_rotation_and_removal(people, receiver) -> None:
    erin = actor("erin")
    hook = webhooks.add_webhook(erin, url=receiver.url, events=["review.decided"])

    sent = asyncio.run(webhook_admin.send_test(erin, hook.id))
    assert (sent.event, sent.status, sent.status_code, sent.attempts) == ("webhook.test", "delivered", 200, 1)
    [got] = receiver.received
    assert verify_signature(hook.secret, got.body, got.headers["x-hitl-signature"])
    assert got.json["data"] == {"webhook_id": hook.id, "by": "erin",
                                "message": "A test delivery from HITL Dashboard: this webhook is set up."}

    rotated = webhook_admin.rotate_secret(erin, hook.id)
    assert rotated.secret != hook.secret
    receiver.status = 503
    failed = asyncio.run(webhook_admin.send_test(erin, hook.id))
    assert (failed.status, failed.status_code, failed.attempts) == ("failed", 503, 1)  # tried once, not retried
    assert "HTTP 503" in failed.error
    last = receiver.received[-1]
    assert verify_signature(rotated.secret, last.body, last.headers["x-hitl-signature"])
    assert [(d.status, d.status_code) for d in webhook_admin.recent_deliveries(erin)] == [("failed", 503),
                                                                                          ("delivered", 200)]

    webhook_admin.queue_test(erin, hook.id)  # pending when the webhook goes: cancelled, never sent
    assert webhook_admin.remove_webhook(erin, hook.id) == 1
    assert webhook_admin.active_webhooks(erin) == [] and webhook_admin.recent_deliveries(erin) == []
    assert [h.active for h in webhooks.list_webhooks(erin)] == [False]  # kept, with its deliveries
    with pytest.raises(NotFound, match="removed"):
        asyncio.run(webhook_admin.send_test(erin, hook.id))
    with pytest.raises(NotFound):
        webhook_admin.rotate_secret(erin, hook.id)
    assert len(receiver.received) == 2
    actions = [e.action for e in audit_events() if e.action.startswith("webhook.")]
    assert actions == ["webhook.added", "webhook.tested", "webhook.secret_rotated", "webhook.tested",
                       "webhook.tested", "webhook.removed"]
    assert all(rotated.secret not in str(e.details) and hook.secret not in str(e.details) for e in audit_events())


def test_only_admins_manage_webhooks_and_unknown_ids_are_not_found(people, receiver) -> None:
    hook = webhooks.add_webhook(actor("erin"), url=receiver.url, events=["review.requested"])
    for name in ("alice", "dave"):  # a reviewer, a manager
        someone = actor(name)
        with pytest.raises(PermissionDenied):
            asyncio.run(webhook_admin.send_test(someone, hook.id))
        for refused in (webhook_admin.rotate_secret, webhook_admin.remove_webhook):
            with pytest.raises(PermissionDenied):
                refused(someone, hook.id)
        with pytest.raises(PermissionDenied):
            webhook_admin.recent_deliveries(someone)
    with pytest.raises(NotFound, match="webhook 999999 does not exist"):
        webhook_admin.remove_webhook(actor("erin"), 999_999)
    assert receiver.received == [] and [h.active for h in webhook_admin.active_webhooks(actor("erin"))] == [True]


def test_the_cli_tests_rotates_lists_and_removes(people, receiver) -> None:
    hook = webhooks.add_webhook(None, url=receiver.url, events=["review.decided"])
    sent = json.loads(run_cli("--json", "webhooks", "test", str(hook.id)).stdout)
    assert (sent["status"], sent["status_code"]) == ("delivered", 200)
    secret = json.loads(run_cli("--json", "webhooks", "rotate-secret", str(hook.id)).stdout)["secret"]
    assert secret != hook.secret
    receiver.status = 500
    assert run_cli("webhooks", "test", str(hook.id), check=False).returncode == 1  # a failed test fails
    listed = json.loads(run_cli("--json", "webhooks", "deliveries").stdout)
    assert [(d["status"], d["status_code"]) for d in listed] == [("failed", 500), ("delivered", 200)]
    assert "removed" in run_cli("webhooks", "remove", str(hook.id)).stdout
    assert run_cli("webhooks", "remove", str(hook.id), check=False).returncode == 3  # gone: not found
    assert [e.actor for e in audit_events("webhook.removed")] == ["system"]


def test_a_workspace_admin_manages_its_own_webhooks_and_sees_no_other_workspaces(people, receiver) -> None:
    """Issue 41: the /webhooks page for a workspace admin: its workspace's webhooks and their
    deliveries only; another workspace's webhook is not found; each change is in its own audit trail."""
    from hitl_dashboard.services.auth.users import create_user, find_actor
    from hitl_dashboard.services.workspaces import workspaces

    beta = workspaces.create_workspace(None, slug="beta", name="Beta")
    create_user(username="bianca", password="pw-bianca", roles=["workspace_admin"], workspace_id=beta.id)
    bianca = find_actor("bianca").within(beta.id, "")
    default_hook = webhooks.add_webhook(actor("erin"), url=receiver.url, events=["review.decided"],
                                        workspace="default")
    asyncio.run(webhook_admin.send_test(actor("erin"), default_hook.id))
    own = webhooks.add_webhook(bianca, url=receiver.url, events=["review.requested"])
    assert own.workspace_id == beta.id

    assert [h.id for h in webhook_admin.active_webhooks(bianca)] == [own.id]
    assert webhook_admin.recent_deliveries(bianca) == []  # the default workspace's test delivery is not hers
    sent = asyncio.run(webhook_admin.send_test(bianca, own.id))
    assert [d.id for d in webhook_admin.recent_deliveries(bianca)] == [sent.id]
    for refused in (webhook_admin.rotate_secret, webhook_admin.remove_webhook, webhook_admin.queue_test):
        with pytest.raises(NotFound, match=f"webhook {default_hook.id} does not exist"):
            refused(bianca, default_hook.id)
    assert webhook_admin.remove_webhook(bianca, own.id) == 0
    mine = [e for e in audit_events() if e.action.startswith("webhook.") and e.actor == "bianca"]
    assert [(e.action, e.workspace_id) for e in mine] == [("webhook.added", beta.id), ("webhook.tested", beta.id),
                                                           ("webhook.removed", beta.id)]
