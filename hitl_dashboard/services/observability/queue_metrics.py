"""Queue depth, oldest open request's age and the SLA per review role, read at scrape time."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import select

from hitl_dashboard.db.models import ReviewRequest, review_is_open, utcnow
from hitl_dashboard.domain.enums import QUEUE_ROLES
from hitl_dashboard.services.transactions import reading
from hitl_dashboard.settings import get_settings


def queue_snapshot() -> dict[str, tuple[int, float]]:
    """role -> (open requests, age in seconds of the oldest one; 0 when none). One grouped read
    over the open-request index."""
    query = (select(ReviewRequest.required_role, func.count(), func.min(ReviewRequest.created_at))
             .where(review_is_open()).group_by(ReviewRequest.required_role))
    now = utcnow()
    found = {role: (0, 0.0) for role in QUEUE_ROLES}
    with reading() as uow:
        for role, count, oldest in uow.session.exec(query):
            if oldest is not None and oldest.tzinfo is None:  # SQLite hands back naive UTC
                oldest = oldest.replace(tzinfo=now.tzinfo)
            found[role] = (int(count), max(0.0, (now - oldest).total_seconds()) if oldest else 0.0)
    return found


class ReviewQueueCollector:
    """A prometheus-client collector (it only needs collect())."""

    def collect(self):
        from prometheus_client.core import GaugeMetricFamily

        depth = GaugeMetricFamily("hitl_review_queue_depth", "Open review requests, by role", labels=["role"])
        oldest = GaugeMetricFamily("hitl_review_queue_oldest_age_seconds",
                                   "Age of the oldest open review request, by role (0: none open)", labels=["role"])
        sla = GaugeMetricFamily("hitl_review_sla_seconds", "The review deadline configured for each role",
                                labels=["role"])
        for role, (count, age) in sorted(queue_snapshot().items()):
            depth.add_metric([role], count)
            oldest.add_metric([role], age)
        for role, hours in sorted(get_settings().sla_hours().items()):
            sla.add_metric([role], hours * 3600)
        yield from (depth, oldest, sla)
