"""The managers' numbers (services/audit_stats) and the audit event context (services/audit_context),
on SQLite and PostgreSQL: grouping by UTC day, medians per role, breaches, tokens, permissions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text, update

from hitl_dashboard.db.models import Decision, Message, ReviewRequest, utcnow
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import NotFound, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.audit import audit_context, audit_queries, audit_stats
from hitl_dashboard.services.conversations import start_options
from hitl_dashboard.services.reviews.escalation import escalate_overdue
from hitl_dashboard.ui.states.audit_insights import chart_data
from tests.support import flow
from tests.support.db_state import audit_events, decisions, use_cheap_passwords

CODE_TASK = "Add retry with exponential backoff to the payments client"
DEPLOY_TASK = "Deploy billing-api v2.4.1 to production"
DAY1 = datetime(2030, 3, 10, tzinfo=UTC)
SINCE = DAY1 - timedelta(days=1)


@pytest.fixture
def people(db_url, monkeypatch):
    use_cheap_passwords(monkeypatch)
    flow.make_people()
    return db_url


def _stats(fn, name: str = "dave", **kw):
    return fn(flow.actor(name), since=kw.pop("since", SINCE), **kw)


def _set(model, row_id: int, **values) -> None:
    with UnitOfWork() as uow:
        uow.session.exec(update(model).where(model.id == row_id).values(**values))
        uow.commit()


def _code_review_decided() -> tuple[int, list[Decision]]:
    """Security revises then approves, final approves: three decisions on one conversation."""
    cid = flow.start(CODE_TASK)
    flow.work()
    flow.decide_as("alice", flow.only_open_review(cid).id, "revise", target_agent="coder",
                   instructions="add a timeout to every call")
    flow.work()
    flow.decide_as("alice", flow.only_open_review(cid).id, "approve", reason="safe now")
    flow.decide_as("carol", flow.only_open_review(cid).id, "approve")
    assert flow.conversation(cid).status == "approved"
    return cid, decisions()


def test_decisions_per_day_and_median_hours_per_role(people):
    _, (revise, approve, final) = _code_review_decided()
    # Pin the times: requests opened on day 1; decided 2 h, 4 h and 10 h later, the last one
    # (opened at 20:00 UTC) on day 2.
    for decision, hours in ((revise, 2), (approve, 4), (final, 10)):
        opened = DAY1 + timedelta(hours=20 if decision is final else 8)
        _set(ReviewRequest, decision.review_request_id, created_at=opened)
        _set(Decision, decision.id, created_at=opened + timedelta(hours=hours))

    per_day = _stats(audit_stats.decisions_per_day)
    assert [(d.day, d.key, d.count) for d in per_day] == [
        ("2030-03-10", "approve", 1), ("2030-03-10", "revise", 1), ("2030-03-11", "approve", 1),
    ]

    medians = {m.role: (m.median_hours, m.decisions) for m in _stats(audit_stats.median_hours_to_decision)}
    assert medians == {"security_reviewer": (3.0, 2), "final_approver": (10.0, 1)}

    # The window: nothing before `since`.
    assert [d.day for d in _stats(audit_stats.decisions_per_day, since=DAY1 + timedelta(days=1))] == ["2030-03-11"]


def test_days_are_utc_whatever_the_database_session_time_zone(people):
    _, (revise, _approve, _final) = _code_review_decided()
    _set(Decision, revise.id, created_at=DAY1 + timedelta(hours=23, minutes=30))
    with UnitOfWork() as uow:
        if uow.dialect == "postgresql":
            # 23:30 UTC is already the next day in Auckland; the chart must still say day 1.
            uow.session.exec(text("SET TIME ZONE 'Pacific/Auckland'"))
        # The query step, inside this session whose time zone was just changed.
        rows = audit_stats._decisions_per_day(uow, SINCE)
    assert ("2030-03-10", "revise", 1) in [(d.day, d.key, d.count) for d in rows]


def test_sla_breaches_per_day_count_escalated_and_expired_requests(people):
    escalating = flow.start(CODE_TASK)
    expiring = flow.start(CODE_TASK, on_overdue="abort")
    flow.work()
    for cid in (escalating, expiring):
        _set(ReviewRequest, flow.only_open_review(cid).id, due_at=utcnow() - timedelta(minutes=5))
    handled = escalate_overdue()
    assert len(handled) == 2

    rows = _stats(audit_stats.sla_breaches_per_day, since=audit_stats.window_start(7))
    today = utcnow().date().isoformat()
    assert {(d.day, d.key): d.count for d in rows} == {(today, "escalated"): 1, (today, "expired"): 1}


def test_tokens_per_day_sum_prompt_and_completion_tokens(people):
    cid = flow.start(CODE_TASK)
    flow.work()
    first, *rest = [m for m in flow.messages(cid)]
    _set(Message, first.id, created_at=DAY1, prompt_tokens=100, completion_tokens=20)
    for i, message in enumerate(rest):
        _set(Message, message.id, created_at=DAY1 + timedelta(days=1, hours=i), prompt_tokens=5, completion_tokens=1)

    rows = _stats(audit_stats.tokens_per_day)
    assert [(d.day, d.count) for d in rows] == [("2030-03-10", 120), ("2030-03-11", 6 * len(rest))]


def test_only_managers_and_admins_read_the_numbers(people):
    for fn in (audit_stats.decisions_per_day, audit_stats.median_hours_to_decision,
               audit_stats.sla_breaches_per_day, audit_stats.tokens_per_day):
        with pytest.raises(PermissionDenied):
            _stats(fn, "alice")
        assert _stats(fn, "erin") == []  # an admin may; nothing happened yet
    with pytest.raises(PermissionDenied):
        audit_context.event_context(flow.actor("bob"), 1)


def test_decision_event_shows_the_exact_code_that_was_approved(people):
    cid, (_revise, approve, _final) = _code_review_decided()
    [event] = [e for e in audit_events("decision.recorded") if e.details["decision_id"] == approve.id]
    context = audit_context.event_context(flow.actor("dave"), event.seq)
    reviewed = context.reviewed
    assert context.event.actor == "alice" and reviewed.hash_matches
    assert reviewed.content_hash == event.content_hash and reviewed.subject_type == "code_revision"
    latest = {r.key: r for r in flow.detail(cid).revisions}  # ordered by number: the last one wins
    assert [p.text for p in reviewed.parts] == [latest[k].content for k in sorted(latest)]
    assert "revision 2" in reviewed.parts[0].title


def test_tool_call_event_shows_requested_and_edited_arguments(people):
    cid = flow.start(DEPLOY_TASK, task_type="ops")
    flow.work()
    review = flow.only_open_review(cid)
    edited = {"service": "billing-api", "version": "v2.4.2", "environment": "staging"}
    flow.decide_as("alice", review.id, "approve", edited_args=edited)
    [event] = audit_events("decision.recorded", review_id=review.id)
    reviewed = audit_context.event_context(flow.actor("erin"), event.seq).reviewed
    assert reviewed.hash_matches and reviewed.subject_type == "tool_call"
    requested, approved = reviewed.parts
    assert '"version": "2.4.1"' in requested.text and '"version": "v2.4.2"' in approved.text
    assert "edited" in approved.title


def test_known_actions_and_events_without_a_review(people):
    dave, erin = flow.actor("dave"), flow.actor("erin")
    assert "user.created" in audit_queries.known_actions(dave)
    context = audit_context.event_context(erin, 1)
    assert context.event.action == "user.created" and context.reviewed is None
    # A user's creation is the instance's event: a workspace's manager is told it does not exist.
    with pytest.raises(NotFound, match="audit event 1 does not exist"):
        audit_context.event_context(dave, 1)


def test_start_options_route_only_what_differs_from_the_default(sqlite_url):
    """The teams are their newest versions in the database (seeded from the team files)."""
    assert start_options.task_types() == ["code", "copy", "ops", "auto"]
    member = Actor(1, "someone", frozenset({"product_reviewer"}), memberships=((1, frozenset({"product_reviewer"})),))
    auto = start_options.form_choices(member, "auto", "auto")
    assert auto.templates["auto"] == ["planner", "coder", "copywriter", "operator"]
    assert start_options.form_choices(member, "copy", "copy").policy["agents"] == ("copywriter",)
    assert auto.policy["agents"] == ("coder", "copywriter", "operator")
    assert "deploy_to_prod" in auto.tools
    routing = start_options.model_routing({"planner": ("scripted", "scripted"), "coder": ("openai", "gpt-4o")})
    assert routing == {"coder": {"provider": "openai", "model": "gpt-4o"}}


def test_the_median_chart_reads_in_the_unit_the_team_decides_in(people):
    """A team that decides in minutes must not see bars of 0.0 hours: the chart picks the largest unit
    in which the slowest role's median is at least 2 of them."""
    _, (revise, approve, final) = _code_review_decided()

    def decided_after(first: timedelta, second: timedelta, final_after: timedelta) -> dict:
        """The two security decisions and the final one, each that long after its request."""
        for decision, after in ((revise, first), (approve, second), (final, final_after)):
            _set(ReviewRequest, decision.review_request_id, created_at=DAY1)
            _set(Decision, decision.id, created_at=DAY1 + after)
        data = chart_data(flow.actor("dave"), 7)
        return {"unit": data["median_unit"], **{row["reviewer"]: row["median"] for row in data["medians"]}}

    assert decided_after(timedelta(minutes=4), timedelta(minutes=8), timedelta(minutes=30)) == \
        {"unit": "minutes", "Security": 6.0, "Final sign-off": 30.0}
    assert decided_after(timedelta(seconds=20), timedelta(seconds=40), timedelta(seconds=90)) == \
        {"unit": "seconds", "Security": 30.0, "Final sign-off": 90.0}
    assert decided_after(timedelta(hours=2), timedelta(hours=4), timedelta(minutes=30)) == \
        {"unit": "hours", "Security": 3.0, "Final sign-off": 0.5}
    # Decided by a script within milliseconds: a bar of its own size, not 0.0 and no bar at all.
    assert decided_after(timedelta(milliseconds=20), timedelta(milliseconds=40), timedelta(seconds=3)) == \
        {"unit": "seconds", "Security": 0.03, "Final sign-off": 3.0}
