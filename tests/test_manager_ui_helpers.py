"""The plain functions behind the audit page: keyset pages, filters, summaries, chart points."""

from __future__ import annotations

from datetime import timedelta

import pytest

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import InvalidInput, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.audit import audit_stats
from hitl_dashboard.ui.states.audit import PAGE_SIZE, _page, download_script, summarize
from hitl_dashboard.ui.states.audit_insights import _pivot, chart_data

# The trail's events name no conversation that exists, so no workspace: the instance admin reads them.
MANAGER = Actor(1, "erin", frozenset({"admin"}))
NO_FILTERS = {"user": "", "role": "any", "action": "any", "conversation": "", "since": "", "until": ""}


@pytest.fixture
def trail(sqlite_url):
    with UnitOfWork() as uow:
        for i in range(PAGE_SIZE * 2 + 20):
            append_audit(uow.session, actor="bot" if i % 2 else "eve", action="test.event",
                         conversation_id=i % 3 or None, details={"i": i})
        uow.commit()


def test_pages_go_back_by_seq_until_the_first_event(trail):
    first, more, actions = _page(MANAGER, NO_FILTERS, None)
    assert (len(first), more, actions) == (PAGE_SIZE, True, ["test.event"])
    assert first[0].seq == PAGE_SIZE * 2 + 20 and first[0].summary == f"i: {PAGE_SIZE * 2 + 19}"
    second, more, _ = _page(MANAGER, NO_FILTERS, first[-1].seq)
    assert (second[0].seq, more) == (first[-1].seq - 1, True)
    last, more, _ = _page(MANAGER, NO_FILTERS, second[-1].seq)
    assert (len(last), more, last[-1].seq) == (20, False, 1)


def test_filters_are_checked_and_applied(trail):
    rows, _, _ = _page(MANAGER, {**NO_FILTERS, "user": "eve", "conversation": "#2"}, None)
    assert rows and all(r.actor == "eve" and r.conversation_id == 2 for r in rows)
    assert rows[0].conversation_href == "/conversations/2"
    today = utcnow().date().isoformat()
    assert _page(MANAGER, {**NO_FILTERS, "since": today, "until": today}, None)[0]
    tomorrow = (utcnow() + timedelta(days=1)).date().isoformat()
    assert _page(MANAGER, {**NO_FILTERS, "since": tomorrow}, None)[0] == []
    with pytest.raises(InvalidInput) as bad:
        _page(MANAGER, {**NO_FILTERS, "since": "last week"}, None)
    assert bad.value.field == "since"
    with pytest.raises(InvalidInput) as bad:
        _page(MANAGER, {**NO_FILTERS, "conversation": "abc"}, None)
    assert bad.value.field == "conversation"
    with pytest.raises(PermissionDenied):
        _page(Actor(2, "alice", frozenset({"security_reviewer"})), NO_FILTERS, None)


def test_summaries_are_one_short_line():
    assert summarize({"username": "grace", "roles": ["admin", "manager"], "note": None}) == \
        "username: grace · roles: admin, manager"
    assert summarize({"gate_policy": {"mode": "never"}, "reason": "a\nb"}) == "gate_policy: … · reason: a b"
    assert len(summarize({"reason": "x" * 500})) == 140


def test_chart_points_cover_every_day_of_the_window(sqlite_url):
    since = audit_stats.window_start(7)
    rows = [audit_stats.DayCount(since.date().isoformat(), "approve", 2),
            audit_stats.DayCount((since + timedelta(days=6)).date().isoformat(), "abort", 1)]
    points = _pivot(rows, ("approve", "abort"), since.date(), 7)
    assert len(points) == 7 and points[0]["approve"] == 2 and points[-1]["abort"] == 1
    assert points[0]["day"] == since.date().isoformat()[5:]
    data = chart_data(MANAGER, 7)
    assert [len(data[k]) for k in ("decisions", "breaches", "tokens")] == [7, 7, 7] and data["medians"] == []


def test_the_download_script_quotes_what_it_embeds_and_carries_no_secret():
    script = download_script("csv", 'au"dit</script>.csv')
    assert '"au\\"dit</script>.csv"' in script  # JSON-quoted, as a JavaScript string
    assert "/api/audit/export?format=csv" in script
    # The HttpOnly sign-in cookie goes with the request; the script holds no token of its own.
    assert 'credentials: "include"' in script and "Bearer" not in script
