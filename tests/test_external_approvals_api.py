"""External approval requests over the HTTP API, in process (the real FastAPI app over ASGI) on
SQLite and PostgreSQL: idempotency, conflicting reuse, the approvals-only scope, schema-checked
edits, the long poll, signed callbacks, reporting what ran, and size limits."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlmodel import select, update
from starlette.testclient import TestClient

from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.models import AuditEvent, Message, ReviewRequest, WebhookDelivery, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.users import find_actor
from hitl_dashboard.services.conversations.conversations import abort_conversation
from hitl_dashboard.services.external import follow
from hitl_dashboard.services.external.follow import get_approval
from hitl_dashboard.services.reviews.escalation import escalate_overdue
from hitl_dashboard.services.webhooks.webhook_delivery import deliver_due
from hitl_dashboard.services.webhooks.webhook_payloads import verify_signature
from hitl_dashboard.settings import reset_settings_cache
from tests.support.api_helpers import assert_refused
from tests.support.external_api import DEPLOY_SCHEMA, bearer, person, tool_request
from tests.support.in_process_api import in_process_api
from tests.support.races import race
from tests.support.webhook_receiver import receiving


@pytest.fixture
def api(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """The real FastAPI app (create_api) in process, over ASGI, on the test's database."""
    # The callback receiver of these tests listens on 127.0.0.1 (a private address).
    with in_process_api(monkeypatch, {"EXTERNAL_CALLBACK_ALLOW_PRIVATE": "true",
                                      "API_RATE_LIMIT": "100000/minute"}) as client:
        yield client


# Checks made before anything reaches the database run on SQLite only.
sqlite_only = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)


@pytest.fixture
def caller():
    return person(["manager"], scope="approvals", name="ci")


@pytest.fixture
def security():
    return person(["security_reviewer"])


def _ask(api, token, body):
    return api.post("/api/external/approvals", json=body, headers=bearer(token))


def _decide(api, token, review_id, **body):
    return api.post(f"/api/reviews/{review_id}/decision", json=body, headers=bearer(token))


def test_the_same_request_id_gives_the_same_review_and_another_request_with_it_is_a_409(api, caller):
    _, token = caller
    first = _ask(api, token, tool_request("run-1"))
    assert first.status_code == 201, first.text
    again = _ask(api, token, tool_request("run-1"))
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    assert again.json()["created"] is False and again.json()["review_id"] == first.json()["review_id"]
    changed = tool_request("run-1", tool_call={"name": "deploy", "arguments": {"service": "search", "version": "1.0.0"},
                                                "args_schema": DEPLOY_SCHEMA})
    conflict = _ask(api, token, changed)
    assert conflict.status_code == 409 and "already used for a different request" in conflict.json()["detail"]
    # Another caller's request id is its own.
    _, other = person(["manager"], scope="approvals")
    assert _ask(api, other, tool_request("run-1")).status_code == 201


def test_an_approvals_token_reads_and_decides_nothing_else(api, caller, security):
    _, token = caller
    _, reviewer = security
    mine = _ask(api, token, tool_request("scope-1")).json()
    assert_refused(api.get("/api/conversations", headers=bearer(token)),
                   403, "this token may only request approvals (scope 'approvals')")
    assert_refused(api.get(f"/api/conversations/{mine['conversation_id']}", headers=bearer(token)),
                   403, "this token may only request approvals (scope 'approvals')")
    assert api.get("/api/reviews", headers=bearer(token)).status_code == 403
    denied = _decide(api, token, mine["review_id"], action="approve")
    assert denied.status_code == 403 and "only request approvals" in denied.json()["detail"]
    # Another caller's request is not found, for approvals and full tokens alike.
    _, other = person(["manager"], scope="approvals")
    assert api.get(f"/api/external/approvals/{mine['id']}", headers=bearer(other)).status_code == 404
    assert api.get(f"/api/external/approvals/{mine['id']}", headers=bearer(reviewer)).status_code == 404
    assert api.get(f"/api/external/approvals/{mine['id']}", headers=bearer(token)).json()["status"] == "pending"
    # The reviewers' queue lists it like any other request, marked as external.
    [queued] = [r for r in api.get("/api/reviews", headers=bearer(reviewer)).json() if r["id"] == mine["review_id"]]
    assert (queued["origin"], queued["rule"], queued["title"]) == ("external", "external", "Deploy billing 2.4.1")


