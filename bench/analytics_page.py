"""The managers' review analytics (services/analytics/review_analytics.py) over a year of data, on
SQLite and PostgreSQL: 30-day and 365-day periods. Target p95 <= 100 ms (the design's figure for
the managers' charts, at 2M messages; the analytics read decisions, requests and conversations,
never messages). Baseline, same run and data: the audit page's charts for the same window
(services/audit/audit_stats.charts), which the design holds to the same target.

Data: bench/queue_queries.py's data set (100k conversations, 2M messages over a year; --quick: 20k,
200k) plus a decision for every decided review request.

    .venv/bin/python bench/analytics_page.py [--quick] [--backend sqlite|postgresql]"""

from __future__ import annotations

import argparse
import statistics
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._support import BACKENDS, p95, temporary_database, timed_ms  # noqa: E402
from bench.queue_queries import SIZES, analyze, seed  # noqa: E402

TARGET_MS = 100.0
SAMPLES = {"full": 20, "quick": 10}


def add_decisions() -> int:
    from sqlmodel import select

    from hitl_dashboard.db.engine import get_engine
    from hitl_dashboard.db.models import Decision, ReviewRequest, User
    from hitl_dashboard.db.uow import UnitOfWork

    with UnitOfWork() as uow:
        reviewers = list(uow.session.exec(select(User.id)))
        decided = list(uow.session.exec(select(ReviewRequest.id, ReviewRequest.conversation_id,
                                               ReviewRequest.required_role, ReviewRequest.created_at)
                                        .where(ReviewRequest.status == "decided")))
    rows = [dict(review_request_id=rid, conversation_id=cid, action="revise" if rid % 5 == 0 else "approve",
                 reviewer_id=reviewers[rid % len(reviewers)], role=role, is_override=False, content_hash="0" * 64,
                 created_at=created + timedelta(minutes=5 + rid % 600)) for rid, cid, role, created in decided]
    with get_engine().begin() as conn:
        for start in range(0, len(rows), 20_000):
            conn.execute(Decision.__table__.insert(), rows[start:start + 20_000])
    return len(rows)


def run_backend(backend: str, size: str) -> list[tuple]:
    from hitl_dashboard.services.analytics.review_analytics import AnalyticsFilters, review_analytics
    from hitl_dashboard.services.audit.audit_stats import charts, window_start
    from hitl_dashboard.services.auth.users import find_actor

    conversations, messages, open_requests, _ = SIZES[size]
    results = []
    with temporary_database(backend):
        seed(conversations, messages, open_requests)
        decisions = add_decisions()
        analyze()
        manager = find_actor("mona")
        for days in (30, 365):
            ours = timed_ms(lambda d=days: review_analytics(manager, AnalyticsFilters(days=d)), SAMPLES[size])
            base = timed_ms(lambda d=days: charts(manager, since=window_start(d)), SAMPLES[size])
            results.append((backend, f"analytics, {days} days", decisions, statistics.median(ours), p95(ours),
                            p95(base)))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="20k conversations, 200k messages")
    parser.add_argument("--backend", choices=BACKENDS, action="append", help="default: both")
    args = parser.parse_args()
    size = "quick" if args.quick else "full"
    rows = []
    for backend in args.backend or BACKENDS:
        rows += run_backend(backend, size)
    print(f"analytics_page ({size}): {SIZES[size][0]:,} conversations, {SIZES[size][1]:,} messages; "
          "baseline = the audit page's charts for the same window")
    print(f"{'backend':<11} {'measure':<22} {'decisions':>9} {'p50 ms':>7} {'p95 ms':>7} {'target':>7} "
          f"{'baseline p95':>13} {'ratio':>6}")
    for backend, name, decisions, median, figure, baseline in rows:
        print(f"{backend:<11} {name:<22} {decisions:>9,} {median:>7.1f} {figure:>7.1f} {'<= 100':>7} "
              f"{baseline:>13.1f} {figure / baseline:>5.2f}x")
    print("ratio = analytics p95 / charts p95 (what the analytics cost next to the charts)")


if __name__ == "__main__":
    main()
