"""hitl_dashboard.client: what it imports, how it retries, and the decorator against the real API
(in process, over ASGI or served by uvicorn) on SQLite: the function runs with the reviewer's edited
arguments and its result is reported; a denial raises with the reason and runs nothing."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import Iterator

import httpx
import pytest
from sqlmodel import select

from hitl_dashboard.client import (
    ApprovalClient,
    ApprovalDenied,
    ApprovalError,
    ApprovalTimeout,
    AsyncApprovalClient,
    RevisionRequested,
    require_approval,
)
from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.models import ReviewRequest
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.services.auth.users import find_actor
from hitl_dashboard.services.reviews.decide import decide
from tests.e2e.app_process import ROOT
from tests.support.external_api import person
from tests.support.in_process_api import in_process_api
from tests.support.served_asgi import served_api


def test_the_client_loads_nothing_of_the_server():
    probe = ("import sys, hitl_dashboard.client; "
             "print(sorted(m for m in sys.modules if m.startswith('hitl_dashboard') and '.client' not in m)); "
             "print(sorted(m for m in ('sqlmodel', 'sqlalchemy', 'fastapi', 'pydantic', 'reflex', 'autogen_core') "
             "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["['hitl_dashboard']", "[]"]


def _flaky(failures: list[int]) -> httpx.MockTransport:
    """Answers each status in `failures` in turn (0: a dropped connection), then a pending approval."""
    calls = iter(failures)

    def answer(request: httpx.Request) -> httpx.Response:
        code = next(calls, 200)
        if code == 0:
            raise httpx.ConnectError("connection refused", request=request)
        if code != 200:
            return httpx.Response(code, json={"detail": "busy"})
        return httpx.Response(200, json={"id": 7, "status": "pending"})

    return httpx.MockTransport(answer)


def test_connection_errors_429_and_5xx_are_retried_with_backoff_then_reported():
    client = ApprovalClient("http://hitl.test", "hitl_x", retries=3, backoff_s=0.01,
                            transport=_flaky([0, 503, 429]))
    assert client._call("GET", "/api/external/approvals/7")["status"] == "pending"
    failing = ApprovalClient("http://hitl.test", "hitl_x", retries=2, backoff_s=0.01,
                             transport=_flaky([502, 502, 502]))
    with pytest.raises(ApprovalError, match="HTTP 502.*after 3 attempts"):
        failing._call("GET", "/api/external/approvals/7")
    refused = ApprovalClient("http://hitl.test", "hitl_x", retries=5, backoff_s=0.01, transport=_flaky([403]))
    with pytest.raises(ApprovalError, match="HTTP 403: busy"):  # a refusal is not retried
        refused._call("GET", "/api/external/approvals/7")


def test_settings_come_from_the_environment_and_missing_ones_are_named(monkeypatch):
    monkeypatch.delenv("HITL_URL", raising=False)
    with pytest.raises(ApprovalError, match="HITL_URL"):
        ApprovalClient(token="hitl_x")
    monkeypatch.setenv("HITL_URL", "http://hitl.test/")
    monkeypatch.setenv("HITL_TOKEN", "hitl_env")
    client = ApprovalClient()
    assert (client.settings.base_url, client.settings.token) == ("http://hitl.test", "hitl_env")


@pytest.fixture
def asgi(sqlite_url: str) -> Iterator[httpx.ASGITransport]:
    """The real API over ASGI. SQLite only: these tests are about the client; tests/test_external_approvals_api.py
    runs the server's side on PostgreSQL too."""
    with in_process_api() as client:  # the client's own HTTP stack over the same app
        yield httpx.ASGITransport(app=client.app)


async def _decide_when_asked(request_id: str, reviewer: str, action: Action, **kw) -> None:
    """The reviewer's side: waits for the request to arrive, then decides it (a thread: the service is sync)."""
    def open_review() -> int | None:
        with UnitOfWork() as uow:
            return uow.session.exec(
                select(ReviewRequest.id).join(ExternalRequest, ExternalRequest.conversation_id
                                              == ReviewRequest.conversation_id)
                .where(ExternalRequest.caller_request_id == request_id)).first()

    for _ in range(400):
        review_id = await asyncio.to_thread(open_review)
        if review_id is not None:
            await asyncio.to_thread(decide, find_actor(reviewer), review_id, DecisionInput(action, **kw))
            return
        await asyncio.sleep(0.025)
    raise AssertionError(f"request {request_id} never arrived")


