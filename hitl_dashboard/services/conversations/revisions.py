"""Code revisions of a conversation and the diff between two of them (by revision id)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from sqlmodel import Session, col, select

from hitl_dashboard.db.lookups import load_conversation
from hitl_dashboard.db.models import CodeRevision
from hitl_dashboard.domain.diff_hunks import lines_of
from hitl_dashboard.domain.errors import InvalidInput, NotFound
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.transactions import reading

MAX_LINES_READ = 20_000  # one fold the page expands at a time; a larger one reads its first lines


@dataclass(frozen=True)
class ComparedPair:
    old: str
    new: str
    new_id: int  # the revision on the new side (0: none)


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


def compared_pair(actor: Actor | None, conversation_id: int, key: str, old_id: int | None = None,
                  new_id: int | None = None) -> ComparedPair:
    """(old, new) contents of the file `key` for a side-by-side diff, and the revision on the new side
    (its folded lines are read by id); by default its latest revision against the one before. An id
    that is not a revision of this file, or a file with no revisions, reads as empty text: the page
    shows an empty side rather than an error. NotFound for a conversation the actor may not see."""
    with reading() as uow:
        load_conversation(uow.session, conversation_id, actor)
        rows = _revisions_of(uow.session, conversation_id, key=key)
    if not rows:
        return ComparedPair("", "", 0)
    by_id = {r.id: r for r in rows}
    new = by_id.get(new_id) if new_id else rows[-1]
    old = by_id.get(old_id) if old_id else (rows[-2] if len(rows) > 1 else None)
    return ComparedPair(old.content if old else "", new.content if new else "", (new.id or 0) if new else 0)


def revision_lines(actor: Actor | None, conversation_id: int, revision_id: int, start: int, count: int) -> list[str]:
    """Lines start..start+count-1 (1-based) of one revision of the conversation: the unchanged lines a
    diff folded, read when a reviewer expands them. NotFound for a conversation the actor may not see
    (another workspace's reads as missing) or a revision not of this conversation."""
    if start < 1 or count < 1:
        raise InvalidInput("a line range starts at line 1 and holds at least one line", "lines")
    with reading() as uow:
        load_conversation(uow.session, conversation_id, actor)
        revision = _get_revision(uow.session, conversation_id, revision_id)
    return lines_of(revision.content, start, min(count, MAX_LINES_READ))


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
