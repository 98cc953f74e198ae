"""Suggested lines, when a decision is recorded: each one is pinned to the file's revision its line
numbers refer to (the newest one, which the reviewer was shown), so the next revision can be judged
against exactly that text (services/conversations/suggestions.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlmodel import Session, col, select

from hitl_dashboard.db.models import CodeRevision
from hitl_dashboard.domain.decisions import LineComment
from hitl_dashboard.domain.errors import InvalidInput


def pin_suggestions(session: Session, conversation_id: int,
                    comments: tuple[LineComment, ...]) -> tuple[LineComment, ...]:
    """Step: the comments with each suggestion's revision id set by the server. A suggestion for a file
    the conversation does not have, or for lines past the file's end, is refused: it could never be
    applied nor checked."""
    keys = {c.key for c in comments if c.suggestion is not None}
    if not keys:
        return comments
    newest = {row.key: row for row in session.exec(
        select(CodeRevision).where(CodeRevision.conversation_id == conversation_id, col(CodeRevision.key).in_(keys))
        .order_by(col(CodeRevision.number))
    )}
    pinned = []
    for comment in comments:
        if comment.suggestion is None:
            pinned.append(comment)
            continue
        revision = newest.get(comment.key)
        if revision is None:
            raise InvalidInput(f"this conversation has no file {comment.key} to suggest a change to", "line_comments")
        size = len(revision.content.splitlines())
        if comment.last_line > size:
            raise InvalidInput(f"{comment.key} r{revision.number} has {size} lines: lines {comment.line}-"
                               f"{comment.last_line} are past its end", "line_comments")
        pinned.append(replace(comment, revision_id=revision.id))
    return tuple(pinned)


def suggestions_details(comments: tuple[LineComment, ...]) -> dict[str, Any]:
    """For the decision's audit event: every suggestion with its exact lines and the revision it is about."""
    found = [{"key": c.key, "line": c.line, "end_line": c.last_line, "revision_id": c.revision_id,
              "lines": list(c.suggestion)} for c in comments if c.suggestion is not None]
    return {"suggestions": found} if found else {}
