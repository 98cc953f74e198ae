"""Slack buttons (issue 31): a signed click decides through the one decide use case, in-process over
ASGI on SQLite and PostgreSQL; every refusal applies nothing, is audited and says why; the message
update reaches a stub response_url on 127.0.0.1."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlmodel import col, select

from hitl_dashboard.db.models import AuditEvent, Decision, ReviewRequest, ToolCall
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.slack import links
from hitl_dashboard.settings import reset_settings_cache
from tests.support import flow
from tests.support.api_helpers import assert_refused
from tests.support.in_process_api import in_process_api
from tests.support.slack_requests import SECRET, TEAM, click, signed_headers
from tests.support.webhook_receiver import Receiver, receiving

URL = "/api/slack/interactions"


@pytest.fixture
def slack_app(db_url, monkeypatch) -> Iterator[TestClient]:
    """On SQLite and PostgreSQL: for what the database decides (the replay's unique key, the decision)."""
    yield from _slack_app(monkeypatch)


@pytest.fixture
def slack_app_sqlite(sqlite_url, monkeypatch) -> Iterator[TestClient]:
    """SQLite only: for refusals decided before (or by the same code as) anything the database does."""
    yield from _slack_app(monkeypatch)


def _slack_app(monkeypatch) -> Iterator[TestClient]:
    settings = {"PUBLIC_URL": "http://hitl.test", "SLACK_SIGNING_SECRET": SECRET,
                "SLACK_ALLOW_LOOPBACK_RESPONSE_URL": "true"}
    with in_process_api(monkeypatch, settings) as client:
        flow.make_people()
        for name, slack_id in (("alice", "UALICE"), ("bob", "UBOB"), ("frank", "UFRANK")):
            links.link_user(None, slack_team_id=TEAM, slack_user_id=slack_id, username=name)
        yield client


@pytest.fixture
def response_url() -> Iterator[Receiver]:
    with receiving() as started:
        yield started


def waiting_review():
    """A code conversation started by frank, waiting for its security review."""
    conversation_id = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()
    return flow.only_open_review(conversation_id)


def decisions() -> list[Decision]:
    with UnitOfWork() as uow:
        return list(uow.session.exec(select(Decision)))


def audited(action: str) -> list[dict]:
    with UnitOfWork() as uow:
        return [e.details for e in uow.session.exec(select(AuditEvent).where(AuditEvent.action == action)
                                                    .order_by(col(AuditEvent.seq)))]


def assert_nothing_applied(review) -> None:
    assert decisions() == []
    with UnitOfWork() as uow:
        now = uow.session.get(ReviewRequest, review.id)
        assert (now.status, now.version) == (review.status, review.version)


def test_a_signed_approve_is_applied_as_the_linked_user_and_the_message_updated(slack_app, response_url) -> None:
    review = waiting_review()
    body = click(user="UALICE", action="hitl_approve", review=review, response_url=response_url.url)
    answer = slack_app.post(URL, content=body, headers=signed_headers(body))
    assert answer.status_code == 200, answer.text
    [decision] = decisions()
    assert (decision.review_request_id, decision.action, decision.content_hash) == (review.id, "approve",
                                                                                    review.content_hash)
    assert flow.actor("alice").user_id == decision.reviewer_id
    [update] = [r.json for r in response_url.received]
    assert update["replace_original"] is True
    assert f"Review #{review.id} was approved by alice in Slack" in update["text"]
    assert not any(b["type"] == "actions" and any("action_id" in e and e["action_id"] != "hitl_open"
                                                  for e in b["elements"]) for b in update["blocks"])
    assert audited("slack.action_received")[0]["review_id"] == review.id
    assert audited("decision.recorded")  # the decide use case's own event


def test_deny_on_a_tool_call_records_the_fixed_reason_and_nothing_runs(slack_app, response_url) -> None:
    conversation_id = flow.start("Deploy billing-api v1.2.3 to production", task_type="ops")
    flow.work()
    review = flow.only_open_review(conversation_id)
    assert review.kind == "tool_call"
    body = click(user="UALICE", action="hitl_deny", review=review, response_url=response_url.url)
    assert slack_app.post(URL, content=body, headers=signed_headers(body)).status_code == 200
    [decision] = decisions()
    assert (decision.action, decision.reason, decision.instructions) == ("revise", "denied in Slack by alice", None)
    assert "denied by alice" in response_url.received[0].json["text"]
    with UnitOfWork() as uow:
        call = uow.session.get(ToolCall, review.subject_id)
        assert (call.status, call.executed_at) == ("denied", None)


@pytest.mark.parametrize("case", ["bad signature", "old timestamp", "not configured", "not Slack's response_url"])
def test_a_request_that_is_not_verifiably_slacks_is_refused(slack_app_sqlite, response_url, monkeypatch,
                                                            case) -> None:
    review = waiting_review()
    if case == "not Slack's response_url":
        # The receiver's own address, reachable from here but not Slack's once the tests' loopback
        # allowance is off: had the app posted to it, the receiver would have it.
        monkeypatch.setenv("SLACK_ALLOW_LOOPBACK_RESPONSE_URL", "false")
        reset_settings_cache()
    body = click(user="UALICE", action="hitl_approve", review=review, response_url=response_url.url)
    headers = {"bad signature": lambda: signed_headers(body, secret="another-secret-of-32-characters!!"),
               "old timestamp": lambda: signed_headers(body, timestamp=int(time.time()) - 301)}.get(
        case, lambda: signed_headers(body))()
    if case == "not configured":
        monkeypatch.delenv("SLACK_SIGNING_SECRET")
        reset_settings_cache()
    answer = slack_app_sqlite.post(URL, content=body, headers=headers)
    expected = {"bad signature": (401, "signature"), "old timestamp": (401, "timestamp"),
                "not configured": (404, "not configured"), "not Slack's response_url": (400, "response_url")}[case]
    assert (answer.status_code, expected[1] in answer.json()["text"]) == (expected[0], True), answer.text
    assert answer.json()["response_type"] == "ephemeral"
    assert_nothing_applied(review)
    assert response_url.received == []  # an untrusted request never makes us post anywhere
    signed = case == "not Slack's response_url"  # refused for a reason: audited; the others are nobody's action
    assert [d["reason"] for d in audited("slack.refused")] == (
        [answer.json()["text"].removeprefix("Refused: ")] if signed else [])


def test_a_body_that_is_not_utf8_is_refused_with_400_and_logs_no_error(slack_app_sqlite, caplog) -> None:
    now = str(int(time.time()))
    with caplog.at_level("WARNING"):
        answer = slack_app_sqlite.post(URL, content=b"\xff", headers={
            "Content-Type": "application/x-www-form-urlencoded", "X-Slack-Request-Timestamp": now,
            "X-Slack-Signature": "v0=00"})
        odd = slack_app_sqlite.post(URL, content=b"payload=%7B%7D", headers={
            "Content-Type": "application/x-www-form-urlencoded", "X-Slack-Request-Timestamp": now,
            "X-Slack-Signature": "v0=\u00e9".encode("latin-1")})  # not ASCII: the digest comparison would raise
    assert (answer.status_code, "UTF-8" in answer.json()["detail"]) == (400, True), answer.text
    assert odd.status_code == 401, odd.text
    assert [r.getMessage() for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")] == []


def test_a_hundred_unsigned_requests_write_no_audit_event_and_are_counted(slack_app_sqlite, caplog) -> None:
    from prometheus_client import REGISTRY

    from hitl_dashboard.services.slack import interactions

    interactions._UnverifiedLog.last_at = 0.0  # this test's own minute: its first refusal is logged
    def counted() -> float:
        return REGISTRY.get_sample_value("hitl_slack_unverified_requests_total", {"status": "401"}) or 0
    with UnitOfWork() as uow:
        events_before = len(uow.session.exec(select(AuditEvent.seq)).all())
    before = counted()
    with caplog.at_level("WARNING", logger=interactions.__name__):
        for n in range(100):
            headers = {"X-Slack-Request-Timestamp": str(int(time.time())), "X-Slack-Signature": f"v0={n:064x}"}
            assert slack_app_sqlite.post(URL, content=b"payload=%7B%7D", headers=headers).status_code == 401
    with UnitOfWork() as uow:
        assert len(uow.session.exec(select(AuditEvent.seq)).all()) == events_before
    assert counted() - before == 100
    [line] = [r.getMessage() for r in caplog.records if r.name == interactions.__name__]
    assert "without a good signature" in line  # one line for the flood, not one per request


def test_slack_deny_on_an_external_tool_call_reaches_the_caller_as_a_denial(slack_app_sqlite, response_url) -> None:
    from hitl_dashboard.client import ApprovalDenied
    from hitl_dashboard.client.wire import settled
    from tests.support.external_api import bearer, person, tool_request

    _, token = person(["manager"], scope="approvals", name="ci")
    reviewer, _ = person(["security_reviewer"])
    links.link_user(None, slack_team_id=TEAM, slack_user_id="UREVIEWER", username=reviewer)
    asked = slack_app_sqlite.post("/api/external/approvals", json=tool_request("deploy-denied"), headers=bearer(token))
    assert asked.status_code == 201, asked.text
    with UnitOfWork() as uow:
        review = uow.session.exec(select(ReviewRequest).where(
            ReviewRequest.conversation_id == asked.json()["conversation_id"])).one()
    body = click(user="UREVIEWER", action="hitl_deny", review=review, response_url=response_url.url)
    assert slack_app_sqlite.post(URL, content=body, headers=signed_headers(body)).status_code == 200
    answer = slack_app_sqlite.get(f"/api/external/approvals/{asked.json()['id']}", headers=bearer(token)).json()
    with pytest.raises(ApprovalDenied, match=f"denied in Slack by {reviewer}"):
        settled(answer)  # what the client's wait() does with the answer


def test_a_click_on_open_in_dashboard_is_acknowledged_and_nothing_else(slack_app_sqlite, response_url) -> None:
    review = waiting_review()
    body = click(user="UALICE", action="hitl_open", review=review, response_url=response_url.url)
    assert slack_app_sqlite.post(URL, content=body, headers=signed_headers(body)).status_code == 200
    assert_nothing_applied(review)
    assert response_url.received == [] and audited("slack.refused") == []


def test_a_replayed_request_is_refused_and_applies_nothing_twice(slack_app, response_url) -> None:
    review = waiting_review()
    body = click(user="UALICE", action="hitl_approve", review=review, response_url=response_url.url)
    headers = signed_headers(body)
    assert slack_app.post(URL, content=body, headers=headers).status_code == 200
    replay = slack_app.post(URL, content=body, headers=headers)
    assert replay.status_code == 409 and "replay" in replay.json()["text"]
    assert len(decisions()) == 1 and len(response_url.received) == 1
    assert "replay" in audited("slack.refused")[-1]["reason"]


@pytest.mark.parametrize(("slack_user", "version_offset", "why"), [
    ("UNOBODY", 0, "not linked"),  # an unmapped Slack user
    ("UBOB", 0, "may not decide a security_reviewer review"),  # a product reviewer: not the role
    ("UFRANK", 0, "started this conversation"),  # the initiator: four eyes
    ("UALICE", 1, "changed"),  # a message showing an older version of the review
])
def test_the_browsers_checks_refuse_a_slack_click(slack_app_sqlite, response_url, slack_user, version_offset,
                                                  why) -> None:
    review = waiting_review()
    body = click(user=slack_user, action="hitl_approve", review=review, response_url=response_url.url,
                 version=review.version + version_offset)
    answer = slack_app_sqlite.post(URL, content=body, headers=signed_headers(body))
    assert answer.status_code == 200 and why in answer.json()["text"], answer.text
    assert_nothing_applied(review)
    [told] = [r.json for r in response_url.received]
    assert (told["response_type"], told["replace_original"]) == ("ephemeral", False) and why in told["text"]
    [refusal] = audited("slack.refused")
    assert (refusal["slack_user_id"], why in refusal["reason"]) == (slack_user, True)


def test_admins_manage_slack_links_over_the_api_and_each_change_is_audited(slack_app) -> None:
    from hitl_dashboard.services.auth.tokens import create_token

    _, admin = create_token(user_id=flow.actor("erin").user_id, name="t")
    _, reviewer = create_token(user_id=flow.actor("alice").user_id, name="t")
    path = "/api/slack/user-links"
    body = {"slack_team_id": TEAM, "slack_user_id": "UCAROL", "username": "carol"}
    assert_refused(slack_app.post(path, json=body, headers={"Authorization": f"Bearer {reviewer}"}),
                   403, "may not manage this workspace: needs role workspace_admin")
    created = slack_app.post(path, json=body, headers={"Authorization": f"Bearer {admin}"})
    assert created.status_code == 201, created.text
    again = slack_app.post(path, json=body, headers={"Authorization": f"Bearer {admin}"})
    assert_refused(again, 409, "is already linked in this workspace; unlink it first")
    bad = slack_app.post(path, json={**body, "slack_user_id": "carol"}, headers={"Authorization": f"Bearer {admin}"})
    assert_refused(bad, 422, '"loc":["body","slack_user_id"]')
    listed = slack_app.get(path, headers={"Authorization": f"Bearer {admin}"}).json()
    assert {(row["slack_user_id"], row["username"], row["workspace"]) for row in listed} >= {
        ("UCAROL", "carol", "default"), ("UALICE", "alice", "default")}
    link_id = created.json()["id"]
    assert slack_app.delete(f"{path}/{link_id}", headers={"Authorization": f"Bearer {admin}"}).status_code == 204
    assert slack_app.delete(f"{path}/{link_id}", headers={"Authorization": f"Bearer {admin}"}).status_code == 404
    assert [d["slack_user_id"] for d in audited("slack.user_unlinked")] == ["UCAROL"]
    assert "UCAROL" in [d["slack_user_id"] for d in audited("slack.user_linked")]


def test_the_operator_links_and_unlinks_slack_users_from_the_cli(slack_app_sqlite) -> None:
    from tests.conftest import run_cli

    linked = json.loads(run_cli("slack", "link", TEAM, "UDAVE", "dave", "--json").stdout)
    assert (linked["slack_user_id"], linked["username"]) == ("UDAVE", "dave")
    refused = run_cli("slack", "link", TEAM, "UDAVE", "erin", check=False)
    assert refused.returncode != 0 and "already linked" in refused.stderr
    listed = json.loads(run_cli("slack", "links", "--json").stdout)
    assert ("UDAVE", "dave") in {(row["slack_user_id"], row["username"]) for row in listed}
    run_cli("slack", "unlink", str(linked["id"]))
    assert audited("slack.user_unlinked")[0]["username"] == "dave"


def test_a_slack_link_acts_in_its_own_workspace_only_and_its_admins_manage_it(slack_app, response_url) -> None:
    """Issue 41: a Slack user linked in one workspace decides nothing of another (refused as unlinked,
    as for a review that does not exist); linked there too, as a member of it, the click decides as
    that member. A workspace admin sees and manages the links of their workspace only."""
    from hitl_dashboard.services.auth.tokens import create_token
    from hitl_dashboard.services.auth.users import create_user
    from hitl_dashboard.services.workspaces import workspaces

    beta = workspaces.create_workspace(None, slug="beta", name="Beta")
    for name, roles in (("bea", ["security_reviewer"]), ("bert", ["product_reviewer", "final_approver"]),
                        ("bianca", ["workspace_admin"])):
        create_user(username=name, password="pw-" + name, roles=roles, workspace_id=beta.id)
    conversation_id = flow.start("Add retry with exponential backoff to the payments client", as_user="bert",
                                 workspace="beta")
    flow.work()
    review = flow.only_open_review(conversation_id)

    # UALICE is linked in default only (alice holds security_reviewer there, not in beta).
    body = click(user="UALICE", action="hitl_approve", review=review, response_url=response_url.url)
    refused = slack_app.post(URL, content=body, headers=signed_headers(body))
    assert refused.status_code == 200 and "not linked to an active dashboard user in this review's workspace" \
        in refused.json()["text"], refused.text
    missing = click(user="UALICE", action="hitl_approve", review=type(review)(id=987_654, version=1,
                                                                               content_hash="0" * 64),
                    response_url=response_url.url)
    assert slack_app.post(URL, content=missing, headers=signed_headers(missing)).json()["text"] == \
        refused.json()["text"]  # another workspace's review reads as one that does not exist
    assert_nothing_applied(review)

    _, admin_of_beta = create_token(user_id=flow.actor("bianca").user_id, name="t")
    path, headers = "/api/slack/user-links?workspace=beta", {"Authorization": f"Bearer {admin_of_beta}"}
    assert_refused(slack_app.post(path, json={"slack_team_id": TEAM, "slack_user_id": "UALICE", "username": "alice"},
                                  headers=headers), 404, "alice is not a member of this workspace")
    linked = slack_app.post(path, json={"slack_team_id": TEAM, "slack_user_id": "UALICE", "username": "bea"},
                            headers=headers)
    assert linked.status_code == 201 and linked.json()["workspace"] == "beta", linked.text
    assert [(row["slack_user_id"], row["workspace"]) for row in slack_app.get(path, headers=headers).json()] == [
        ("UALICE", "beta")]  # default's links (alice, bob, frank) are not beta's admin's to see
    default_link = next(link.id for link in links.list_links(None) if link.workspace == "default")
    assert_refused(slack_app.delete(f"/api/slack/user-links/{default_link}?workspace=beta", headers=headers),
                   404, "does not exist")

    body = click(user="UALICE", action="hitl_approve", review=review, response_url=response_url.url)
    decided = slack_app.post(URL, content=body, headers=signed_headers(body))
    assert decided.status_code == 200 and "approved by bea in Slack" in decided.json()["text"], decided.text
    [decision] = decisions()
    assert (decision.review_request_id, decision.reviewer_id) == (review.id, flow.actor("bea").user_id)
