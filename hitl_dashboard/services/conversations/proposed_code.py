"""Step: the code revisions an agent's text message proposes, numbered per file after the
conversation's latest. Used by the runner for every stored turn and by a fork for the edited copy of
a turn's message (which proposes what its text says, not what the parent's message said)."""

from __future__ import annotations

from sqlmodel import Session, col, select

from hitl_dashboard.db.models import CodeRevision
from hitl_dashboard.domain.revisions import ProposedCode, extract_code_blocks
from hitl_dashboard.domain.stored_values import storable_text
from hitl_dashboard.teams.model import TeamDefinition


def proposed_code(team: TeamDefinition, source: str, content: str) -> list[ProposedCode]:
    """The files a text message proposes: the team's planner proposes none; copy has no code block,
    so the copy producer's whole message is the reviewed revision (copy.md)."""
    if source == team.speaker_order.planner:
        return []
    blocks = extract_code_blocks(content)
    if not blocks and team.serves("copy") and source == team.producer("copy"):
        blocks = [ProposedCode("copy.md", "markdown", storable_text(content.strip()) + "\n")]
    return blocks


def add_revisions(session: Session, conversation_id: int, message_id: int,
                  blocks: list[ProposedCode]) -> list[CodeRevision]:
    revisions = []
    for block in blocks:
        latest = session.exec(
            select(CodeRevision).where(CodeRevision.conversation_id == conversation_id, CodeRevision.key == block.key)
            .order_by(col(CodeRevision.number).desc()).limit(1)
        ).first()
        revision = CodeRevision(
            conversation_id=conversation_id, message_id=message_id, key=block.key,
            number=(latest.number + 1) if latest else 1, language=block.language,
            content=block.content, content_hash=block.content_hash,
        )
        session.add(revision)
        revisions.append(revision)
    return revisions
