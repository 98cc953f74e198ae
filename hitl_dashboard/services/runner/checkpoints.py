"""Steps: store one turn's checkpoint row, and rebuild the team state at any turn from those rows
(the format is domain/checkpoints.py's). Both run inside the caller's transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import insert
from sqlalchemy.engine import Connection
from sqlmodel import Session, col, select

from hitl_dashboard.db.driver_statements import DriverStatement
from hitl_dashboard.db.models import Conversation, Message, TurnCheckpoint, utcnow
from hitl_dashboard.db.rows import table_of
from hitl_dashboard.domain.checkpoints import (
    FULL,
    CheckpointError,
    compact_message_refs,
    rebuild,
    referenced_message_ids,
)


def store_turn_checkpoint(session: Session, conversation: Conversation, *, kind: str, data: dict[str, Any],
                          task: dict | None, stored: list[Message]) -> None:
    """The row for the turn just stored (conversation.checkpoint_version); see insert_turn_checkpoint."""
    insert_turn_checkpoint(session.connection(), conversation_id=conversation.id, turn=conversation.checkpoint_version,
                           kind=kind, data=data, task=task, last_seq=conversation.next_seq - 1,
                           seq_by_text={row.content: row.seq for row in stored})


def insert_turn_checkpoint(connection: Connection, *, conversation_id: int, turn: int, kind: str, data: dict[str, Any],
                           task: dict | None, last_seq: int, seq_by_text: dict[str, int],
                           now: datetime | None = None) -> None:
    """Message texts the turn stored as transcript rows (`seq_by_text`) are referred to by their seq,
    not repeated (a fork keeps the seqs). A plain INSERT on the session's connection: this runs on
    every agent turn, and an ORM object (or an ORM-enabled insert) costs several times the statement;
    on SQLite it runs on the driver's cursor (db/driver_statements.py)."""
    _INSERT_CHECKPOINT.run(connection, {
        "conversation_id": conversation_id, "turn": turn, "kind": kind,
        "data": compact_message_refs(data, seq_by_text) if seq_by_text else data,
        "input": task, "last_seq": last_seq, "created_at": now or utcnow(),
    })


_INSERT_CHECKPOINT = DriverStatement(insert(table_of(TurnCheckpoint)),
                                     ["conversation_id", "turn", "kind", "data", "input", "last_seq", "created_at"])


def state_at(session: Session, conversation_id: int, turn: int) -> dict[str, Any] | None:
    """The team state after `turn` (None at turn 0: nothing has run yet). Raises CheckpointError
    when the rows cannot give it."""
    if turn <= 0:
        return None
    base = session.exec(
        select(TurnCheckpoint.turn).where(TurnCheckpoint.conversation_id == conversation_id,
                                          TurnCheckpoint.turn <= turn, TurnCheckpoint.kind == FULL)
        .order_by(col(TurnCheckpoint.turn).desc()).limit(1)
    ).first()
    if base is None:
        raise CheckpointError(f"conversation {conversation_id} has no checkpoint at or before turn {turn}")
    rows = session.exec(
        select(TurnCheckpoint.turn, TurnCheckpoint.kind, TurnCheckpoint.data)
        .where(TurnCheckpoint.conversation_id == conversation_id, TurnCheckpoint.turn >= base,
               TurnCheckpoint.turn <= turn)
        .order_by(col(TurnCheckpoint.turn))
    ).all()
    if rows[-1][0] != turn or len(rows) != turn - base + 1:  # rows: (turn, kind, data)
        raise CheckpointError(f"conversation {conversation_id} is missing turns between {base} and {turn}")
    chain = [(kind, data) for _, kind, data in rows]
    seqs = set().union(*(referenced_message_ids(data) for _, data in chain))
    texts = dict(session.exec(select(Message.seq, Message.content).where(
        Message.conversation_id == conversation_id, col(Message.seq).in_(seqs))).all()) if seqs else {}
    return rebuild(chain, texts)


def turn_row(session: Session, conversation_id: int, turn: int) -> TurnCheckpoint | None:
    return session.exec(
        select(TurnCheckpoint).where(TurnCheckpoint.conversation_id == conversation_id,
                                     TurnCheckpoint.turn == turn)
    ).first()
