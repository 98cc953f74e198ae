"""Review analytics from rows with known timings: medians and p90s, rates, rounds, tokens, overdue,
the filters, and who may read them."""

from __future__ import annotations

import pytest

from hitl_dashboard.domain.errors import InvalidInput, PermissionDenied
from hitl_dashboard.services.analytics.review_analytics import AnalyticsFilters, p90, review_analytics
from hitl_dashboard.ui.views.analytics_view import tables, to_csv
from tests.support import flow
from tests.support.analytics_rows import seed


def test_figures_match_the_rows(db_url):
    flow.make_people()
    seeded = seed()
    found = review_analytics(flow.actor("dave"), AnalyticsFilters(days=7, role="product_reviewer"))
    (mine,) = [w for w in found.by_reviewer if w.key == seeded.reviewer]
    assert (mine.decisions, mine.median_s, mine.p90_s) == (3, 120.0, 600.0)
    assert mine.conversations == seeded.conversations
    (rates,) = found.rates
    assert (rates.requests, rates.breaches, rates.decisions, rates.revises) == (4, 0, 3, 1)
    assert rates.revised == [seeded.conversations[0]]
    costs = {c.id: c for c in found.conversations}
    assert [costs[cid].tokens for cid in seeded.conversations] == seeded.tokens
    assert [costs[cid].rounds for cid in seeded.conversations] == [2, 1, 1]
    (team,) = found.teams
    assert (team.key, team.count) == ("copy", sum(seeded.tokens))
    (overdue,) = found.overdue
    assert (overdue.key, overdue.count, overdue.conversations) == ("product_reviewer", 1,
                                                                    [seeded.overdue_conversation])
    assert sum(d.count for d in found.per_day) == 3

    # Another team or role: none of it.
    other = review_analytics(flow.actor("dave"), AnalyticsFilters(days=7, team="code"))
    assert other.by_reviewer == [] and other.overdue == [] and other.teams == []
    figures, ids = tables(found)
    reviewers = next(t for t in figures if t.name == "reviewers")
    row = next(r for r in reviewers.rows if r.cells[0] == seeded.reviewer)
    assert row.cells[2:] == ["3", "2 min", "10 min"] and ids[row.key] == seeded.conversations
    lines = to_csv(reviewers, ids).splitlines()
    assert lines[0] == "Reviewer,Role,Decisions,Median,p90,Conversation ids"
    assert f"{seeded.reviewer},Product,3,2 min,10 min,{' '.join(map(str, seeded.conversations))}" in lines


def test_only_managers_and_admins_and_only_known_filters(sqlite_url):
    flow.make_people()
    with pytest.raises(PermissionDenied):
        review_analytics(flow.actor("alice"), AnalyticsFilters())
    with pytest.raises(InvalidInput):
        review_analytics(flow.actor("dave"), AnalyticsFilters(days=3))
    with pytest.raises(InvalidInput):
        review_analytics(flow.actor("erin"), AnalyticsFilters(team="poetry"))


def test_p90_is_the_nearest_rank():
    assert p90([]) == 0.0 and p90([5.0]) == 5.0
    assert p90([float(v) for v in range(1, 11)]) == 9.0 and p90([1.0, 2.0, 10.0]) == 10.0
