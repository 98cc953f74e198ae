"""Numbers for the managers' charts: decisions, time to decision, SLA breaches, tokens.

Each query groups by UTC calendar day in SQL (one portable GROUP BY for SQLite and
PostgreSQL); the median is computed in Python over the per-role durations of the window.
Each chart is a use case of its own; `charts` reads all four in one unit of work for the page."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from statistics import median

from sqlalchemy import func
from sqlmodel import col, select

from hitl_dashboard.db.models import BREACHED_REVIEW_CLAUSE, Decision, Message, ReviewRequest, utcnow
from hitl_dashboard.db.rows import in_workspaces
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import BREACHED_REVIEW_STATUSES, Role
from hitl_dashboard.domain.permissions import Actor, check_can_read_audit
from hitl_dashboard.services.transactions import reading

DEFAULT_DAYS = 30
MAX_DAY_BUCKETS = 400  # tokens per day: one range sum per day up to this many days
BREACH_STATUSES = tuple(status.value for status in BREACHED_REVIEW_STATUSES)


@dataclass(frozen=True)
class DayCount:
    day: str  # YYYY-MM-DD, UTC
    key: str  # what is counted: an action, a breach status, or "tokens"
    count: int


@dataclass(frozen=True)
class RoleMedian:
    role: str
    median_hours: float
    decisions: int


@dataclass(frozen=True)
class Charts:
    """Everything the managers' charts show, for one window."""

    decisions: list[DayCount]
    medians: list[RoleMedian]
    breaches: list[DayCount]
    tokens: list[DayCount]


def window_start(days: int = DEFAULT_DAYS, now: datetime | None = None) -> datetime:
    """Midnight UTC, `days - 1` days ago: the window covers `days` whole calendar days."""
    today = (now or utcnow()).replace(hour=0, minute=0, second=0, microsecond=0)
    return today - timedelta(days=max(days, 1) - 1)


def _day(uow: UnitOfWork, column):
    # PostgreSQL stores timestamptz: convert to UTC before taking the date, whatever the
    # session's TimeZone. SQLite stores UTC text, which date() reads directly.
    if uow.dialect == "postgresql":
        return func.date(func.timezone("UTC", column))
    return func.date(column)


def _day_text(value) -> str:
    return value.isoformat() if isinstance(value, date) else str(value)[:10]


def _managed(actor: Actor) -> frozenset[int] | None:
    """The workspaces whose figures the actor reads (issue 41); None: all (the instance admin)."""
    return actor.workspaces_with(Role.MANAGER.value)


def _of_requests(workspaces: frozenset[int] | None, request_id) -> list:  # noqa: ANN001
    """A decision's or request's workspace condition: none for the instance admin (its queries stay as
    fast as before), else its request's workspace."""
    if workspaces is None:
        return []
    # A scalar subquery, not EXISTS: PostgreSQL runs it per row of the period (the request by its key),
    # where it would turn EXISTS into a join that reads every request of the workspace.
    return [in_workspaces(select(ReviewRequest.workspace_id).where(col(ReviewRequest.id) == request_id)
                          .scalar_subquery(), workspaces)]


def _of_messages(workspaces: frozenset[int] | None) -> list:
    """A message's workspace condition (its conversation's, copied onto it: 0022), so the window is
    read from ix_messages_workspace_created_tokens alone; none for the instance admin."""
    if workspaces is None:
        return []
    return [in_workspaces(col(Message.workspace_id), workspaces)]


def decisions_per_day(actor: Actor, *, since: datetime | None = None) -> list[DayCount]:
    check_can_read_audit(actor)
    with reading() as uow:
        return _decisions_per_day(uow, since or window_start(), _managed(actor))


def _decisions_per_day(uow: UnitOfWork, since: datetime, workspaces: frozenset[int] | None = None) -> list[DayCount]:
    day = _day(uow, Decision.created_at)
    query = (
        select(day, Decision.action, func.count())
        .where(Decision.created_at >= since, *_of_requests(workspaces, Decision.review_request_id))
        .group_by(day, Decision.action)
        .order_by(day, Decision.action)
    )
    return [DayCount(_day_text(d), action, int(n)) for d, action, n in uow.session.exec(query)]


def median_hours_to_decision(actor: Actor, *, since: datetime | None = None) -> list[RoleMedian]:
    check_can_read_audit(actor)
    with reading() as uow:
        return _median_hours_to_decision(uow, since or window_start(), _managed(actor))


