"""`runner --until-idle` (and the demo seed): everything the long-running loop (loop.py) does, drained
in rounds until nothing is left to do: agent turns, code analyses, reviewers' questions and webhook
deliveries. Each item ends done or failed (failed = its attempts are spent):

- a turn: the conversation pauses for a review, finishes or fails;
- an analysis: analysed or not analysed (with the reason);
- a question: answered, or failed with the model's error (a person may retry it);
- a webhook delivery: delivered or failed. A delivery whose receiver failed but which has attempts
  left is not waited for: its backoff may be hours (WEBHOOK_RETRY_MAX_S). It is reported under
  `left` with the time of its next attempt, which a later `--until-idle` or the runner makes.

Work another runner holds (a lease or a claim that has not run out) is waited for, as the turns'
leases always were; a dead runner's claim runs out and is taken over."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from hitl_dashboard.db.findings_models import CodeAnalysis
from hitl_dashboard.db.models import WebhookDelivery, utcnow
from hitl_dashboard.db.questions_models import ReviewQuestion
from hitl_dashboard.services.findings.queue import PENDING, RUNNING, analyse_pending
from hitl_dashboard.services.questions.answering import answer_open_questions
from hitl_dashboard.services.runner.runner import new_runner_id, run_turns_until_idle
from hitl_dashboard.services.transactions import reading
from hitl_dashboard.services.webhooks.webhook_delivery import deliver_due
from hitl_dashboard.settings import get_settings

DELIVERY_ROUND = 100


@dataclass
class LeftOver:
    """What is not done when until-idle returns: deliveries waiting for their next attempt (and,
    only if max_rounds ran out, analyses and questions still queued)."""

    deliveries_waiting: int = 0
    next_delivery_at: datetime | None = None
    analyses: int = 0
    questions: int = 0


@dataclass
class IdleReport:
    runs: int = 0
    analyses: int = 0  # analysed or not analysed
    questions: int = 0  # answered or failed
    delivered: int = 0
    deliveries_failed: int = 0  # gave up: the last attempt failed
    left: LeftOver = field(default_factory=LeftOver)

    def describe(self) -> str:
        text = (f"idle after {self.runs} run(s), {self.analyses} analysis(es), {self.questions} question(s), "
                f"{self.delivered} webhook delivery(ies) sent, {self.deliveries_failed} given up")
        if self.left.deliveries_waiting:
            text += (f"; left: {self.left.deliveries_waiting} webhook delivery(ies) waiting for a retry, the next "
                     f"at {self.left.next_delivery_at:%Y-%m-%d %H:%M:%S} UTC")
        if self.left.analyses or self.left.questions:
            text += f"; not finished: {self.left.analyses} analysis(es), {self.left.questions} question(s)"
        return text


async def run_until_idle(runner_id: str | None = None, *, max_rounds: int = 1_000) -> IdleReport:
    """Rounds of turns, analyses, questions and due deliveries, until a round finds nothing to do
    and no other runner holds any of it."""
    runner_id = runner_id or new_runner_id()
    report = IdleReport()
    for _ in range(max_rounds):
        runs = await run_turns_until_idle(runner_id)
        analyses = await _drain(analyse_pending)
        questions = await _drain(answer_open_questions)
        sent = await deliver_due(limit=DELIVERY_ROUND)
        report.runs, report.analyses, report.questions = (report.runs + runs, report.analyses + analyses,
                                                          report.questions + questions)
        report.delivered += len(sent.delivered)
        report.deliveries_failed += len(sent.failed)
        if runs or analyses or questions or sent.delivered or sent.failed or sent.retrying:
            continue  # something happened: a new round sees what it led to
        with reading() as uow:
            if not _held_elsewhere(uow.session):
                break
        await asyncio.sleep(get_settings().worker_poll_seconds)
    with reading() as uow:
        report.left = _left_over(uow.session)
    return report


async def _drain(round_of: Callable[[], Awaitable[int]]) -> int:
    done = 0
    while finished := await round_of():
        done += finished
    return done


def _held_elsewhere(session: Session) -> bool:
    """An analysis or a question that another runner has claimed and may still finish."""
    now = utcnow()
    analysing = select(CodeAnalysis.content_hash).where(CodeAnalysis.status == RUNNING,
                                                        col(CodeAnalysis.claim_expires_at) >= now).limit(1)
    answering = select(ReviewQuestion.id).where(ReviewQuestion.status == "answering",
                                                col(ReviewQuestion.claim_expires_at) >= now).limit(1)
    return session.exec(analysing).first() is not None or session.exec(answering).first() is not None


def _left_over(session: Session) -> LeftOver:
    waiting, next_at = session.exec(
        select(func.count(), func.min(WebhookDelivery.next_attempt_at)).where(WebhookDelivery.status == "pending")
    ).one()
    analyses = session.exec(select(func.count()).select_from(CodeAnalysis)
                            .where(col(CodeAnalysis.status).in_([PENDING, RUNNING]))).one()
    questions = session.exec(select(func.count()).select_from(ReviewQuestion)
                             .where(col(ReviewQuestion.status).in_(["open", "answering"]))).one()
    return LeftOver(waiting, next_at, analyses, questions)
