"""The analysis queue: a pending code_analyses row per new content hash, written in the runner's
transaction (enqueue), and drained after the commit by the runner loop (start_analysis_round) or
on demand (analyse_hashes). A conversation never waits for it unless its gate policy asks for
findings (services/findings/gate.py)."""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, or_, select

from hitl_dashboard.db.findings_models import CodeAnalysis, CodeFinding
from hitl_dashboard.db.models import CodeRevision, Conversation, utcnow
from hitl_dashboard.domain.errors import NotFound
from hitl_dashboard.domain.findings import DEFAULT_PYTHON_VERSION, is_python
from hitl_dashboard.services.background_round import BackgroundRound
from hitl_dashboard.services.findings.analysers import NOT_ANALYSED, AnalysisResult, analyse
from hitl_dashboard.services.live import live
from hitl_dashboard.services.teams.versions import team_of
from hitl_dashboard.services.transactions import reading, transaction
from hitl_dashboard.settings import get_settings

log = logging.getLogger(__name__)
PENDING, RUNNING = "pending", "running"
MAX_ATTEMPTS = 3  # claims that died mid-analysis (the worker was killed) before giving up
ROUND_SIZE = 8


def enqueue(session: Session, revisions: list[CodeRevision]) -> None:
    """Inside the caller's transaction: a pending analysis for each new Python text. A text already
    known (analysed, or queued by another conversation a moment ago) is left as it is."""
    rows = {r.content_hash: r.key for r in revisions if is_python(r.key, r.language)}
    if not rows:
        return
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    now = utcnow()
    session.execute(
        insert(CodeAnalysis).values([
            {"content_hash": digest, "file": key[:255], "status": PENDING, "attempts": 0, "created_at": now}
            for digest, key in rows.items()
        ]).on_conflict_do_nothing(index_elements=["content_hash"])
    )


async def analyse_pending(limit: int = ROUND_SIZE) -> int:
    """Analyse up to `limit` queued texts; returns how many were finished here."""
    done = 0
    for digest, key, content, python_version in _claim(limit):
        if await analyse_one(digest, key, content, python_version):
            done += 1
    return done


async def analyse_one(digest: str, key: str, content: str, python_version: str = DEFAULT_PYTHON_VERSION) -> bool:
    """Analyse one text, parsed as python_version (its team's), and store the answer, unless someone
    else stored one first."""
    try:
        result = await analyse(key, content, python_version)
    except Exception as exc:  # noqa: BLE001 - e.g. the temp dir is full: say so, never block
        log.exception("analysis of %s failed", key)
        result = AnalysisResult(NOT_ANALYSED, f"the analysis of {key} failed ({type(exc).__name__})")
    stored = _finish(digest, key, result)
    if stored:
        for conversation_id in _conversations_with(digest):
            live.publish_turn(conversation_id)  # the diff and the queue show the findings
    return stored


def _claim(limit: int) -> list[tuple[str, str, str, str]]:
    now = utcnow()
    until = now + timedelta(seconds=2 * get_settings().analysis_timeout_s + 30)
    claimed = []
    with transaction() as uow:
        due = uow.session.exec(
            select(CodeAnalysis).where(or_(CodeAnalysis.status == PENDING,
                                           (col(CodeAnalysis.status) == RUNNING)
                                           & (col(CodeAnalysis.claim_expires_at) < now)))
            .order_by(col(CodeAnalysis.created_at)).limit(limit)
        ).all()
        for row in due:
            if row.attempts >= MAX_ATTEMPTS:
                uow.session.exec(update(CodeAnalysis).where(col(CodeAnalysis.content_hash) == row.content_hash,
                                                            col(CodeAnalysis.attempts) == row.attempts)
                                 .values(status=NOT_ANALYSED, finished_at=now,
                                         reason=f"the analysis of {row.file} was interrupted {row.attempts} "
                                                "times"))
                continue
            won = uow.session.exec(
                update(CodeAnalysis)
                .where(col(CodeAnalysis.content_hash) == row.content_hash, col(CodeAnalysis.attempts) == row.attempts,
                       col(CodeAnalysis.status).in_([PENDING, RUNNING]))
                .values(status=RUNNING, attempts=row.attempts + 1, claim_expires_at=until)
            ).rowcount == 1
            source = _source(uow.session, row.content_hash) if won else None
            if source is not None:
                claimed.append((row.content_hash, row.file, *source))
    return claimed


def _source(session: Session, digest: str) -> tuple[str, str] | None:
    """The text and the Python version it is written for: its first revision's team declares it.
    (A text is analysed once, under the first team that proposed it: docs/findings.md.)"""
    found = session.exec(
        select(CodeRevision.content, Conversation.team_version_id, Conversation.template)
        .join(Conversation, col(Conversation.id) == CodeRevision.conversation_id)
        .where(CodeRevision.content_hash == digest).order_by(col(CodeRevision.id)).limit(1)
    ).first()
    if found is None:
        return None
    content, version_id, template = found
    try:
        return content, team_of(version_id, template, session).python_version
    except NotFound:  # a team file removed since: its conversations cannot run either
        return content, DEFAULT_PYTHON_VERSION


def _finish(digest: str, key: str, result: AnalysisResult) -> bool:
    """One transaction: the status and every finding, or nothing. Only the first answer counts."""
    now = utcnow()
    with transaction() as uow:
        session = uow.session
        if session.get(CodeAnalysis, digest) is None:
            session.add(CodeAnalysis(content_hash=digest, file=key[:255], status=result.status,
                                     reason=result.reason, finished_at=now))
            try:
                session.flush()
            except IntegrityError:  # another worker stored its answer a moment ago
                uow.rollback()
                return False
        elif session.exec(
            update(CodeAnalysis).where(col(CodeAnalysis.content_hash) == digest,
                                       col(CodeAnalysis.status).in_([PENDING, RUNNING]))
            .values(status=result.status, reason=result.reason, finished_at=now, claim_expires_at=None)
        ).rowcount != 1:
            return False
        session.add_all(CodeFinding(content_hash=digest, analyser=f.analyser, rule=f.rule, severity=f.severity,
                                    line=f.line, column=f.column, message=f.message) for f in result.findings)
    return True


def _conversations_with(digest: str) -> list[int]:
    with reading() as uow:
        return list(uow.session.exec(
            select(CodeRevision.conversation_id).where(CodeRevision.content_hash == digest).distinct()
        ))


# For the runner loop, beside the webhook deliveries: never holds up the agents' turns (a hanging
# analyser or a slow model only holds up its own round, up to its timeout).
start_analysis_round = BackgroundRound("analysis", analyse_pending).start
