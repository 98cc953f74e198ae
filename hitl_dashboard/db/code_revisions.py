"""Step: store code revisions, numbered per file after the conversation's latest. Used by the runner
for what an agent's text message proposes (domain/revisions.proposed_code says which), by a fork for
the edited copy of a turn's message (which proposes what its text says, not what the parent's
message said), and by a reviewer's "approve with my changes" (author_id: that reviewer)."""

from __future__ import annotations

from sqlmodel import Session, col, select

from hitl_dashboard.db.models import CodeRevision
from hitl_dashboard.domain.revisions import ProposedCode


def add_revisions(session: Session, conversation_id: int, message_id: int,
                  blocks: list[ProposedCode], *, author_id: int | None = None) -> list[CodeRevision]:
    revisions = []
    for block in blocks:
        latest = session.exec(
            select(CodeRevision).where(CodeRevision.conversation_id == conversation_id, CodeRevision.key == block.key)
            .order_by(col(CodeRevision.number).desc()).limit(1)
        ).first()
        revision = CodeRevision(
            conversation_id=conversation_id, message_id=message_id, key=block.key,
            number=(latest.number + 1) if latest else 1, language=block.language,
            content=block.content, content_hash=block.content_hash, author_id=author_id,
        )
        session.add(revision)
        revisions.append(revision)
    return revisions
