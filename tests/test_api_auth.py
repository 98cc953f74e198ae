"""Who may call the API at all: 401 without a valid token, tokens revoked or expired; the
documents; the body size limit (413)."""

from __future__ import annotations

import httpx
import pytest

from hitl_dashboard.db.models import ApiToken, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.tokens import revoke_token_in
from tests.support.api_app import ApiApp

pytestmark = pytest.mark.e2e
PROTECTED = ["/api/conversations", "/api/conversations/1", "/api/conversations/1/transcript",
             "/api/conversations/1/revisions", "/api/conversations/1/diff?from=1&to=1", "/api/reviews",
             "/api/reviews/next?role=admin", "/api/audit", "/api/audit/export", "/api/audit/verify",
             "/api/conversations/1/ag-ui", "/api/slack/user-links"]


def assert_401(response) -> None:
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer hitl_not-a-real-token"},
                                     {"Authorization": "Bearer"}, {"Authorization": "Basic YWxpY2U6cHc="},
                                     {"Authorization": "Bearer " + "x" * 5000}])
def test_every_endpoint_needs_a_valid_token(api_app: ApiApp, headers: dict) -> None:
    with api_app.client() as client:
        for path in PROTECTED:
            assert_401(client.get(path, headers=headers))
        for path in ("/api/conversations", "/api/reviews/1/claim", "/api/reviews/1/release",
                     "/api/reviews/1/decision"):
            assert_401(client.post(path, json={}, headers=headers))


def test_revoked_and_expired_tokens_are_refused(api_app: ApiApp) -> None:
    token = api_app.token(["manager"])
    client = api_app.client(token)
    assert client.get("/api/conversations").status_code == 200
    with UnitOfWork(api_app.running.engine) as uow:
        row = uow.session.exec(ApiToken.__table__.select().order_by(ApiToken.id.desc())).first()
        assert row.last_used_at is not None  # recorded on use
        revoke_token_in(uow, None, row.id)  # the app's database: the step, in a unit of work on its engine
        uow.commit()
    assert_401(client.get("/api/conversations"))

    token = api_app.token(["manager"])
    with UnitOfWork(api_app.running.engine) as uow:
        row = uow.session.exec(ApiToken.__table__.select().order_by(ApiToken.id.desc())).first()
        uow.session.exec(ApiToken.__table__.update().where(ApiToken.id == row.id).values(expires_at=utcnow()))
        uow.commit()
    assert_401(api_app.client(token).get("/api/conversations"))


def test_health_and_documents_are_public(api_app: ApiApp) -> None:
    with api_app.client() as client:
        assert client.get("/api/health").json()["database"] == "ok"
        schema = client.get("/api/openapi.json").json()
        assert {"/api/conversations", "/api/reviews/{review_id}/decision", "/api/audit/export"} <= set(schema["paths"])
        assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
        docs = client.get("/api/docs")
        assert docs.status_code == 200 and "swagger" in docs.text.lower()


def test_oversized_bodies_are_413(api_app: ApiApp) -> None:
    client = api_app.client(api_app.token(["security_reviewer"]))
    big = b'{"task": "' + b"x" * 300_000 + b'"}'
    declared = client.post("/api/conversations", content=big, headers={"Content-Type": "application/json"})
    assert declared.status_code == 413
    # In the error shape every other answer has (the limit itself answers in plain text).
    assert declared.headers["content-type"] == "application/json"
    assert declared.json() == {"detail": "Request body too large"}

    def chunks():  # no Content-Length: the limit must count the streamed bytes
        for _ in range(30):
            yield b"x" * 10_000

    # The server answers 413 and stops reading; the client may still be sending, so the answer
    # can race with the connection close. Every answer must be 413, and at least one must arrive.
    answers = []
    for _ in range(5):
        try:
            answers.append(api_app.client(api_app.token(["security_reviewer"])).post(
                "/api/conversations", content=chunks(), headers={"Content-Type": "application/json"}).status_code)
        except (httpx.RemoteProtocolError, httpx.WriteError, httpx.ReadError):
            continue
        if answers:
            break
    assert answers and set(answers) == {413}
    # A new connection: the server may close one whose body it stopped reading.
    fresh = api_app.client(api_app.token(["security_reviewer"]))
    assert fresh.post("/api/conversations", json={"task": "fits"}).status_code == 201
