"""The managers' review analytics for a period, a team (the conversation's team template) and a
role: time to decision per role and per reviewer (median, p90), decisions per day, SLA breach and
revise rates, rounds and tokens per conversation, tokens per team, and what is overdue now.

Every figure keeps the ids of the conversations behind it, so the page can list them. Read in one
transaction; the percentiles are computed in Python over the period's decisions."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from statistics import median

from sqlalchemy import case, func
from sqlalchemy.orm import aliased
from sqlmodel import col, select

from hitl_dashboard.db.models import Conversation, Decision, ReviewRequest, User, review_is_open, utcnow
from hitl_dashboard.db.rows import in_workspaces
from hitl_dashboard.domain.enums import Action, Role
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.permissions import Actor, check_can_read_audit
from hitl_dashboard.domain.standing_rules import rule_actor_name
from hitl_dashboard.services.audit.audit_stats import BREACH_STATUSES, _day, _day_text
from hitl_dashboard.services.transactions import reading
from hitl_dashboard.teams.catalogue import team_names

PERIODS = (1, 7, 30, 90, 365)
MAX_ROWS = 200_000  # decisions read per period; beyond it the figures say so (truncated)
COSTLIEST = 100  # conversations listed by cost
MAX_IDS = 500  # conversations named behind one team's figure (its costliest)


@dataclass(frozen=True)
class AnalyticsFilters:
    days: int = 30
    team: str | None = None  # a team template name
    role: str | None = None  # the review role
    # The workspaces read (issue 41): set from the reader's memberships by review_analytics, never by
    # a caller; None: all (the instance admin).
    workspaces: frozenset[int] | None = None


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
class TeamCost(Count):
    """count = tokens; conversations = the costliest of them (at most MAX_IDS); started = all of them."""

    started: int = 0


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
    teams: list[TeamCost]
    overdue: list[Count]  # by role, now
    truncated: bool = False


def check_filters(filters: AnalyticsFilters) -> None:
    if filters.days not in PERIODS:
        raise InvalidInput(f"period: one of {', '.join(map(str, PERIODS))} days", "days")
    if filters.team is not None and filters.team not in team_names():
        raise InvalidInput(f"team: one of {', '.join(sorted(team_names()))}", "team")


def p90(values: list[float]) -> float:
    """Nearest rank: the smallest value with at least 90% of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)] if ordered else 0.0


def review_analytics(actor: Actor, filters: AnalyticsFilters) -> Analytics:
    check_can_read_audit(actor)
    check_filters(filters)
    filters = replace(filters, workspaces=actor.workspaces_with(Role.MANAGER.value))
    now = utcnow()
    since = now - timedelta(days=filters.days)
    with reading() as uow:
        s = uow.session
        decided = _decisions(uow, filters, since)
        requests = _requests(s, filters, since)
        costs = _costliest(s, filters, since)
        teams = _teams(s, filters, since)
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
        conversations=costs, teams=teams,
        overdue=overdue, truncated=len(decided) >= MAX_ROWS,
    )


def _filtered(query, filters: AnalyticsFilters, role_column, conversation_id=None, request_id=None):
    """The workspace, team and role filters. Every query here reads review requests, which carry their
    workspace: the conversation is joined (on `conversation_id`) only for a team."""
    if filters.workspaces is not None and request_id is not None:
        # A decision's request by its key, per decision of the period (a join would let PostgreSQL
        # read every request of the workspace first).
        its = aliased(ReviewRequest)  # the outer query joins review_requests: not correlated to that one
        query = query.where(in_workspaces(select(its.workspace_id).where(
            its.id == request_id).correlate_except(its).scalar_subquery(), filters.workspaces))
    elif filters.workspaces is not None:
        query = query.where(in_workspaces(col(ReviewRequest.workspace_id), filters.workspaces))
    if filters.team:
        if conversation_id is not None:
            query = query.join(Conversation, Conversation.id == conversation_id)
        query = query.where(Conversation.template == filters.team)
    if filters.role:
        query = query.where(role_column == filters.role)
    return query


def _seconds_between(dialect: str, start, end):
    """end - start in seconds, computed by the database: no timestamp is parsed in Python."""
    if dialect == "postgresql":
        return func.extract("epoch", end - start)
    return (func.julianday(end) - func.julianday(start)) * 86400.0


def _decisions(uow, filters: AnalyticsFilters, since: datetime) -> list[tuple]:
    """(role, action, waited seconds, UTC day of the decision, conversation_id, reviewer)"""
    # sqlmodel's select() is typed for at most 4 columns; it takes any number.
    query = (select(Decision.role, Decision.action,  # type: ignore[call-overload]
                    _seconds_between(uow.dialect, ReviewRequest.created_at, Decision.created_at),
                    _day(uow, Decision.created_at), Decision.conversation_id, User.username, Decision.rule_id)
             .join(ReviewRequest, ReviewRequest.id == Decision.review_request_id)
             # A standing rule's decision has no reviewer: counted, and named as the rule.
             .outerjoin(User, User.id == Decision.reviewer_id)
             # In time order, the order of ix_decisions_created: ordered by id, SQLite scanned
             # every decision ever made to skip a sort.
             .where(Decision.created_at >= since).order_by(Decision.created_at, Decision.id).limit(MAX_ROWS))
    found = uow.session.exec(_filtered(query, filters, Decision.role, Decision.conversation_id,
                                       Decision.review_request_id))
    # julianday() carries about 10 us of rounding: milliseconds are all a wait needs.
    return [(role, action, round(float(waited or 0.0), 3), _day_text(day), cid, who or rule_actor_name(rule_id or 0))
            for role, action, waited, day, cid, who, rule_id in found]


