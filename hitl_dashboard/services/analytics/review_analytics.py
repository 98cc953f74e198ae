"""The managers' review analytics for a period, a team (the conversation's team template) and a
role: time to decision per role and per reviewer (median, p90), decisions per day, SLA breach and
revise rates, rounds and tokens per conversation, tokens per team, and what is overdue now.

Every figure keeps the ids of the conversations behind it, so the page can list them. Read in one
transaction; the percentiles are computed in Python over the period's decisions."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from statistics import median

from sqlmodel import select

from hitl_dashboard.db.models import Conversation, Decision, ReviewRequest, User, review_is_open, utcnow
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.permissions import Actor, check_can_read_audit
from hitl_dashboard.domain.templates import TEMPLATES
from hitl_dashboard.services.audit.audit_stats import BREACH_STATUSES
from hitl_dashboard.services.transactions import reading

PERIODS = (1, 7, 30, 90, 365)
MAX_ROWS = 200_000  # decisions read per period; beyond it the figures say so (truncated)


@dataclass(frozen=True)
class AnalyticsFilters:
    days: int = 30
    team: str | None = None  # a team template name
    role: str | None = None  # the review role


@dataclass
class Wait:
    """Time to decision for one role or one reviewer."""

    key: str
    role: str
    decisions: int
    median_s: float
    p90_s: float
    conversations: list[int] = field(default_factory=list)


@dataclass
class Rates:
    role: str
    requests: int
    breaches: int
    decisions: int
    revises: int
    breached: list[int] = field(default_factory=list)
    revised: list[int] = field(default_factory=list)

    @property
    def breach_rate(self) -> float:
        return self.breaches / self.requests if self.requests else 0.0

    @property
    def revise_rate(self) -> float:
        return self.revises / self.decisions if self.decisions else 0.0


@dataclass
class Count:
    key: str  # a day, a team, a role
    count: int
    conversations: list[int] = field(default_factory=list)


@dataclass
class ConversationCost:
    id: int
    title: str
    team: str
    rounds: int  # review rounds: 1 + the revisions asked for
    tokens: int


@dataclass
class Analytics:
    filters: AnalyticsFilters
    since: datetime
    by_role: list[Wait]
    by_reviewer: list[Wait]
    per_day: list[Count]
    rates: list[Rates]
    conversations: list[ConversationCost]
    teams: list[Count]  # count = tokens; conversations = who spent them
    overdue: list[Count]  # by role, now
    truncated: bool = False


def check_filters(filters: AnalyticsFilters) -> None:
    if filters.days not in PERIODS:
        raise InvalidInput(f"period: one of {', '.join(map(str, PERIODS))} days", "days")
    if filters.team is not None and filters.team not in TEMPLATES:
        raise InvalidInput(f"team: one of {', '.join(sorted(TEMPLATES))}", "team")


def p90(values: list[float]) -> float:
    """Nearest rank: the smallest value with at least 90% of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)] if ordered else 0.0


def review_analytics(actor: Actor, filters: AnalyticsFilters) -> Analytics:
    check_can_read_audit(actor)
    check_filters(filters)
    now = utcnow()
    since = now - timedelta(days=filters.days)
    with reading() as uow:
        s = uow.session
        decided = _decisions(s, filters, since)
        requests = _requests(s, filters, since)
        costs = _conversations(s, filters, since)
        overdue = _overdue(s, filters, now)
    rounds: dict[int, int] = defaultdict(lambda: 1)
    for row in decided:
        if row[1] == Action.REVISE:
            rounds[row[4]] += 1
    for cost in costs:
        cost.rounds = rounds[cost.id]
    return Analytics(
        filters=filters, since=since,
        by_role=_waits(decided, lambda r: r[0]), by_reviewer=_waits(decided, lambda r: r[5]),
        per_day=_per_day(decided), rates=_rates(decided, requests),
        conversations=sorted(costs, key=lambda c: (-c.tokens, c.id))[:100], teams=_teams(costs),
        overdue=overdue, truncated=len(decided) >= MAX_ROWS,
    )


def _filtered(query, filters: AnalyticsFilters, role_column):
    if filters.team:
        query = query.where(Conversation.template == filters.team)
    if filters.role:
        query = query.where(role_column == filters.role)
    return query


