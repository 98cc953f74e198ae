"""The common agent turn, stored in a handful of plain statements.

Most turns are text that opens no review: no code (no revision, nothing to analyse), no tool call,
no gate rule fires, the planner does not reroute. Storing one through the ORM (load the conversation,
build Message objects, flush, the unit of work's bookkeeping) cost several times the SQL itself on
every agent turn. Such a turn is written here with Core statements on the same transaction: the
conversation's columns read under the lock, the messages, the checkpoint, one UPDATE of the
conversation. Everything else goes through turns.apply_turn, which decides again from scratch.
Both write the same rows (tests/test_turns_plain.py compares them)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, insert, select, update
from sqlmodel import Session

from hitl_dashboard.db.models import Conversation, Message, utcnow
from hitl_dashboard.domain.enums import ConversationStatus
from hitl_dashboard.domain.findings import FindingsView
from hitl_dashboard.domain.policies import GatePolicy, TurnView
from hitl_dashboard.domain.revisions import extract_code_blocks
from hitl_dashboard.domain.stored_values import SOURCE_CHARS, fit_with_hash, storable_text
from hitl_dashboard.observability import metrics
from hitl_dashboard.observability.on_commit import on_commit
from hitl_dashboard.services.conversations.checkpoints import insert_turn_checkpoint
from hitl_dashboard.services.runner.turns import CONTINUE

if TYPE_CHECKING:  # the runner hands us these; importing them would load AutoGen
    from hitl_dashboard.agents.team_session import TurnResult

_C = Conversation.__table__.c
_LOCKED_COLUMNS = (_C.id, _C.status, _C.lease_owner, _C.template, _C.gate_policy, _C.checkpoint_version,
                   _C.next_seq, _C.turns_since_review)
_READ = select(*_LOCKED_COLUMNS).where(_C.id == bindparam("conversation_id"))
_READ_FOR_UPDATE = _READ.with_for_update()
_INSERT_MESSAGES = insert(Message.__table__)
_UPDATE_CONVERSATION = update(Conversation.__table__).where(_C.id == bindparam("conversation_id")).values(
    checkpoint_version=bindparam("turn"), next_seq=bindparam("next_seq"), next_input=None,
    updated_at=bindparam("now"), prompt_tokens=_C.prompt_tokens + bindparam("prompt_tokens"),
    completion_tokens=_C.completion_tokens + bindparam("completion_tokens"),
    turns_since_review=bindparam("turns_since_review"), lease_expires_at=bindparam("lease_expires_at"),
    crash_count=0,
)


@dataclass(frozen=True)
class LockedConversation:
    """What a turn needs of its conversation, read under the lock (PostgreSQL FOR UPDATE; SQLite's
    BEGIN IMMEDIATE already holds the write lock)."""

    id: int
    status: str
    lease_owner: str | None
    template: str
    gate_policy: dict
    checkpoint_version: int
    next_seq: int
    turns_since_review: int

    def leased_to(self, owner: str) -> bool:
        return self.lease_owner == owner and self.status == ConversationStatus.RUNNING


def lock(session: Session, conversation_id: int) -> LockedConversation | None:
    connection = session.connection()
    statement = _READ_FOR_UPDATE if connection.dialect.name == "postgresql" else _READ
    row = connection.execute(statement, {"conversation_id": conversation_id}).first()
    return None if row is None else LockedConversation(*row)


def is_plain(conversation: LockedConversation, turn: TurnResult, findings: FindingsView | None) -> bool:
    """True when apply_turn would do nothing but store the messages and the checkpoint and carry on."""
    messages = turn.messages
    if not messages or findings is not None:
        return False
    policy = GatePolicy.from_dict(conversation.gate_policy)
    for message in messages:
        if message.kind != "text" or message.tool_calls or message.awaiting_approval:
            return False
        if message.source == "planner":
            if conversation.template == "auto":  # the planner may reroute the conversation
                return False
        elif message.source == "copywriter" or extract_code_blocks(message.content):  # a revision
            return False
        view = TurnView(message.source, message.content)
        if policy.evaluate(view) or (policy.mode == "never" and view.says_done):
            return False
    return conversation.turns_since_review + 1 < policy.max_turns_without_review


def store(session: Session, conversation: LockedConversation, turn: TurnResult, lease_seconds: float) -> str:
    """What apply_turn stores for a plain turn (is_plain), renewing the lease with it."""
    now = utcnow()
    seq = conversation.next_seq
    rows: list[dict[str, Any]] = []
    for message in turn.messages:
        rows.append({"conversation_id": conversation.id, "seq": seq, "source": fit_with_hash(message.source, SOURCE_CHARS),
                     "kind": message.kind, "content": storable_text(message.content),
                     "prompt_tokens": message.prompt_tokens, "completion_tokens": message.completion_tokens,
                     "created_at": now})
        seq += 1
    connection = session.connection()
    connection.execute(_INSERT_MESSAGES, rows)
    number = conversation.checkpoint_version + 1
    insert_turn_checkpoint(session, conversation_id=conversation.id, turn=number, kind=turn.checkpoint_kind,
                           data=turn.checkpoint, task=turn.task, last_seq=seq - 1,
                           seq_by_text={row["content"]: row["seq"] for row in rows}, now=now)
    connection.execute(_UPDATE_CONVERSATION, {
        "conversation_id": conversation.id, "turn": number, "next_seq": seq, "now": now,
        "prompt_tokens": sum(m.prompt_tokens for m in turn.messages),
        "completion_tokens": sum(m.completion_tokens for m in turn.messages),
        "turns_since_review": conversation.turns_since_review + 1,
        "lease_expires_at": _expiry(now, lease_seconds),
    })
    on_commit(session, metrics.agent_turn, turn.messages[-1].source)
    return CONTINUE


def _expiry(now: datetime, seconds: float) -> datetime:
    return now + timedelta(seconds=seconds)
