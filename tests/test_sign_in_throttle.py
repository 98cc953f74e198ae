"""Failed sign-ins: throttled per account and per client address, audited without the password,
with the same answers for a name that does not exist (real SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import uuid

import pytest
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import PermissionDenied, TooManyAttempts
from hitl_dashboard.services.auth.sign_in_throttle import SignInThrottle, get_sign_in_throttle
from hitl_dashboard.services.auth.sign_ins import sign_in
from hitl_dashboard.services.auth.users import create_user
from hitl_dashboard.settings import reset_settings_cache
from tests.support.redis_check import redis_or_skip
from tests.test_api_rate_limit_storage import REDIS_URL

# Signing in is the subject: the production password hasher (argon2 at its real cost).
pytestmark = pytest.mark.argon2

PASSWORD = "right-horse-battery"
WRONG = "wrong-password-0451"
BAD_CREDENTIALS = "unknown user or wrong password"
THROTTLED = "Too many failed sign-ins for this account or from this address. Try again in about"


@pytest.fixture
def throttled_db(db_url, monkeypatch):
    """Small limits, so a handful of attempts reaches them; a fresh in-memory count per test."""
    monkeypatch.setenv("SIGN_IN_ACCOUNT_LIMIT", "3/minute;6/hour")
    monkeypatch.setenv("SIGN_IN_ADDRESS_LIMIT", "8/minute")
    monkeypatch.delenv("REDIS_URL", raising=False)
    reset_settings_cache()
    get_sign_in_throttle.cache_clear()
    yield db_url
    get_sign_in_throttle.cache_clear()


def make_user() -> str:
    name = f"user-{uuid.uuid4().hex[:8]}"
    create_user(username=name, password=PASSWORD, roles=["security_reviewer"])
    return name


def outcome(username: str, password: str, address: str = "10.0.0.1") -> str:
    """What the caller is told: 'signed in', the refusal, or the throttle message (seconds cut off)."""
    try:
        sign_in(username, password, address=address)
        return "signed in"
    except TooManyAttempts as exc:
        assert str(exc).startswith(THROTTLED) and 1 <= exc.retry_after_s <= 60, str(exc)
        assert str(exc).endswith(f"{exc.retry_after_s} seconds."), str(exc)
        return "throttled"
    except PermissionDenied as exc:
        assert str(exc) == BAD_CREDENTIALS
        return "refused"


def failed_sign_ins() -> list[AuditEvent]:
    with UnitOfWork() as uow:
        return list(uow.session.exec(
            select(AuditEvent).where(AuditEvent.action == "user.sign_in_failed").order_by(AuditEvent.seq)))


def test_wrong_passwords_are_throttled_after_the_limit_even_the_right_one(throttled_db) -> None:
    name = make_user()
    assert [outcome(name, WRONG) for _ in range(3)] == ["refused"] * 3
    assert outcome(name, WRONG) == "throttled"
    # The account is locked for everyone until the window moves on (the trade-off in docs/security.md).
    assert outcome(name, PASSWORD) == "throttled"
    assert outcome(name, PASSWORD, address="10.9.9.9") == "throttled"


def test_an_unknown_name_gets_the_same_answers(throttled_db) -> None:
    existing, missing = make_user(), f"nobody-{uuid.uuid4().hex[:8]}"
    answers_existing = [outcome(existing, WRONG, address="10.0.0.2") for _ in range(5)]
    answers_missing = [outcome(missing, WRONG, address="10.0.0.3") for _ in range(5)]
    assert answers_existing == answers_missing == ["refused"] * 3 + ["throttled"] * 2


def test_names_are_counted_as_normalised(throttled_db) -> None:
    name = make_user()
    assert [outcome(spelling, WRONG) for spelling in (name, f"  {name.upper()}", f"{name} ")] == ["refused"] * 3
    assert outcome(name, PASSWORD) == "throttled"


def test_the_right_password_clears_the_account_count(throttled_db) -> None:
    name = make_user()
    assert [outcome(name, WRONG), outcome(name, WRONG), outcome(name, PASSWORD)] == ["refused", "refused", "signed in"]
    assert [outcome(name, WRONG), outcome(name, WRONG), outcome(name, PASSWORD)] == ["refused", "refused", "signed in"]


def test_failed_attempts_are_audited_without_the_password(throttled_db) -> None:
    name = make_user()
    for _ in range(3):
        outcome(name, WRONG, address="192.0.2.7")
    for _ in range(3):  # throttled three times: audited once a minute, not once per attempt
        assert outcome(name, WRONG, address="192.0.2.7") == "throttled"
    events = failed_sign_ins()
    assert [e.details["reason"] for e in events] == ["bad_credentials"] * 3 + ["throttled"]
    assert all(e.actor == "anonymous" and e.details["username"] == name and e.details["address"] == "192.0.2.7"
               for e in events)
    stored = json.dumps([e.payload() for e in events])
    assert WRONG not in stored and PASSWORD not in stored


def test_an_overlong_name_is_audited_shortened(throttled_db) -> None:
    assert outcome("x" * 5000, WRONG) == "refused"
    (event,) = failed_sign_ins()
    assert event.details["username"] == "x" * 64


def test_one_address_is_throttled_across_accounts_and_others_are_not(throttled_db) -> None:
    names = [make_user() for _ in range(9)]
    # Address limit 8/minute: a spray of one wrong guess per account from one address.
    assert [outcome(n, WRONG, address="198.51.100.1") for n in names[:8]] == ["refused"] * 8
    assert outcome(names[8], PASSWORD, address="198.51.100.1") == "throttled"
    assert outcome(names[8], PASSWORD, address="198.51.100.2") == "signed in"


def test_two_workers_share_the_counts_through_redis() -> None:
    redis_or_skip(REDIS_URL)
    worker_a = SignInThrottle(REDIS_URL, "2/minute", "100/minute")
    worker_b = SignInThrottle(REDIS_URL, "2/minute", "100/minute")
    name = f"shared-{uuid.uuid4().hex}"
    worker_a.begin_attempt(name, "10.1.1.1")
    worker_b.begin_attempt(name, "10.1.1.2")
    with pytest.raises(TooManyAttempts) as refused:
        worker_a.begin_attempt(name, "10.1.1.3")
    assert 1 <= refused.value.retry_after_s <= 60


def test_an_unreachable_store_lets_sign_in_through_and_says_so(caplog) -> None:
    throttle = SignInThrottle("redis://127.0.0.1:1/0", "1/minute", "1/minute")
    for _ in range(3):
        throttle.begin_attempt("someone", "10.1.1.1")  # no exception: fail open
    assert "sign-in throttle storage unavailable" in caplog.text
