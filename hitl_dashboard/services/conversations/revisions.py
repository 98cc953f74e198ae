"""Code revisions of a conversation and the diff between two of them (by revision id)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from sqlmodel import Session, col, select

from hitl_dashboard.db.lookups import load_conversation
from hitl_dashboard.db.models import CodeRevision
from hitl_dashboard.domain.errors import NotFound
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.transactions import reading


@dataclass(frozen=True)
class RevisionDiff:
    before: CodeRevision
    after: CodeRevision
    unified_diff: str


def list_revisions(actor: Actor | None, conversation_id: int) -> list[CodeRevision]:
    """Every proposed file version, by key then number. NotFound for an unknown conversation."""
    with reading() as uow:
        load_conversation(uow.session, conversation_id, actor)
        return _revisions_of(uow.session, conversation_id)


def revision_diff(actor: Actor | None, conversation_id: int, from_id: int, to_id: int) -> RevisionDiff:
    """Revision ids, not numbers: an id names one file's version without also naming the key."""
    with reading() as uow:
        load_conversation(uow.session, conversation_id, actor)
        before = _get_revision(uow.session, conversation_id, from_id)
        after = _get_revision(uow.session, conversation_id, to_id)
    lines = difflib.unified_diff(
        before.content.splitlines(keepends=True), after.content.splitlines(keepends=True),
        fromfile=f"{before.key} r{before.number}", tofile=f"{after.key} r{after.number}",
    )
    return RevisionDiff(before, after, "".join(line if line.endswith("\n") else line + "\n" for line in lines))


def revision_contents(actor: Actor | None, conversation_id: int, key: str, old_id: int | None = None,
                      new_id: int | None = None) -> tuple[str, str]:
    """(old, new) contents of the file `key` for a side-by-side diff; by default its latest revision
    against the one before. An id that is not a revision of this file, or a file with no
    revisions, reads as empty text: the page shows an empty side rather than an error."""
    with reading() as uow:
        rows = _revisions_of(uow.session, conversation_id, key=key)
    if not rows:
        return "", ""
    by_id = {r.id: r.content for r in rows}
    new = by_id.get(new_id) if new_id else rows[-1].content
    old = by_id.get(old_id) if old_id else (rows[-2].content if len(rows) > 1 else "")
    return old or "", new or ""


def _revisions_of(session: Session, conversation_id: int, *, key: str | None = None) -> list[CodeRevision]:
    query = select(CodeRevision).where(CodeRevision.conversation_id == conversation_id)
    if key is not None:
        query = query.where(CodeRevision.key == key)
    return list(session.exec(query.order_by(CodeRevision.key, col(CodeRevision.number))))


def _get_revision(session: Session, conversation_id: int, revision_id: int) -> CodeRevision:
    revision = session.get(CodeRevision, revision_id)
    if revision is None or revision.conversation_id != conversation_id:
        raise NotFound(f"conversation {conversation_id} has no revision {revision_id}")
    return revision
