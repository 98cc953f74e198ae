"""Did the agent take each suggested change? Every suggestion of a conversation's decisions, with its
outcome on the next revision of its file (domain/suggestions.py judges).

"The next revision" is the first agent message with code after the revision the suggestion was made on
(services/reviews/suggestion_pins.py pinned it): if that message has the file, the two texts are
compared; if it has other files only, the file is gone; if there is none yet, the suggestion waits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session, col, select

from hitl_dashboard.db.models import CodeRevision, Decision, User
from hitl_dashboard.domain.decisions import LineComment
from hitl_dashboard.domain.suggestions import SuggestionOutcome, SuggestionState, suggestion_outcome


@dataclass(frozen=True)
class SuggestionStatus:
    decision_id: int
    reviewer: str
    key: str
    line: int
    end_line: int
    lines: tuple[str, ...]
    text: str
    revision: int  # the file's revision number it was made on
    next_revision: int | None  # the revision it was judged on (None: waiting, or the file is gone)
    outcome: SuggestionOutcome


def suggestion_statuses(session: Session, conversation_id: int,
                        revisions: Sequence[CodeRevision]) -> list[SuggestionStatus]:
    """Step: `revisions` are the conversation's (any order); the decisions are read here."""
    rows = session.exec(
        select(Decision.id, User.username, Decision.line_comments)
        .join(User, col(User.id) == Decision.reviewer_id)
        .where(Decision.conversation_id == conversation_id).order_by(col(Decision.id))
    ).all()
    by_id = {r.id: r for r in revisions}
    found = []
    for decision_id, reviewer, stored in rows:
        for value in stored or []:
            comment = LineComment.from_stored(value) if isinstance(value, dict) else None
            base = by_id.get(comment.revision_id) if comment and comment.revision_id else None
            if comment is None or comment.suggestion is None or base is None:
                continue
            after, outcome = _judged(comment, base, revisions)
            found.append(SuggestionStatus(decision_id, reviewer, comment.key, comment.line, comment.last_line,
                                          tuple(comment.suggestion), comment.text, base.number,
                                          after.number if after else None, outcome))
    return found


def _judged(comment: LineComment, base: CodeRevision,
            revisions: Sequence[CodeRevision]) -> tuple[CodeRevision | None, SuggestionOutcome]:
    later = [r for r in revisions if r.message_id > base.message_id]
    if not later:
        return None, SuggestionOutcome(SuggestionState.WAITING, "no new revision yet")
    first_message = min(r.message_id for r in later)
    after = next((r for r in later if r.message_id == first_message and r.key == comment.key), None)
    outcome = suggestion_outcome(base.content, after.content if after else None, comment.line, comment.last_line,
                                 comment.suggestion or ())
    return after, outcome
