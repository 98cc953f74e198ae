"""Send queued webhook deliveries: signed POSTs, retried with exponential backoff.

Several workers may call deliver_due at once. Each delivery is claimed with a conditional UPDATE
(on its attempt count) that pushes next_attempt_at past the send timeout, so no two workers
send it at the same time; a worker that dies mid-send leaves a claim that runs out and the
delivery is retried. Delivery is therefore at least once: receivers de-duplicate on
X-HITL-Delivery (or on the event id in the body)."""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass, field
from datetime import timedelta

import httpx
from sqlalchemy import update
from sqlmodel import col, select

from hitl_dashboard.db.models import Webhook, WebhookDelivery, utcnow
from hitl_dashboard.domain.text_cuts import cut_visibly
from hitl_dashboard.observability import metrics
from hitl_dashboard.services.observability.webhook_tracing import traced_delivery
from hitl_dashboard.services.transactions import transaction
from hitl_dashboard.services.webhooks.webhook_payloads import headers_for, render_body
from hitl_dashboard.settings import get_settings

log = logging.getLogger(__name__)

CLAIM_MARGIN_S = 30.0  # beyond the send timeout, before another worker may take the delivery over


@dataclass(frozen=True)
class _Job:
    delivery_id: int
    attempt: int
    url: str
    secret: str
    format: str
    event: str
    payload: dict


@dataclass
class DeliveryReport:
    delivered: list[int] = field(default_factory=list)
    retrying: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)


async def deliver_due(limit: int = 20, delivery_id: int | None = None) -> DeliveryReport:
    """Send up to `limit` deliveries that are due (only `delivery_id`, when given: a test sent from
    the webhooks page); returns what happened to each."""
    jobs = _claim_due(limit, delivery_id)
    report = DeliveryReport()
    if not jobs:
        return report
    settings = get_settings()
    async with httpx.AsyncClient(timeout=settings.webhook_timeout_s, follow_redirects=False) as client:
        await asyncio.gather(*(_send_and_record(client, job, report) for job in jobs))
    return report


async def _send_and_record(client: httpx.AsyncClient, job: _Job, report: DeliveryReport) -> None:
    # Each answer is recorded as soon as it is in, not once the whole batch has answered: a worker
    # killed mid-round then leaves only the deliveries it was still sending to be sent again.
    status_code, error = await _send(client, job)
    _record(job, status_code, error, report)


_round: asyncio.Task | None = None


def start_delivery_round() -> None:
    """For the runner loop: start a delivery round unless one is still going. The round runs as
    its own task, so a slow receiver (up to the send timeout) never holds up the agents."""
    global _round
    if _round is None or _round.done():
        _round = asyncio.create_task(_deliver_logged())


async def _deliver_logged() -> None:
    try:
        await deliver_due()
    except Exception:  # noqa: BLE001 - a database blip: the next round tries again
        log.exception("webhook delivery round failed")


def _claim_due(limit: int, delivery_id: int | None = None) -> list[_Job]:
    now = utcnow()
    claim_until = now + timedelta(seconds=get_settings().webhook_timeout_s + CLAIM_MARGIN_S)
    jobs: list[_Job] = []
    with transaction() as uow:
        query = (select(WebhookDelivery, Webhook).join(Webhook, col(Webhook.id) == col(WebhookDelivery.webhook_id))
                 .where(col(WebhookDelivery.status) == "pending", col(WebhookDelivery.next_attempt_at) <= now))
        if delivery_id is not None:
            query = query.where(col(WebhookDelivery.id) == delivery_id)
        due = uow.session.exec(
            query.order_by(col(WebhookDelivery.next_attempt_at), col(WebhookDelivery.id)).limit(limit)
        ).all()
        for delivery, hook in due:
            won = uow.session.exec(
                update(WebhookDelivery)
                .where(col(WebhookDelivery.id) == delivery.id, col(WebhookDelivery.status) == "pending",
                       col(WebhookDelivery.attempts) == delivery.attempts, col(WebhookDelivery.next_attempt_at) <= now)
                .values(attempts=delivery.attempts + 1, next_attempt_at=claim_until)
                .execution_options(synchronize_session=False)
            ).rowcount == 1
            if won:
                jobs.append(_Job(delivery.id, delivery.attempts + 1, hook.url, hook.secret, hook.format,
                                 delivery.event, dict(delivery.payload)))
    return jobs


@traced_delivery
async def _send(client: httpx.AsyncClient, job: _Job) -> tuple[int | None, str | None]:
    body = render_body(job.format, job.payload)
    try:
        response = await client.post(job.url, content=body,
                                     headers=headers_for(job.secret, body, job.event, job.delivery_id))
    except httpx.HTTPError as exc:
        return None, cut_visibly(f"{type(exc).__name__}: {exc}", 1000)
    except Exception as exc:  # noqa: BLE001 - one bad URL must not stop the other deliveries
        log.exception("webhook delivery %s: unexpected error", job.delivery_id)
        return None, cut_visibly(f"{type(exc).__name__}: {exc}", 1000)
    if 200 <= response.status_code < 300:
        return response.status_code, None
    return response.status_code, f"HTTP {response.status_code}: {cut_visibly(response.text, 300)}"


def retry_delay_s(attempt: int) -> float:
    """Exponential backoff with a little jitter, so failed receivers are not hit in lockstep."""
    settings = get_settings()
    delay = min(settings.webhook_retry_base_s * 2 ** (attempt - 1), settings.webhook_retry_max_s)
    return delay * random.uniform(0.9, 1.1)


def _record(job: _Job, status_code: int | None, error: str | None, report: DeliveryReport) -> None:
    now = utcnow()
    if error is None:
        values = {"status": "delivered", "delivered_at": now, "last_status_code": status_code, "last_error": None}
        bucket = report.delivered
    elif job.attempt >= get_settings().webhook_max_attempts:
        values = {"status": "failed", "last_status_code": status_code, "last_error": error}
        bucket = report.failed
    else:
        values = {"next_attempt_at": now + timedelta(seconds=retry_delay_s(job.attempt)),
                  "last_status_code": status_code, "last_error": error}
        bucket = report.retrying
    with transaction() as uow:
        # Only while our claim holds: if it ran out and another worker took over, its result counts.
        recorded = uow.session.exec(
            update(WebhookDelivery)
            .where(col(WebhookDelivery.id) == job.delivery_id, col(WebhookDelivery.attempts) == job.attempt,
                   col(WebhookDelivery.status) == "pending")
            .values(**values).execution_options(synchronize_session=False)
        ).rowcount == 1
    if recorded:
        bucket.append(job.delivery_id)
    if recorded and error is not None:
        metrics.webhook_failure(job.event, final=bucket is report.failed)
    if error is not None:
        log.warning("webhook delivery %s to %s failed (attempt %s): %s", job.delivery_id, job.url, job.attempt, error)