def test_the_decorated_function_runs_with_the_edited_arguments_and_reports(asgi):
    _, token = person(["manager"], scope="approvals", name="ci")
    reviewer, _ = person(["security_reviewer"])
    ran: list[dict] = []

    async def scenario() -> str:
        async with AsyncApprovalClient("http://hitl.test", token, transport=asgi, poll_s=5) as client:
            @require_approval(team="ops", request_id="deploy-1", client=client)
            async def deploy(service: str, version: str, replicas: int = 1) -> str:
                ran.append({"service": service, "version": version, "replicas": replicas})
                return f"deployed {service} {version}"

            result, _ = await asyncio.gather(deploy("billing", "2.4.1"), _decide_when_asked(
                "deploy-1", reviewer, Action.APPROVE, edited_args={"service": "billing", "version": "2.4.2"}))
            approval = await client.require(_same_ask("deploy-1"))
            assert approval.arguments == {"service": "billing", "version": "2.4.2"}
            return result

    assert asyncio.run(scenario()) == "deployed billing 2.4.2"
    assert ran == [{"service": "billing", "version": "2.4.2", "replicas": 1}]
    with UnitOfWork() as uow:
        row = uow.session.exec(select(ExternalRequest).where(ExternalRequest.caller_request_id == "deploy-1")).one()
        assert (row.result_status, row.result) == ("ok", "deployed billing 2.4.2")


def _same_ask(request_id: str):
    from hitl_dashboard.client import Ask

    schema = {"type": "object", "additionalProperties": False,
              "properties": {"service": {}, "version": {}, "replicas": {}}, "required": ["service", "version"]}
    return Ask(title="Run deploy", team="ops", request_id=request_id, tool="deploy",
               arguments={"service": "billing", "version": "2.4.1", "replicas": 1}, args_schema=schema)


@pytest.mark.parametrize(("action", "text", "raised"), [
    (Action.REVISE, {"reason": "freeze until Monday"}, ApprovalDenied),
    (Action.ABORT, {"reason": "freeze until Monday"}, ApprovalDenied),
    (Action.REVISE, {"instructions": "use 2.4.2"}, RevisionRequested),
])
def test_a_denial_or_a_revision_raises_with_its_text_and_runs_nothing(asgi, action, text, raised):
    _, token = person(["manager"], scope="approvals", name="ci")
    reviewer, _ = person(["security_reviewer"])
    ran: list[str] = []

    async def scenario() -> None:
        async with AsyncApprovalClient("http://hitl.test", token, transport=asgi, poll_s=5) as client:
            @require_approval(team="ops", request_id=lambda args: f"drop-{args['table']}", client=client)
            async def drop(table: str) -> None:
                ran.append(table)

            await asyncio.gather(drop("users"), _decide_when_asked("drop-users", reviewer, action, **text))

    with pytest.raises(raised) as caught:
        asyncio.run(scenario())
    assert next(iter(text.values())) in str(caught.value)
    assert ran == []


@pytest.fixture
def served(sqlite_url: str) -> Iterator[str]:
    """The real FastAPI app over real HTTP, served in this process (a thread) on a free port."""
    with served_api(lifespan="off") as base_url:
        yield base_url


def test_the_plain_call_blocks_until_approved_and_reports_what_ran(served, monkeypatch):
    _, token = person(["manager"], scope="approvals", name="ci")
    reviewer, _ = person(["security_reviewer"])
    monkeypatch.setenv("HITL_URL", served)
    monkeypatch.setenv("HITL_TOKEN", token)
    decided = threading.Thread(target=asyncio.run, args=(_decide_when_asked(
        "rotate-1", reviewer, Action.APPROVE, edited_args={"account": "billing", "dry_run": True}),))
    decided.start()
    approval = require_approval(tool="rotate_keys", arguments={"account": "billing"}, team="ops",
                                title="Rotate billing's keys", request_id="rotate-1", timeout_s=60)
    decided.join(30)
    assert approval.arguments == {"account": "billing", "dry_run": True}
    approval.report("rotated 3 keys (dry run)")
    with UnitOfWork() as uow:
        row = uow.session.exec(select(ExternalRequest).where(ExternalRequest.caller_request_id == "rotate-1")).one()
        assert (row.result_status, row.result) == ("ok", "rotated 3 keys (dry run)")
    with pytest.raises(ApprovalTimeout):  # still pending when the caller's own limit runs out
        require_approval(tool="rotate_keys", arguments={"account": "search"}, team="ops", request_id="rotate-2",
                         timeout_s=0.5)
