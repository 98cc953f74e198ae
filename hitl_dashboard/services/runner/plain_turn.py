"""The common agent turn, stored in a handful of plain statements.

Most turns are text that opens no review: no code (no revision, nothing to analyse), no tool call,
no gate rule fires, the planner does not reroute. Storing one through the ORM (load the conversation,
build Message objects, flush, the unit of work's bookkeeping) cost several times the SQL itself on
every agent turn. Such a turn is written here with three Core statements on a bare connection
(db/uow.CoreUnitOfWork; on SQLite run on the driver's cursor, db/driver_statements.py): the
conversation's UPDATE (lease, counters; it returns what the gate needs), the messages, the
checkpoint. Whether the gate stops the turn is domain/turn_gate.decide_turn's answer, as in
apply_turn. A turn it would stop is rolled back here and stored by turns.apply_turn in a
transaction of its own, which decides again from scratch. Both write the same rows
(tests/test_turns_plain.py compares them)."""

from __future__ import annotations

import json
from datetime import timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from sqlalchemy import Text, bindparam, cast, insert, update

from hitl_dashboard.db.driver_statements import DriverStatement
from hitl_dashboard.db.models import Conversation, Message, utcnow
from hitl_dashboard.db.rows import table_of
from hitl_dashboard.db.uow import CoreUnitOfWork
from hitl_dashboard.domain.enums import ConversationStatus
from hitl_dashboard.domain.findings import FindingsView
from hitl_dashboard.domain.policies import GatePolicy
from hitl_dashboard.domain.stored_values import MODEL_CHARS, SOURCE_CHARS, fit_with_hash, storable_text
from hitl_dashboard.domain.turn_gate import TurnCode, decide_turn
from hitl_dashboard.observability import metrics
from hitl_dashboard.services.runner.checkpoints import insert_turn_checkpoint
from hitl_dashboard.services.runner.run_failures import LeaseLost
from hitl_dashboard.services.runner.turns import CONTINUE
from hitl_dashboard.services.teams.versions import team_of
from hitl_dashboard.teams.model import TeamDefinition

if TYPE_CHECKING:  # the runner hands us these; importing them would load AutoGen
    from hitl_dashboard.agents.team_run import TurnResult

_C = table_of(Conversation).c
# One statement takes the lock (PostgreSQL: the row; SQLite: BEGIN IMMEDIATE already has the write
# lock), checks and renews the lease, and writes the turn's changes to the conversation; RETURNING
# gives what the gate needs (gate_policy as its JSON text: parsed once per distinct policy).
_CLAIM = DriverStatement(
    update(table_of(Conversation))
    .where(_C.id == bindparam("conversation_id"), _C.lease_owner == bindparam("owner"),
           _C.status == ConversationStatus.RUNNING.value)
    .values(checkpoint_version=_C.checkpoint_version + 1, next_seq=_C.next_seq + bindparam("messages"),
            next_input=None, updated_at=bindparam("now"),
            prompt_tokens=_C.prompt_tokens + bindparam("prompt_tokens"),
            completion_tokens=_C.completion_tokens + bindparam("completion_tokens"),
            turns_since_review=_C.turns_since_review + 1, lease_expires_at=bindparam("lease_expires_at"),
            crash_count=0)
    .returning(_C.template, _C.team_version_id, cast(_C.gate_policy, Text), _C.checkpoint_version, _C.next_seq,
               _C.turns_since_review, _C.workspace_id)
)
_INSERT_MESSAGES = DriverStatement(insert(table_of(Message)), [
    "conversation_id", "workspace_id", "seq", "source", "kind", "content", "prompt_tokens", "completion_tokens",
    "created_at", "model"])


def may_be_plain(turn: TurnResult, code: TurnCode, findings: FindingsView | None) -> bool:
    """What can be told without the database: only text, no code (no revision, not even a copy
    producer's text), no tool call. code: the turn's, parsed once by the runner."""
    if not turn.messages or findings is not None or code.any:
        return False
    return all(m.kind == "text" and not m.tool_calls and not m.awaiting_approval for m in turn.messages)


def store(uow: CoreUnitOfWork, conversation_id: int, owner: str, turn: TurnResult, lease_seconds: float) -> str | None:
    """Stores a turn that may_be_plain as apply_turn would, and returns CONTINUE; or returns None
    when the gate would stop here (the caller rolls back and leaves the turn to apply_turn). Raises
    LeaseLost when the lease is gone (expired and taken over, or cleared by an admin's abort)."""
    now = utcnow()
    connection = uow.connection
    claimed = _CLAIM.rows(connection, {
        "conversation_id": conversation_id, "owner": owner, "messages": len(turn.messages), "now": now,
        "prompt_tokens": sum(m.prompt_tokens for m in turn.messages),
        "completion_tokens": sum(m.completion_tokens for m in turn.messages),
        "lease_expires_at": now + timedelta(seconds=lease_seconds),
    })
    if not claimed:
        raise LeaseLost()
    template, version_id, policy_json, number, next_seq, turns_since_review, workspace_id = claimed[0]
    if _planner_may_reroute(team_of(version_id, template), turn):
        return None  # apply_turn follows the planner's TASK TYPE line
    decision = decide_turn(_policy(policy_json), turn.messages, proposes_code=False, held_tool_calls=0,
                           findings=None, turns_without_review=turns_since_review)
    if decision.outcome != CONTINUE:
        return None
    seq = next_seq - len(turn.messages)
    rows: list[dict[str, Any]] = []
    for message in turn.messages:
        rows.append({"conversation_id": conversation_id, "workspace_id": workspace_id, "seq": seq,
                     "source": fit_with_hash(message.source, SOURCE_CHARS), "kind": message.kind,
                     "content": storable_text(message.content), "prompt_tokens": message.prompt_tokens,
                     "completion_tokens": message.completion_tokens, "created_at": now,
                     "model": fit_with_hash(message.model, MODEL_CHARS) or None})
        seq += 1
    _INSERT_MESSAGES.run(connection, rows[0] if len(rows) == 1 else rows)
    insert_turn_checkpoint(connection, conversation_id=conversation_id, turn=number, kind=turn.checkpoint_kind,
                           data=turn.checkpoint, task=turn.task, last_seq=next_seq - 1,
                           seq_by_text={row["content"]: row["seq"] for row in rows}, now=now)
    uow.on_commit(metrics.agent_turn, turn.messages[-1].source)
    return CONTINUE


def _planner_may_reroute(team: TeamDefinition, turn: TurnResult) -> bool:
    """The planner of a team serving several task types may name another one: apply_turn's work."""
    return team.fixed_task_type is None and any(m.source == team.speaker_order.planner for m in turn.messages)


@lru_cache(maxsize=256)
def _policy(stored: str) -> GatePolicy:
    return GatePolicy.from_dict(json.loads(stored))