def _decisions(s, filters: AnalyticsFilters, since: datetime) -> list[tuple]:
    """(role, action, requested_at, decided_at, conversation_id, reviewer)"""
    query = (select(Decision.role, Decision.action, ReviewRequest.created_at, Decision.created_at,
                    Decision.conversation_id, User.username)
             .join(ReviewRequest, ReviewRequest.id == Decision.review_request_id)
             .join(Conversation, Conversation.id == Decision.conversation_id)
             .join(User, User.id == Decision.reviewer_id)
             .where(Decision.created_at >= since).order_by(Decision.id).limit(MAX_ROWS))
    return list(s.exec(_filtered(query, filters, Decision.role)))


def _requests(s, filters: AnalyticsFilters, since: datetime) -> list[tuple]:
    """(role, status, conversation_id) of the requests opened in the period."""
    query = (select(ReviewRequest.required_role, ReviewRequest.status, ReviewRequest.conversation_id)
             .join(Conversation, Conversation.id == ReviewRequest.conversation_id)
             .where(ReviewRequest.created_at >= since).limit(MAX_ROWS))
    return list(s.exec(_filtered(query, filters, ReviewRequest.required_role)))


def _conversations(s, filters: AnalyticsFilters, since: datetime) -> list[ConversationCost]:
    query = (select(Conversation.id, Conversation.title, Conversation.template, Conversation.prompt_tokens,
                    Conversation.completion_tokens)
             .where(Conversation.created_at >= since).limit(MAX_ROWS))
    if filters.team:
        query = query.where(Conversation.template == filters.team)
    return [ConversationCost(cid, title, team, 1, prompt + completion)
            for cid, title, team, prompt, completion in s.exec(query)]


def _overdue(s, filters: AnalyticsFilters, now: datetime) -> list[Count]:
    query = (select(ReviewRequest.required_role, ReviewRequest.conversation_id)
             .join(Conversation, Conversation.id == ReviewRequest.conversation_id)
             .where(review_is_open(), ReviewRequest.due_at < now))
    found: dict[str, list[int]] = defaultdict(list)
    for role, cid in s.exec(_filtered(query, filters, ReviewRequest.required_role)):
        found[role].append(cid)
    return [Count(role, len(ids), sorted(set(ids))) for role, ids in sorted(found.items())]


def _waits(decided: list[tuple], key) -> list[Wait]:
    groups: dict[tuple[str, str], list[tuple]] = defaultdict(list)
    for row in decided:
        groups[(key(row), row[0])].append(row)
    waits = []
    for (name, role), rows in sorted(groups.items()):
        seconds = [max((decided_at - requested).total_seconds(), 0.0) for _, _, requested, decided_at, _, _ in rows]
        waits.append(Wait(name, role, len(rows), median(seconds), p90(seconds), sorted({r[4] for r in rows})))
    return waits


def _per_day(decided: list[tuple]) -> list[Count]:
    days: dict[str, list[int]] = defaultdict(list)
    for row in decided:
        days[row[3].date().isoformat()].append(row[4])
    return [Count(day, len(ids), sorted(set(ids))) for day, ids in sorted(days.items())]


def _rates(decided: list[tuple], requests: list[tuple]) -> list[Rates]:
    rates: dict[str, Rates] = {}
    for role, status, cid in requests:
        r = rates.setdefault(role, Rates(role, 0, 0, 0, 0))
        r.requests += 1
        if status in BREACH_STATUSES:
            r.breaches += 1
            r.breached.append(cid)
    for role, action, _, _, cid, _ in decided:
        r = rates.setdefault(role, Rates(role, 0, 0, 0, 0))
        r.decisions += 1
        if action == Action.REVISE:
            r.revises += 1
            r.revised.append(cid)
    for r in rates.values():
        r.breached, r.revised = sorted(set(r.breached)), sorted(set(r.revised))
    return [rates[role] for role in sorted(rates)]


def _teams(costs: list[ConversationCost]) -> list[Count]:
    teams: dict[str, list[ConversationCost]] = defaultdict(list)
    for cost in costs:
        teams[cost.team].append(cost)
    return [Count(team, sum(c.tokens for c in rows), sorted(c.id for c in rows))
            for team, rows in sorted(teams.items())]


def conversation_titles(actor: Actor, ids: list[int]) -> list[tuple[int, str, str, str]]:
    """(id, title, team, status) of these conversations, for the list behind a figure."""
    check_can_read_audit(actor)
    if not ids:
        return []
    with reading() as uow:
        rows = uow.session.exec(select(Conversation.id, Conversation.title, Conversation.template, Conversation.status)
                                .where(Conversation.id.in_(ids[:500])).order_by(Conversation.id))
        return [tuple(row) for row in rows]
