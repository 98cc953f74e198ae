"""The decision panel's "how it ended" list (services/reviews/review_outcomes.py): each closed
request says who decided what and when, a dismissal says why and by whom, a tool call what ran or
will not run; the same words as the conflict message a reviewer gets (closed_how), read in a fixed
number of statements however many requests closed (the live refresh reads it on every change)."""

from __future__ import annotations

from sqlalchemy import event

from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.reviews.review_outcomes import recent_outcomes
from hitl_dashboard.services.reviews.review_requests import closed_how
from tests.support import flow
from tests.support.db_state import reviews_of, tool_call
from tests.test_parallel_tool_calls import PRODUCTION, REPORT, _two_calls_waiting, stub  # noqa: F401


def _statements(run) -> tuple[object, int]:
    count = 0

    def counted(*_args):
        nonlocal count
        count += 1

    engine = get_engine()
    event.listen(engine, "before_cursor_execute", counted)
    try:
        return run(), count
    finally:
        event.remove(engine, "before_cursor_execute", counted)


def _closed_as_closed_how_says(cid: int) -> dict[int, object]:
    with UnitOfWork(read_only=True) as uow:
        outcomes = {o.review_id: o for o in recent_outcomes(uow, cid)}
        expected = {r.id: closed_how(uow.session, r) for r in reviews_of(cid) if r.status not in ("pending", "claimed")}
    assert {i: o.outcome for i, o in outcomes.items()} == expected
    return outcomes


def test_outcomes_say_who_decided_what_in_a_fixed_number_of_statements(db_url, stub):  # noqa: F811
    cid, review = _two_calls_waiting(stub)
    flow.decide_as("erin", review["staging"].id, "approve", reason="staging is fine",
                   override_reason="alice is on leave")
    with UnitOfWork(read_only=True) as uow:
        one, statements_for_one = _statements(lambda: recent_outcomes(uow, cid))
    assert len(one) == 1

    flow.decide_as("alice", review["production"].id, "revise", instructions="not on a Friday")
    stub.enqueue(REPORT)
    flow.work()
    with UnitOfWork(read_only=True) as uow:
        two, statements = _statements(lambda: recent_outcomes(uow, cid))
    assert len(two) == 2
    outcomes = _closed_as_closed_how_says(cid)
    staging, production = outcomes[review["staging"].id], outcomes[review["production"].id]
    assert staging.outcome.startswith("APPROVE by erin at ") and staging.override_reason == "alice is on leave"
    assert staging.tool.startswith("Ran deploy_to_prod(")
    assert production.outcome.startswith("REVISE by alice at ") and production.override_reason == ""
    assert production.tool.startswith("Will not run deploy_to_prod(")
    assert tool_call(review["production"].subject_id).arguments == PRODUCTION
    # More closed requests, same number of statements (no lookup per request).
    assert statements == statements_for_one


def test_a_dismissed_request_says_why_and_by_whom(db_url, stub):  # noqa: F811
    cid, review = _two_calls_waiting(stub)
    flow.decide_as("alice", review["staging"].id, "abort", reason="wrong release")
    outcomes = _closed_as_closed_how_says(cid)
    assert outcomes[review["staging"].id].outcome.startswith("ABORT by alice at ")
    assert outcomes[review["production"].id].outcome == "dismissed (conversation aborted) by alice"
