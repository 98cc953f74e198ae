"""Finding conversations: filters (status, task type, initiator, creation dates, words of the title or
task) and keyset pages, newest first.

Keyset, not offset: a page is "the `size` newest below id N" (older) or "the `size` oldest above id
N" (newer), so a page costs the same at the end of a long list, and conversations started while a
reviewer pages do not shift what the next page shows. A caller reads the conversations of the
workspaces they are in (issue 41; the CLI, every one)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import ColumnElement, func, or_, union_all
from sqlmodel import col, select

from hitl_dashboard.db.models import Conversation, User, without_checkpoint
from hitl_dashboard.db.rows import in_workspaces
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.transactions import reading

MAX_SEARCH_WORDS = 8
MAX_PAGE = 500
# A reader in a few workspaces gets each one's newest by its index, merged (_page_ids); more than
# this and the plain newest-first scan, filtered, meets a page sooner.
MERGED_WORKSPACES = 16


@dataclass(frozen=True)
class ConversationSummary:
    id: int
    title: str
    task_type: str
    status: str
    status_reason: str | None
    tokens: int
    created_at: datetime
    initiator: str


@dataclass(frozen=True)
class ConversationFilter:
    status: str | None = None
    task_type: str | None = None
    initiator: str | None = None  # a username, exact
    text: str | None = None  # every word must be in the title or the task, any case
    created_from: date | None = None  # UTC days, both inclusive
    created_to: date | None = None

    def words(self) -> list[str]:
        return (self.text or "").lower().split()[:MAX_SEARCH_WORDS]


@dataclass(frozen=True)
class ConversationPage:
    rows: list[ConversationSummary]
    total: int  # conversations matching the filter, on every page
    first_position: int  # 1-based position of rows[0] in the whole list (0 when empty)
    newer_cursor: int | None  # pass as after= for the page before this one; None on the first page
    older_cursor: int | None  # pass as before= for the next page; None on the last page


def _conditions(actor: Actor | None, filters: ConversationFilter) -> list:
    conditions: list[ColumnElement[bool]] = []
    if actor is not None:  # the workspaces the actor is in (issue 41); None: the operator's CLI
        conditions.append(in_workspaces(col(Conversation.workspace_id), actor.visible_workspaces()))
    if filters.status:
        conditions.append(col(Conversation.status) == filters.status)
    if filters.task_type:
        conditions.append(col(Conversation.task_type) == filters.task_type)
    if filters.initiator:
        conditions.append(col(User.username) == filters.initiator)
    for word in filters.words():
        conditions.append(or_(func.lower(Conversation.title).contains(word, autoescape=True),
                              func.lower(Conversation.task).contains(word, autoescape=True)))
    if filters.created_from:
        conditions.append(col(Conversation.created_at) >= datetime.combine(filters.created_from, time.min, UTC))
    if filters.created_to:
        next_day = filters.created_to + timedelta(days=1)
        conditions.append(col(Conversation.created_at) < datetime.combine(next_day, time.min, UTC))
    return conditions


def _page_ids(actor: Actor | None, conditions: list, *, limit: int, offset: int, upwards: bool):  # noqa: ANN202
    """The page's ids as a subquery, for a reader in 2..MERGED_WORKSPACES workspaces (else None):
    each workspace's newest (or oldest, upwards) `limit + offset` by ix_conversations_workspace_id,
    merged. One IN over the workspaces made SQLite read and sort every conversation of them (110 ms
    at 10k of 100k; bench/queue_queries.py); PostgreSQL merges the index scans by itself, as here."""
    workspaces = actor.visible_workspaces() if actor is not None else None
    if workspaces is None or not 1 < len(workspaces) <= MERGED_WORKSPACES:
        return None
    order = col(Conversation.id).asc() if upwards else col(Conversation.id).desc()
    branches = []
    for workspace_id in sorted(workspaces):
        newest = (select(Conversation.id).join(User, col(User.id) == Conversation.initiator_id)
                  .where(col(Conversation.workspace_id) == workspace_id, *conditions[1:])  # [0]: all of them
                  .order_by(order).limit(limit + offset).subquery())
        branches.append(select(newest.c.id))
    merged = union_all(*branches).subquery()
    return (select(merged.c.id).order_by(merged.c.id.asc() if upwards else merged.c.id.desc())
            .limit(limit).offset(offset))


def _summaries(session, conditions: list, *, limit: int, offset: int = 0,  # noqa: ANN001
               before: int | None = None, after: int | None = None,
               actor: Actor | None = None) -> list[ConversationSummary]:
    query = (select(Conversation, User.username).join(User, col(User.id) == Conversation.initiator_id)
             .options(*without_checkpoint()))
    if after is not None:
        conditions = [*conditions, col(Conversation.id) > after]
    elif before is not None:
        conditions = [*conditions, col(Conversation.id) < before]
    page = _page_ids(actor, conditions, limit=limit, offset=offset, upwards=after is not None)
    if page is not None:
        query, offset = query.where(col(Conversation.id).in_(page)), 0
    else:
        query = query.where(*conditions)
    # The page above (after) is read upwards from the cursor, then shown newest first.
    query = query.order_by(col(Conversation.id).asc() if after is not None else col(Conversation.id).desc())
    rows = [
        ConversationSummary(c.id, c.title, c.task_type, c.status, c.status_reason,
                            c.prompt_tokens + c.completion_tokens, c.created_at, username)
        for c, username in session.exec(query.limit(limit).offset(offset))
    ]
    return sorted(rows, key=lambda row: -row.id) if after is not None else rows


def _count(session, conditions: list) -> int:  # noqa: ANN001
    query = select(func.count()).select_from(Conversation).join(User, col(User.id) == Conversation.initiator_id)
    return session.exec(query.where(*conditions)).one()


def list_conversations(actor: Actor | None, filters: ConversationFilter = ConversationFilter(), *,
                       limit: int = 50, offset: int = 0) -> list[ConversationSummary]:
    """Newest first (the API's offset pages)."""
    with reading() as uow:
        return _summaries(uow.session, _conditions(actor, filters), limit=min(limit, MAX_PAGE), offset=offset,
                          actor=actor)


def conversation_page(actor: Actor | None, filters: ConversationFilter, *, before: int | None = None,
                      after: int | None = None, size: int = 50) -> ConversationPage:
    """One page of the list, newest first, below `before` or above `after` (neither: the newest)."""
    size = max(1, min(size, MAX_PAGE))
    conditions = _conditions(actor, filters)
    with reading() as uow:
        session = uow.session
        rows = _summaries(session, conditions, limit=size, before=before, after=after, actor=actor)
        if (after is not None and len(rows) < size) or (before is not None and not rows):
            rows = _summaries(session, conditions, limit=size, actor=actor)  # a cursor past either end: the newest
        total = _count(session, conditions)
        if not rows:
            return ConversationPage([], total, 0, None, None)
        above = _count(session, [*conditions, Conversation.id > rows[0].id])
        below = _count(session, [*conditions, Conversation.id < rows[-1].id])
    return ConversationPage(
        rows, total, above + 1,
        newer_cursor=rows[0].id if above else None,
        older_cursor=rows[-1].id if below else None,
    )