def _median_hours_to_decision(uow: UnitOfWork, since: datetime,
                              workspaces: frozenset[int] | None = None) -> list[RoleMedian]:
    """Per role, from the review request's creation to its decision, for decisions in the window.
    The request's creation time by its primary key, one lookup per decision of the window: as a join,
    PostgreSQL hashed every review request ever made to find the window's few thousand."""
    requested = (select(ReviewRequest.created_at).where(ReviewRequest.id == Decision.review_request_id)
                 .scalar_subquery())
    query = select(Decision.role, requested, Decision.created_at).where(
        Decision.created_at >= since, *_of_requests(workspaces, Decision.review_request_id))
    durations: dict[str, list[float]] = defaultdict(list)
    for role, requested, decided in uow.session.exec(query):
        durations[role].append(max((decided - requested).total_seconds(), 0.0) / 3600)
    # Not rounded here: a team that decides in minutes would read 0.0 hours; the chart picks its unit.
    return [RoleMedian(role, median(hours), len(hours)) for role, hours in sorted(durations.items())]


def sla_breaches_per_day(actor: Actor, *, since: datetime | None = None) -> list[DayCount]:
    check_can_read_audit(actor)
    with reading() as uow:
        return _sla_breaches_per_day(uow, since or window_start(), _managed(actor))


def _sla_breaches_per_day(uow: UnitOfWork, since: datetime, workspaces: frozenset[int] | None = None) -> list[DayCount]:
    """Review requests that passed their deadline, by the day they were escalated or expired."""
    day = _day(uow, ReviewRequest.closed_at)
    query = (
        select(day, ReviewRequest.status, func.count())
        # The statuses as literals (BREACHED_REVIEW_CLAUSE): only then may the partial index
        # ix_reviews_breached serve it (bound parameters do not prove its predicate).
        .where(BREACHED_REVIEW_CLAUSE, col(ReviewRequest.closed_at) >= since,
               *([] if workspaces is None else [in_workspaces(col(ReviewRequest.workspace_id), workspaces)]))
        .group_by(day, ReviewRequest.status)
        .order_by(day, ReviewRequest.status)
    )
    return [DayCount(_day_text(d), status, int(n)) for d, status, n in uow.session.exec(query)]


def tokens_per_day(actor: Actor, *, since: datetime | None = None) -> list[DayCount]:
    check_can_read_audit(actor)
    with reading() as uow:
        return _tokens_per_day(uow, since or window_start(), _managed(actor))


def _tokens_per_day(uow: UnitOfWork, since: datetime, workspaces: frozenset[int] | None = None) -> list[DayCount]:
    """Prompt plus completion tokens of the agents' messages, by the day they were written.
    One range sum per UTC day over ix_messages_created_tokens (index only, in order): a GROUP BY
    on the day would compute the day of every message of the window and sort them all."""
    since = since.astimezone(UTC)
    # A manager of some workspaces: their conversations' messages, each message's conversation by its
    # key (the time index still drives the read).
    scope = _of_messages(workspaces)
    last = uow.session.exec(select(func.max(Message.created_at)).where(Message.created_at >= since, *scope)).one()
    if last is None:
        return []
    last = last if last.tzinfo else last.replace(tzinfo=UTC)
    midnight = since.replace(hour=0, minute=0, second=0, microsecond=0)
    days = (last.date() - midnight.date()).days + 1
    if days > MAX_DAY_BUCKETS:
        return _tokens_per_day_grouped(uow, since, workspaces)
    starts = [since] + [midnight + timedelta(days=i) for i in range(1, days)]
    ends = starts[1:] + [None]  # the last day is open-ended: it holds `last` itself
    sums = [
        select(func.sum(Message.prompt_tokens) + func.sum(Message.completion_tokens))
        .where(Message.created_at >= start, *([Message.created_at < end] if end else []), *scope)
        .scalar_subquery()
        for start, end in zip(starts, ends, strict=True)
    ]
    row = uow.session.exec(select(*sums)).one()
    return [DayCount(start.date().isoformat(), "tokens", int(n)) for start, n in zip(starts, row, strict=True)
            if n is not None]


def _tokens_per_day_grouped(uow: UnitOfWork, since: datetime,
                            workspaces: frozenset[int] | None = None) -> list[DayCount]:
    """The same for a window too long for one sum per day, or for some workspaces only."""
    day = _day(uow, Message.created_at)
    scope = _of_messages(workspaces)
    query = (
        select(day, func.sum(Message.prompt_tokens + Message.completion_tokens))
        .where(Message.created_at >= since, *scope)
        .group_by(day)
        .order_by(day)
    )
    return [DayCount(_day_text(d), "tokens", int(n or 0)) for d, n in uow.session.exec(query)]


def charts(actor: Actor, *, since: datetime) -> Charts:
    """The four charts of the managers' page, read together."""
    check_can_read_audit(actor)
    with reading() as uow:
        workspaces = _managed(actor)
        return Charts(_decisions_per_day(uow, since, workspaces), _median_hours_to_decision(uow, since, workspaces),
                      _sla_breaches_per_day(uow, since, workspaces), _tokens_per_day(uow, since, workspaces))
