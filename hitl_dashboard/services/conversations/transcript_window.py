"""The part of a transcript a page shows first, and the pages before it.

A conversation page opens on its newest messages (a window of whole blocks of TRANSCRIPT_BLOCK
messages plus the newest, unfinished block) and reads older ones a page at a time as the reader
scrolls up: a 500-message conversation opens as fast as a short one. The window's start moves by
one block at a time, so a live page resends a block, not the transcript, when it moves.

Seqs of a conversation run 1, 2, 3... (Conversation.next_seq), so a window's bounds follow from its
newest seq alone (read as the largest stored one: the unique index on (conversation, seq) answers it)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from hitl_dashboard.db.lookups import load_conversation
from hitl_dashboard.db.models import Message
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.transactions import reading

TRANSCRIPT_BLOCK = 16
WINDOW_BLOCKS = 2  # whole blocks before the newest one: the first screen and some reading above it
OLDER_PAGE = 40


def newest_block_start(last_seq: int) -> int:
    """The seq after which the newest (unfinished) block begins: it holds 1 to TRANSCRIPT_BLOCK messages."""
    return max(0, (last_seq - 1) // TRANSCRIPT_BLOCK * TRANSCRIPT_BLOCK)


def window_start(last_seq: int) -> int:
    """The seq after which the window a page opens with begins."""
    return max(0, newest_block_start(last_seq) - WINDOW_BLOCKS * TRANSCRIPT_BLOCK)


@dataclass(frozen=True)
class TranscriptWindow:
    messages: list[Message]  # oldest first
    older: int  # how many messages come before the first of them


def load_window(session: Session, conversation_id: int, actor: Actor | None) -> TranscriptWindow:
    """Step: the newest messages, by indexed reads (the newest seq, the window, the count before it)."""
    load_conversation(session, conversation_id, actor)
    last = session.exec(select(func.max(Message.seq)).where(Message.conversation_id == conversation_id)).one()
    start = window_start(int(last or 0))
    rows = list(session.exec(select(Message).where(Message.conversation_id == conversation_id, Message.seq > start)
                             .order_by(col(Message.seq))))
    older = session.exec(select(func.count()).select_from(Message).where(
        Message.conversation_id == conversation_id, Message.seq <= start)).one() if start else 0
    return TranscriptWindow(rows, int(older))


def messages_before(actor: Actor | None, conversation_id: int, *, before_seq: int,
                    limit: int = OLDER_PAGE) -> list[Message]:
    """Up to `limit` messages just before `before_seq`, oldest first. NotFound for an unknown conversation."""
    with reading() as uow:
        load_conversation(uow.session, conversation_id, actor)
        rows = uow.session.exec(select(Message).where(
            Message.conversation_id == conversation_id, Message.seq < before_seq,
        ).order_by(col(Message.seq).desc()).limit(limit))
        return list(reversed(list(rows)))


def messages_between(actor: Actor | None, conversation_id: int, *, after_seq: int, before_seq: int,
                     limit: int = OLDER_PAGE) -> list[Message]:
    """Up to `limit` messages after `after_seq` and before `before_seq`, oldest first."""
    with reading() as uow:
        load_conversation(uow.session, conversation_id, actor)
        return list(uow.session.exec(select(Message).where(
            Message.conversation_id == conversation_id, Message.seq > after_seq, Message.seq < before_seq,
        ).order_by(col(Message.seq)).limit(limit)))
