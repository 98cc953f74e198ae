"""Code revisions of a conversation and the diff between two of them (by revision id)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from sqlmodel import select

from hitl_dashboard.db.models import CodeRevision
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import NotFound
from hitl_dashboard.services.conversations.conversation_queries import get_conversation


@dataclass(frozen=True)
class RevisionDiff:
    before: CodeRevision
    after: CodeRevision
    unified_diff: str


def list_revisions(uow: UnitOfWork, conversation_id: int) -> list[CodeRevision]:
    get_conversation(uow, conversation_id)
    return list(uow.session.exec(
        select(CodeRevision).where(CodeRevision.conversation_id == conversation_id)
        .order_by(CodeRevision.key, CodeRevision.number)
    ))


def get_revision(uow: UnitOfWork, conversation_id: int, revision_id: int) -> CodeRevision:
    revision = uow.session.get(CodeRevision, revision_id)
    if revision is None or revision.conversation_id != conversation_id:
        raise NotFound(f"conversation {conversation_id} has no revision {revision_id}")
    return revision


def revision_diff(uow: UnitOfWork, conversation_id: int, from_id: int, to_id: int) -> RevisionDiff:
    """Revision ids, not numbers: an id names one file's version without also naming the key."""
    get_conversation(uow, conversation_id)
    before = get_revision(uow, conversation_id, from_id)
    after = get_revision(uow, conversation_id, to_id)
    lines = difflib.unified_diff(
        before.content.splitlines(keepends=True), after.content.splitlines(keepends=True),
        fromfile=f"{before.key} r{before.number}", tofile=f"{after.key} r{after.number}",
    )
    return RevisionDiff(before, after, "".join(line if line.endswith("\n") else line + "\n" for line in lines))
