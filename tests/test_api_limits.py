"""Rate limits over HTTP: per token and per client address, 429 with Retry-After. An app of
its own, with tiny limits (the shared test app's are too high to reach)."""

from __future__ import annotations

import pytest

from tests.support.api_app import ApiApp, start_app

pytestmark = pytest.mark.e2e
PER_TOKEN, PER_ADDRESS = 5, 15


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def limited_app(request, tmp_path_factory):
    # One trusted proxy: X-Forwarded-For's last entry is the caller (requests without it: the peer).
    yield from start_app(tmp_path_factory, request.param, API_RATE_LIMIT=f"{PER_TOKEN}/minute",
                         API_ADDRESS_RATE_LIMIT=f"{PER_ADDRESS}/minute", TRUSTED_PROXY_HOPS="1")


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


def test_behind_a_trusted_proxy_each_browser_address_has_its_own_budget(limited_app: ApiApp) -> None:
    via_proxy = limited_app.client()
    office = {"X-Forwarded-For": "203.0.113.7"}
    for _ in range(PER_ADDRESS):
        assert via_proxy.get("/api/conversations", headers=office).status_code == 401
    assert_429(via_proxy.get("/api/conversations", headers=office))
    # A client that writes its own X-Forwarded-For entry is still counted by what the proxy appended.
    assert_429(via_proxy.get("/api/conversations", headers={"X-Forwarded-For": "198.51.100.1, 203.0.113.7"}))
    # Another browser behind the same proxy is not blocked by the first one's requests.
    assert via_proxy.get("/api/conversations", headers={"X-Forwarded-For": "203.0.113.8"}).status_code == 401
