"""Passwords are stored as argon2 hashes at the production cost; the tests' cheap hasher
(tests/conftest.py) is theirs only, and a test marked argon2 gets the production one back."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher

from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.users import authenticate, create_user

PRODUCTION = PasswordHasher()


def _stored_hash() -> str:
    return create_user(username="alice", password="pw-alice-1", roles=["security_reviewer"]).password_hash


@pytest.mark.argon2
def test_a_password_is_stored_as_an_argon2_hash_at_the_production_cost(sqlite_url):
    stored = _stored_hash()
    assert stored.startswith("$argon2id$")
    assert f"m={PRODUCTION.memory_cost},t={PRODUCTION.time_cost},p={PRODUCTION.parallelism}" in stored
    assert "pw-alice-1" not in stored
    with UnitOfWork() as uow:
        assert authenticate(uow, "alice", "pw-alice-1").username == "alice"


def test_other_tests_store_cheap_argon2_hashes_the_production_hasher_still_verifies(sqlite_url):
    stored = _stored_hash()
    assert stored.startswith("$argon2id$") and "m=8,t=1,p=1" in stored
    assert PRODUCTION.verify(stored, "pw-alice-1")
