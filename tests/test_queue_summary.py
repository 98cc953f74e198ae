"""The queue summary behind the tab counts and the unread title count: one grouped count equal to
what each queue lists, the newest open requests first, and only roles the caller holds."""

from __future__ import annotations

import pytest

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.services.reviews.queue_summary import newest_open, open_counts
from hitl_dashboard.ui.states import queue_summary
from hitl_dashboard.ui.states.queue_summary import CACHE_S, cached_summary
from tests.support.db_state import use_cheap_passwords
from tests.support.flow import actor, make_people, queue, start, work

ROLES = ("security_reviewer", "product_reviewer", "final_approver")


@pytest.fixture
def people(sqlite_url, monkeypatch):
    monkeypatch.setenv("SCRIPTED_DELAY_MS", "0")
    use_cheap_passwords(monkeypatch)
    make_people()
    return sqlite_url


def test_counts_match_the_queues_and_newest_come_first(people):
    for task in ("Write a function that parses CSV rows", "Add retry with exponential backoff to the sync"):
        start(task)
    work()
    frank = actor("frank")
    counts = open_counts(frank, ROLES)
    assert counts == {role: len(queue("frank", role)) for role in ROLES}
    assert counts["security_reviewer"] >= 2
    newest = newest_open(frank, ROLES)
    assert [a.review_id for a in newest] == sorted((a.review_id for a in newest), reverse=True)
    assert {a.role for a in newest} <= set(ROLES) and newest[0].title


def test_only_the_callers_own_queues(people):
    with pytest.raises(PermissionDenied):
        open_counts(actor("alice"), ("product_reviewer",))
    with pytest.raises(PermissionDenied):
        newest_open(actor("bob"), ("security_reviewer",))
    assert open_counts(actor("erin"), ("admin", "security_reviewer")) == {"admin": 0, "security_reviewer": 0}


def test_polls_share_one_read_per_role_set_but_each_caller_is_checked(people, monkeypatch):
    start("Add retry with exponential backoff to the sync")
    work()
    monkeypatch.setattr(queue_summary, "_recent", {})  # another test's database is not this one's
    roles = ("security_reviewer",)
    frank = actor("frank")
    first = cached_summary(frank, roles, now=1000.0)
    assert first[0]["security_reviewer"] >= 1 and first[1][0].role == "Security"
    start("Add retry with exponential backoff to the mailer")
    work()
    assert cached_summary(frank, roles, now=1000.5) is first  # within CACHE_S: the same read
    fresh = cached_summary(frank, roles, now=1000.0 + CACHE_S)
    assert fresh[0]["security_reviewer"] == first[0]["security_reviewer"] + 1
    with pytest.raises(PermissionDenied):  # a warm cache is no way around the role check
        cached_summary(actor("bob"), roles, now=1000.0 + CACHE_S)