def _requests(s, filters: AnalyticsFilters, since: datetime) -> tuple[dict[str, tuple[int, int]], dict[str, list[int]]]:
    """Per role, the requests opened in the period and how many breached their SLA (counted in SQL);
    and the conversations of the breaches (at most MAX_IDS per role)."""
    # Grouped on an expression: grouping on the bare column let SQLite walk the whole queue index
    # to skip a sort (87 ms at 26k requests) instead of reading the period from ix_reviews_created (3 ms).
    grouped_role = func.coalesce(ReviewRequest.required_role, "")
    opened = (select(grouped_role, func.count(),
                     func.sum(case((col(ReviewRequest.status).in_(BREACH_STATUSES), 1), else_=0)))
              .where(ReviewRequest.created_at >= since).group_by(grouped_role))
    found = s.exec(_filtered(opened, filters, ReviewRequest.required_role, ReviewRequest.conversation_id))
    counts = {role: (int(n), int(b or 0)) for role, n, b in found}
    breached = (select(ReviewRequest.required_role, ReviewRequest.conversation_id)
                .where(ReviewRequest.created_at >= since, col(ReviewRequest.status).in_(BREACH_STATUSES)))
    ids: dict[str, list[int]] = defaultdict(list)
    for role, cid in s.exec(_filtered(breached, filters, ReviewRequest.required_role, ReviewRequest.conversation_id)):
        if len(ids[role]) < MAX_IDS:
            ids[role].append(cid)
    return counts, ids


def _started(filters: AnalyticsFilters, since: datetime, *columns):
    query = select(*columns).where(Conversation.created_at >= since)
    if filters.workspaces is not None:
        query = query.where(in_workspaces(col(Conversation.workspace_id), filters.workspaces))
    return query.where(Conversation.template == filters.team) if filters.team else query


_TOKENS = col(Conversation.prompt_tokens) + Conversation.completion_tokens


def _costliest(s, filters: AnalyticsFilters, since: datetime, limit: int = COSTLIEST) -> list[ConversationCost]:
    """The costliest conversations started in the period (sorted and cut in SQL)."""
    query = _started(filters, since, Conversation.id, Conversation.title, Conversation.template, _TOKENS)
    return [ConversationCost(cid, title, team, 1, int(tokens or 0))
            for cid, title, team, tokens in s.exec(query.order_by(_TOKENS.desc(), Conversation.id).limit(limit))]


def _teams(s, filters: AnalyticsFilters, since: datetime) -> list[TeamCost]:
    """Tokens per team (count = tokens) in SQL; the ids behind each are its costliest conversations."""
    query = _started(filters, since, Conversation.template, func.count(), func.sum(_TOKENS))
    teams: list[TeamCost] = []
    for team, conversations, tokens in s.exec(query.group_by(Conversation.template).order_by(Conversation.template)):
        ids = s.exec(_started(filters, since, Conversation.id).where(Conversation.template == team)
                     .order_by(_TOKENS.desc(), Conversation.id).limit(MAX_IDS)).all()
        teams.append(TeamCost(team, int(tokens or 0), list(ids), int(conversations)))
    return teams


def _overdue(s, filters: AnalyticsFilters, now: datetime) -> list[Count]:
    query = (select(ReviewRequest.required_role, ReviewRequest.conversation_id)
             .where(review_is_open(), ReviewRequest.due_at < now))
    found: dict[str, list[int]] = defaultdict(list)
    for role, cid in s.exec(_filtered(query, filters, ReviewRequest.required_role, ReviewRequest.conversation_id)):
        found[role].append(cid)
    return [Count(role, len(ids), sorted(set(ids))) for role, ids in sorted(found.items())]


def _waits(decided: list[tuple], key) -> list[Wait]:
    groups: dict[tuple[str, str], list[tuple]] = defaultdict(list)
    for row in decided:
        groups[(key(row), row[0])].append(row)
    waits = []
    for (name, role), rows in sorted(groups.items()):
        seconds = [max(waited, 0.0) for _, _, waited, _, _, _ in rows]
        waits.append(Wait(name, role, len(rows), median(seconds), p90(seconds), sorted({r[4] for r in rows})))
    return waits


def _per_day(decided: list[tuple]) -> list[Count]:
    days: dict[str, list[int]] = defaultdict(list)
    for row in decided:
        days[row[3]].append(row[4])
    return [Count(day, len(ids), sorted(set(ids))) for day, ids in sorted(days.items())]


def _rates(decided: list[tuple], requests: tuple[dict[str, tuple[int, int]], dict[str, list[int]]]) -> list[Rates]:
    counts, breached = requests
    rates = {role: Rates(role, n, b, 0, 0, sorted(set(breached.get(role, [])))) for role, (n, b) in counts.items()}
    revised: dict[str, set[int]] = defaultdict(set)
    for role, action, _, _, cid, _ in decided:
        r = rates.setdefault(role, Rates(role, 0, 0, 0, 0))
        r.decisions += 1
        if action == Action.REVISE:
            r.revises += 1
            revised[role].add(cid)
    for role, r in rates.items():
        r.revised = sorted(revised[role])
    return [rates[role] for role in sorted(rates)]


def conversation_titles(actor: Actor, ids: list[int]) -> list[tuple[int, str, str, str]]:
    """(id, title, team, status) of these conversations, for the list behind a figure."""
    check_can_read_audit(actor)
    if not ids:
        return []
    with reading() as uow:
        rows = uow.session.exec(select(Conversation.id, Conversation.title, Conversation.template, Conversation.status)
                                .where(col(Conversation.id).in_(ids[:500]),
                                       in_workspaces(col(Conversation.workspace_id),
                                                     actor.workspaces_with(Role.MANAGER.value)))
                                .order_by(col(Conversation.id)))
        return [(cid, title, team, status) for cid, title, team, status in rows]
