"""The runner: takes a runnable conversation's lease, resumes its team from the checkpoint,
and runs it turn by turn until a gate pauses it, it finishes, or it fails.

Nothing is held while a conversation waits: its checkpoint and pending input are rows."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from hitl_dashboard.agents.errors import ModelCallFailed
from hitl_dashboard.agents.model_clients import agent_model_specs
from hitl_dashboard.agents.team_run import TeamRun, TurnFailed, TurnResult
from hitl_dashboard.agents.tools import prepare_tools
from hitl_dashboard.db.models import Conversation
from hitl_dashboard.db.uow import CoreUnitOfWork, UnitOfWork
from hitl_dashboard.domain.enums import ConversationStatus
from hitl_dashboard.domain.findings import FindingsView
from hitl_dashboard.domain.turn_gate import TurnCode, parse_turn_code
from hitl_dashboard.services.findings.gate import findings_for_turn
from hitl_dashboard.services.live import live
from hitl_dashboard.services.observability.run_tracing import traced_run
from hitl_dashboard.services.runner import leases, plain_turn
from hitl_dashboard.services.runner.checkpoints import state_at
from hitl_dashboard.services.runner.identity import new_runner_id
from hitl_dashboard.services.runner.run_failures import LeaseLost, describe_storage_error, mark_failed, record_crash
from hitl_dashboard.services.runner.tool_execution import run_approved_tools, tool_call_ids
from hitl_dashboard.services.runner.turns import CONTINUE, apply_turn
from hitl_dashboard.services.teams import web_policy
from hitl_dashboard.services.teams.versions import pinned
from hitl_dashboard.settings import get_settings

log = logging.getLogger(__name__)


async def run_conversation(conversation_id: int, runner_id: str) -> bool:
    """Run one conversation if its lease can be taken. Returns True if it did any work."""
    settings = get_settings()
    with UnitOfWork() as uow:
        if not leases.try_take(uow.session, conversation_id, runner_id, settings.lease_seconds):
            return False
        uow.commit()
    heartbeat = asyncio.create_task(_heartbeat(conversation_id, runner_id, settings.lease_seconds))
    crash: Exception | None = None
    try:
        await _run_leased(conversation_id, runner_id)
    except LeaseLost:
        log.warning("runner %s lost the lease on conversation %s (aborted, or taken over)", runner_id, conversation_id)
    except Exception as exc:  # noqa: BLE001 - logged here, backed off below; never kills the worker loop
        log.exception("runner %s crashed on conversation %s", runner_id, conversation_id)
        crash = exc
    finally:
        heartbeat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await heartbeat
        _release(conversation_id, runner_id, crash)
    return True


def _release(conversation_id: int, runner_id: str, crash: Exception | None) -> None:
    try:
        if crash is not None:
            record_crash(conversation_id, runner_id, crash)
            return
        with UnitOfWork() as uow:
            leases.release(uow.session, conversation_id, runner_id)
            uow.commit()
    except Exception:  # noqa: BLE001 - e.g. the database is down: the lease then simply expires
        log.exception("runner %s could not release conversation %s; its lease will expire", runner_id,
                      conversation_id)


@traced_run
async def _run_leased(conversation_id: int, runner_id: str) -> None:
    with UnitOfWork() as uow:
        conversation = uow.session.get(Conversation, conversation_id)
        if conversation is None or conversation.status != ConversationStatus.RUNNING:
            return
        snapshot = _Snapshot(conversation)
        state = state_at(uow.session, conversation_id, snapshot.checkpoint_version)
        refused = web_policy.run_problems(uow.session, conversation.team_version_id, snapshot.team)
    if refused:  # fail closed: a web-saved version may run only what the operator allows today
        mark_failed(conversation_id, runner_id, web_policy.refusal(refused))
        return
    task = snapshot.next_input
    if task and task.get("type") == "tool_execution":
        task = await run_approved_tools(conversation_id, tool_call_ids(task), runner_id)
    try:
        specs = agent_model_specs(snapshot.team, snapshot.model_routing)
        await prepare_tools(snapshot.team)  # an MCP server that is down fails this conversation, retryably
        team_run = TeamRun(snapshot.team, snapshot.task_type, specs, stream=get_settings().model_stream)
    except Exception as exc:  # noqa: BLE001 - a misconfigured model fails this conversation, not the runner loop
        mark_failed(conversation_id, runner_id, f"cannot set up the agents' models or tools: {exc}")
        return
    try:
        await team_run.restore(state)
        turn_number = snapshot.checkpoint_version
        while True:
            turn_number += 1
            try:
                turn = await team_run.run_turn(task, on_chunk=live.chunk_publisher(conversation_id))
            except (TurnFailed, ModelCallFailed) as exc:
                mark_failed(conversation_id, runner_id, str(exc))
                return
            code = parse_turn_code(snapshot.team.code_authors, turn.messages)  # once: every step below reads it
            findings = await findings_for_turn(conversation_id, code, snapshot.team)  # None unless gated on
            try:
                outcome = _store_turn(conversation_id, runner_id, turn, code, findings)
            except LeaseLost:
                raise
            except Exception as exc:  # noqa: BLE001 - rolled back; retrying would fail the same way
                log.exception("runner %s: storing turn %d of conversation %s failed", runner_id, turn_number,
                              conversation_id)
                mark_failed(conversation_id, runner_id,
                            f"storing agent turn {turn_number} failed: {describe_storage_error(exc)}")
                return
            live.publish_turn(conversation_id)
            if outcome != CONTINUE:
                return
            task = None
    finally:
        await team_run.close()


def _store_turn(conversation_id: int, runner_id: str, turn: TurnResult, code: TurnCode,
                findings: FindingsView | None = None) -> str:
    """One transaction: the turn's rows and its checkpoint, or nothing (rolled back unless committed).
    Locked (PostgreSQL FOR UPDATE; SQLite's BEGIN IMMEDIATE): renewing the lease fails if an admin
    aborted the conversation or another runner took it over."""
    lease_seconds = get_settings().lease_seconds
    if plain_turn.may_be_plain(turn, code, findings):  # most turns: three Core statements
        with CoreUnitOfWork() as core:
            outcome = plain_turn.store(core, conversation_id, runner_id, turn, lease_seconds)
            if outcome is not None:
                core.commit()
                return outcome
    # Any other turn (code, tools, a gate, the end): the ORM path, in a transaction of its own.
    with UnitOfWork() as uow:
        conversation = uow.session.get(Conversation, conversation_id, with_for_update=True)
        if conversation is None or not leases.renew_held(conversation, runner_id, lease_seconds):
            raise LeaseLost()
        outcome = apply_turn(uow.session, conversation, turn, findings, code)
        conversation.crash_count = 0  # a stored turn is progress: crashes before it no longer count
        uow.commit()
    return outcome


class _Snapshot:
    """The fields the runner needs, copied out so no ORM object crosses an await."""

    def __init__(self, conversation: Conversation):
        self.team = pinned(conversation)  # the version it started on
        self.task_type = conversation.task_type
        self.model_routing = dict(conversation.model_routing or {})
        self.next_input = conversation.next_input
        self.checkpoint_version = conversation.checkpoint_version


async def _heartbeat(conversation_id: int, runner_id: str, seconds: float) -> None:
    while True:
        await asyncio.sleep(max(seconds / 3, 0.2))
        with UnitOfWork() as uow:
            if not leases.renew(uow.session, conversation_id, runner_id, seconds):
                return
            uow.commit()


async def run_turns_until_idle(runner_id: str | None = None, *, max_rounds: int = 10_000) -> int:
    """Run every runnable conversation until none is left; returns how many runs happened. Turns
    only: `runner --until-idle` drains the analyses, questions and webhooks too (until_idle.py)."""
    runner_id = runner_id or new_runner_id()
    runs = 0
    for _ in range(max_rounds):
        with UnitOfWork() as uow:
            candidates = leases.runnable_ids(uow.session)
            busy_elsewhere = not candidates and leases.any_running(uow.session)
        if not candidates:
            if not busy_elsewhere:
                return runs
            # Another runner holds a lease (or a dead one's lease has not expired yet): wait.
            await asyncio.sleep(get_settings().worker_poll_seconds)
            continue
        progressed = False
        for conversation_id in candidates:
            if await run_conversation(conversation_id, runner_id):
                runs += 1
                progressed = True
        if not progressed:
            await asyncio.sleep(get_settings().worker_poll_seconds)
    return runs
