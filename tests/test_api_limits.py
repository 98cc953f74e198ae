"""Rate limits over HTTP: per token and per client address, 429 with Retry-After. An app of
its own, with tiny limits (the shared test app's are too high to reach)."""

from __future__ import annotations

import pytest

from tests.support.api_app import ApiApp, start_app

pytestmark = pytest.mark.e2e
PER_TOKEN, PER_ADDRESS = 5, 15


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def limited_app(request, tmp_path_factory):
    yield from start_app(tmp_path_factory, request.param, API_RATE_LIMIT=f"{PER_TOKEN}/minute",
                         API_ADDRESS_RATE_LIMIT=f"{PER_ADDRESS}/minute")


def assert_429(response) -> None:
    assert response.status_code == 429, response.text
    assert 1 <= int(response.headers["retry-after"]) <= 60
    assert "rate limit" in response.json()["detail"]


def test_limits_per_token_then_per_address(limited_app: ApiApp) -> None:
    first = limited_app.client(limited_app.token(["manager"]))
    for _ in range(PER_TOKEN):
        assert first.get("/api/conversations").status_code == 200
    assert_429(first.get("/api/conversations"))

    second = limited_app.client(limited_app.token(["manager"]))  # another token has its own budget
    assert second.get("/api/conversations").status_code == 200

    used = PER_TOKEN + 2
    anonymous = limited_app.client()
    for _ in range(PER_ADDRESS - used):  # requests without a token count against the address too
        assert anonymous.get("/api/conversations").status_code == 401
    assert_429(anonymous.get("/api/conversations"))
    assert_429(second.get("/api/conversations"))  # this address is spent, whatever the token
    assert limited_app.client().get("/api/health").status_code == 200  # health checks are never limited