def test_an_edit_must_match_the_callers_schema_and_the_caller_gets_the_edited_arguments(api, caller, security):
    _, token = caller
    _, reviewer = security
    asked = _ask(api, token, tool_request("edit-1")).json()
    bad = _decide(api, reviewer, asked["review_id"], action="approve",
                  edited_args={"service": "billing", "version": "latest", "replicas": 9})
    assert bad.status_code == 422
    assert "version" in bad.text and "replicas" in bad.text
    assert api.get(f"/api/external/approvals/{asked['id']}", headers=bearer(token)).json()["status"] == "pending"
    good = _decide(api, reviewer, asked["review_id"], action="approve",
                   edited_args={"service": "billing", "version": "2.4.2", "replicas": 1})
    assert good.status_code == 200, good.text
    outcome = api.get(f"/api/external/approvals/{asked['id']}", headers=bearer(token)).json()
    assert outcome["status"] == "approved"
    assert outcome["arguments"] == {"service": "billing", "version": "2.4.2", "replicas": 1}


@sqlite_only
def test_arguments_the_schema_refuses_and_an_invalid_schema_are_refused_at_once(api, caller):
    _, token = caller
    wrong = tool_request("schema-1", tool_call={"name": "deploy", "arguments": {"service": "mail", "version": "1"},
                                                "args_schema": DEPLOY_SCHEMA})
    assert _ask(api, token, wrong).status_code == 422
    broken = tool_request("schema-2", tool_call={"name": "deploy", "arguments": {},
                                                 "args_schema": {"type": "object", "properties": {"a": {"type": 5}}}})
    response = _ask(api, token, broken)
    assert response.status_code == 422 and "not a valid JSON Schema" in response.text
    looping = {"type": "object", "$ref": "#/$defs/x", "$defs": {"x": {"$ref": "#/$defs/x"}}}
    response = _ask(api, token, tool_request("schema-3", tool_call={"name": "deploy", "arguments": {},
                                                                    "args_schema": looping}))
    assert response.status_code == 422 and "$ref loop" in response.text
    remote = {"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}
    response = _ask(api, token, tool_request("schema-4", tool_call={"name": "deploy", "arguments": {"a": 1},
                                                                    "args_schema": remote}))
    assert response.status_code == 422 and "cannot be resolved" in response.text  # and nothing was fetched


def test_the_long_poll_says_still_pending_then_resumes_and_returns_once_decided(api, caller, security, monkeypatch):
    _, token = caller
    _, reviewer = security
    asked = _ask(api, token, tool_request("poll-1")).json()
    started = time.monotonic()
    pending = api.get(f"/api/external/approvals/{asked['id']}", params={"wait": 0.6}, headers=bearer(token))
    assert time.monotonic() - started >= 0.6
    assert pending.json()["status"] == "pending" and "still pending" in pending.json()["message"]
    # The poll's reads of the request, seen as they happen: the decision comes only once the poll has
    # read it pending and is waiting, so the answer below is the waiting poll released.
    reads: list[str] = []
    waiting = threading.Event()

    def read(*args, **kwargs):
        view = get_approval(*args, **kwargs)
        reads.append(view.outcome.status)
        waiting.set()
        return view

    monkeypatch.setattr(follow, "get_approval", read)
    answers = []
    waiter = threading.Thread(target=lambda: answers.append(
        api.get(f"/api/external/approvals/{asked['id']}", params={"wait": 30}, headers=bearer(token))))
    waiter.start()
    assert waiting.wait(10) and reads == ["pending"]
    decided = _decide(api, reviewer, asked["review_id"], action="revise", reason="not on a Friday")
    assert decided.status_code == 200, decided.text
    waiter.join(30)
    assert reads[0] == "pending" and reads[-1] != "pending"  # the same poll read it again, decided
    assert answers and answers[0].json()["status"] == "denied"
    assert answers[0].json()["reason"] == "not on a Friday"
    assert time.monotonic() - started < 20  # the decision released it, not the 30 s
    # Decided: the next poll answers at once.
    again = time.monotonic()
    assert api.get(f"/api/external/approvals/{asked['id']}", params={"wait": 30},
                   headers=bearer(token)).json()["status"] == "denied"
    assert time.monotonic() - again < 5


def test_the_callback_is_signed_with_the_requests_secret(api, caller, security):
    _, token = caller
    _, reviewer = security
    with receiving() as receiver:
        asked = _ask(api, token, tool_request("cb-1", callback_url=receiver.url)).json()
        assert asked["callback_secret"]
        assert _decide(api, reviewer, asked["review_id"], action="approve").status_code == 200
        report = asyncio.run(deliver_due())
        assert len(report.delivered) == 1
        [received] = receiver.received
        assert verify_signature(asked["callback_secret"], received.body, received.headers["x-hitl-signature"])
        assert not verify_signature("another-secret", received.body, received.headers["x-hitl-signature"])
        data = received.json["data"]
        assert (data["approval_id"], data["request_id"], data["status"]) == (asked["id"], "cb-1", "approved")
        assert data["arguments"] == {"service": "billing", "version": "2.4.1", "replicas": 2}
        with UnitOfWork() as uow:
            delivery = uow.session.exec(select(WebhookDelivery)).one()
            assert delivery.status == "delivered" and delivery.event == "external.decided"


@sqlite_only
def test_a_private_callback_target_is_refused_unless_allowed(api, caller, monkeypatch):

    _, token = caller
    monkeypatch.setenv("EXTERNAL_CALLBACK_ALLOW_PRIVATE", "false")
    reset_settings_cache()
    for url in ("http://127.0.0.1:9/hook", "http://10.1.2.3/hook", "http://[::1]/x", "http://169.254.169.254/"):
        response = _ask(api, token, tool_request(f"private-{url[-6:]}", callback_url=url))
        assert response.status_code == 422 and "private network" in response.text, url
    assert _ask(api, token, tool_request("scheme", callback_url="ftp://example.com/x")).status_code == 422


@sqlite_only
@pytest.mark.parametrize("host", [
    "64:ff9b::a9fe:a9fe",  # NAT64, well-known prefix: 169.254.169.254
    "64:ff9b:1::a00:1",  # NAT64, local-use prefix: 10.0.0.1
    "2002:a9fe:a9fe::",  # 6to4: 169.254.169.254
    "::7f00:1",  # IPv4-compatible: 127.0.0.1
    "::ffff:0:a00:1",  # IPv4-translated: 10.0.0.1
    "::ffff:a9fe:a9fe",  # IPv4-mapped: 169.254.169.254
    "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo, client 127.0.0.1 (XOR'd in the last 32 bits)
])
def test_an_ipv6_callback_that_embeds_a_private_ipv4_address_is_refused(api, caller, monkeypatch, host):
    _, token = caller
    monkeypatch.setenv("EXTERNAL_CALLBACK_ALLOW_PRIVATE", "false")
    reset_settings_cache()
    response = _ask(api, token, tool_request(f"embedded-{host}", callback_url=f"http://[{host}]/hook"))
    assert response.status_code == 422 and "private network" in response.text, response.text
    # The same forms with a public IPv4 address inside are accepted (the filter judges what is embedded).
    public = _ask(api, token, tool_request(f"public-{host}", callback_url="http://[64:ff9b::808:808]/hook"))
    assert public.status_code == 201, public.text


def test_the_reported_result_shows_in_the_transcript_and_the_audit_trail_once(api, caller, security):
    username, token = caller
    _, reviewer = security
    asked = _ask(api, token, tool_request("report-1")).json()
    url = f"/api/external/approvals/{asked['id']}/result"
    early = api.post(url, json={"ok": True, "result": "too early"}, headers=bearer(token))
    assert early.status_code == 409 and "is not approved: nothing may have run" in early.text, early.text
    approved = _decide(api, reviewer, asked["review_id"], action="approve")
    assert approved.status_code == 200 and approved.json()["conversation_status"] == "approved", approved.text
    assert api.post(url, json={"ok": True, "result": "deployed 2.4.1"}, headers=bearer(token)).status_code == 200
    assert api.post(url, json={"ok": True, "result": "deployed 2.4.1"}, headers=bearer(token)).status_code == 200
    other = api.post(url, json={"ok": False, "result": "boom"}, headers=bearer(token))
    assert other.status_code == 409 and "already has a different report" in other.text, other.text
    with UnitOfWork() as uow:
        results = uow.session.exec(select(Message).where(Message.conversation_id == asked["conversation_id"],
                                                         Message.kind == "tool_result")).all()
        assert [m.source for m in results] == [username] and "deployed 2.4.1" in results[0].content
        events = uow.session.exec(select(AuditEvent.action).where(
            AuditEvent.conversation_id == asked["conversation_id"]).order_by(AuditEvent.seq)).all()
    assert events == ["conversation.started", "review.requested", "decision.recorded", "conversation.approved",
                      "tool.executed"]


def test_content_goes_through_the_teams_sign_offs_in_order(api, caller):
    _, token = caller
    _, security = person(["security_reviewer"])
    _, final = person(["final_approver"])
    body = {"request_id": "doc-1", "team": "code", "title": "Migration script",
            "content": {"text": "print('migrate')\n", "file_name": "scripts/migrate.py"}}
    asked = _ask(api, token, body).json()
    assert asked["kind"] == "content"
    too_soon = _decide(api, final, asked["review_id"], action="approve")  # security signs first
    assert too_soon.status_code == 403 and "may not decide a security_reviewer review" in too_soon.text, too_soon.text
    question = api.post(f"/api/reviews/{asked['review_id']}/questions", json={"question": "why?"},
                        headers=bearer(security))
    assert question.status_code == 422 and "no agent here to ask" in question.text  # nobody here wrote it
    # The caller gets an outcome, not content: nobody may approve another version of it.
    edited = _decide(api, security, asked["review_id"], action="approve",
                     edited_files={"scripts/migrate.py": "print('migrate safely')\n"})
    assert edited.status_code == 422 and "belongs to its caller" in edited.text
    first = _decide(api, security, asked["review_id"], action="approve").json()
    assert api.get(f"/api/external/approvals/{asked['id']}", headers=bearer(token)).json()["status"] == "pending"
    assert _decide(api, final, first["next_review_id"], action="approve").status_code == 200
    assert api.get(f"/api/external/approvals/{asked['id']}", headers=bearer(token)).json()["status"] == "approved"


def test_a_revision_request_reaches_the_caller_with_its_instructions(api, caller, security):
    _, token = caller
    _, reviewer = security
    body = {"request_id": "doc-2", "team": "code", "title": "Config",
            "content": {"text": "debug = true\n", "file_name": "config.toml"}}
    asked = _ask(api, token, body).json()
    revised = _decide(api, reviewer, asked["review_id"], action="revise", instructions="turn debug off")
    assert revised.status_code == 200 and revised.json()["action"] == "revise", revised.text
    outcome = api.get(f"/api/external/approvals/{asked['id']}", headers=bearer(token)).json()
    assert (outcome["status"], outcome["instructions"]) == ("revise", "turn debug off")


@pytest.mark.parametrize(("overrides", "field"), [
    ({"title": "t" * 201}, "title"),
    ({"context": "c" * 20_001}, "context"),
    ({"request_id": "has space"}, "request_id"),
    ({"request_id": "r" * 201}, "request_id"),
    ({"link": "javascript:alert(1)"}, "link"),
    ({"link": "https://" + "a" * 2000}, "link"),
    ({"tool_call": {"name": "deploy", "arguments": {"blob": "x" * 70_000}}}, "arguments"),
    ({"tool_call": {"name": "no spaces allowed", "arguments": {}}}, "name"),
    ({"content": {"text": "x", "file_name": "a.txt"}}, "tool_call"),
])
@sqlite_only
def test_oversized_or_malformed_fields_are_refused_and_nothing_is_stored(api, caller, overrides, field):
    _, token = caller
    response = _ask(api, token, {**tool_request("bad-1"), **overrides})
    assert response.status_code == 422, response.text
    assert field in response.text
    assert _ask(api, token, tool_request("bad-1")).status_code == 201  # the id was not taken
    result = api.post(f"/api/external/approvals/{_ask(api, token, tool_request('bad-1')).json()['id']}/result",
                      json={"ok": True, "result": "r" * 20_001}, headers=bearer(token))
    assert result.status_code == 422


def test_the_same_request_id_sent_at_the_same_instant_makes_one_review(api, caller):
    _, token = caller
    answers = race([lambda: _ask(api, token, tool_request("race-1")) for _ in range(4)])
    assert sorted(a.status_code for a in answers) == [200, 200, 200, 201], [a.text for a in answers]
    assert len({a.json()["id"] for a in answers}) == 1
    with UnitOfWork() as uow:
        assert len(uow.session.exec(select(ExternalRequest).where(
            ExternalRequest.caller_request_id == "race-1")).all()) == 1


def test_an_overdue_request_with_abort_and_an_admin_abort_reach_the_caller_as_denied(api, caller):
    _, token = caller
    with receiving() as receiver:
        overdue = _ask(api, token, tool_request("sla-1", on_overdue="abort", callback_url=receiver.url)).json()
        with UnitOfWork() as uow:  # its deadline passed
            uow.session.exec(update(ReviewRequest).where(ReviewRequest.id == overdue["review_id"])
                             .values(due_at=utcnow() - timedelta(minutes=1)))
            uow.commit()
        assert escalate_overdue() == [overdue["review_id"]]
        outcome = api.get(f"/api/external/approvals/{overdue['id']}", headers=bearer(token)).json()
        assert outcome["status"] == "denied" and "overdue" in outcome["reason"]
        assert len(asyncio.run(deliver_due()).delivered) == 1
        assert receiver.received[0].json["data"]["status"] == "denied"

        aborted = _ask(api, token, tool_request("abort-1")).json()
        abort_conversation(find_actor(person(["admin"])[0]), aborted["conversation_id"], "wrong environment")
        outcome = api.get(f"/api/external/approvals/{aborted['id']}", headers=bearer(token)).json()
        assert outcome["status"] == "denied" and "wrong environment" in outcome["reason"]
