"""The runner: takes a runnable conversation's lease, resumes its team from the checkpoint,
and runs it turn by turn until a gate pauses it, it finishes, or it fails.

Nothing is held while a conversation waits: its checkpoint and pending input are rows."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid

from hitl_dashboard.agents.errors import ModelCallFailed
from hitl_dashboard.agents.model_clients import ModelSpec
from hitl_dashboard.agents.session import TeamSession, TurnFailed, model_specs
from hitl_dashboard.domain.templates import TEMPLATES
from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import Conversation, utcnow, without_checkpoint
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import ConversationStatus
from hitl_dashboard.services import leases, live, webhooks
from hitl_dashboard.services.tool_execution import run_approved_tools, tool_call_ids
from hitl_dashboard.services.turns import CONTINUE, apply_turn
from hitl_dashboard.settings import get_settings

log = logging.getLogger(__name__)


class LeaseLost(Exception):
    pass


def new_runner_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


def default_model_spec() -> ModelSpec:
    """The configured endpoint travels with every spec, so a conversation that routes one agent
    to "openai" (while the default is scripted) reaches the operator's endpoint, never another."""
    s = get_settings()
    return ModelSpec(
        provider="openai" if s.model_provider == "openai" else "scripted",
        model=s.openai_model,  # unused by the scripted model
        base_url=s.openai_base_url, api_key=s.openai_api_key, timeout_s=s.model_timeout_s,
        max_retries=s.model_max_retries, retry_base_delay_s=s.model_retry_base_s,
        delay_ms=s.scripted_delay_ms, chunk_delay_ms=s.scripted_chunk_delay_ms,
    )


async def run_conversation(conversation_id: int, runner_id: str) -> bool:
    """Run one conversation if its lease can be taken. Returns True if it did any work."""
    settings = get_settings()
    with UnitOfWork() as uow:
        if not leases.try_take(uow.session, conversation_id, runner_id, settings.lease_seconds):
            return False
        uow.commit()
    heartbeat = asyncio.create_task(_heartbeat(conversation_id, runner_id, settings.lease_seconds))
    try:
        await _run_leased(conversation_id, runner_id)
    except LeaseLost:
        log.warning("runner %s lost the lease on conversation %s", runner_id, conversation_id)
    finally:
        heartbeat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await heartbeat
        with UnitOfWork() as uow:
            leases.release(uow.session, conversation_id, runner_id)
            uow.commit()
    return True


async def _run_leased(conversation_id: int, runner_id: str) -> None:
    with UnitOfWork() as uow:
        conversation = uow.session.get(Conversation, conversation_id)
        if conversation is None or conversation.status != ConversationStatus.RUNNING:
            return
        snapshot = _Snapshot(conversation)
    task = snapshot.next_input
    if task and task.get("type") == "tool_execution":
        task = await run_approved_tools(conversation_id, tool_call_ids(task), runner_id)
    specs = model_specs(TEMPLATES[snapshot.template].agents, snapshot.model_routing, default_model_spec())
    try:
        session = TeamSession(snapshot.template, snapshot.task_type, specs, stream=get_settings().model_stream)
    except Exception as exc:  # noqa: BLE001 - a misconfigured model fails this conversation, not the runner loop
        _mark_failed(conversation_id, runner_id, f"cannot set up the agents' models: {exc}")
        return
    try:
        await session.restore(snapshot.checkpoint)
        while True:
            try:
                turn = await session.run_turn(task, on_chunk=live.chunk_publisher(conversation_id))
            except (TurnFailed, ModelCallFailed) as exc:
                _mark_failed(conversation_id, runner_id, str(exc))
                return
            with UnitOfWork() as uow:
                if not leases.renew(uow.session, conversation_id, runner_id, get_settings().lease_seconds):
                    raise LeaseLost()
                conversation = uow.session.get(Conversation, conversation_id, options=without_checkpoint())
                outcome = apply_turn(uow.session, conversation, turn)
                uow.commit()
            live.publish_turn(conversation_id)
            if outcome != CONTINUE:
                return
            task = None
    finally:
        await session.close()


class _Snapshot:
    """The fields the runner needs, copied out so no ORM object crosses an await."""

    def __init__(self, conversation: Conversation):
        self.template = conversation.template
        self.task_type = conversation.task_type
        self.model_routing = dict(conversation.model_routing or {})
        self.checkpoint = conversation.checkpoint
        self.next_input = conversation.next_input


def _mark_failed(conversation_id: int, runner_id: str, reason: str) -> None:
    with UnitOfWork() as uow:
        conversation = uow.session.get(Conversation, conversation_id, options=without_checkpoint())
        if conversation.lease_owner != runner_id:
            raise LeaseLost()
        conversation.status = ConversationStatus.FAILED
        conversation.status_reason = reason[:2000]
        conversation.updated_at = utcnow()
        uow.session.add(conversation)
        append_audit(uow.session, actor="runner", action="conversation.failed", conversation_id=conversation_id,
                     details={"reason": reason[:2000]})
        webhooks.conversation_finished(uow.session, conversation)
        uow.commit()
    live.publish_turn(conversation_id)


async def _heartbeat(conversation_id: int, runner_id: str, seconds: float) -> None:
    while True:
        await asyncio.sleep(max(seconds / 3, 0.2))
        with UnitOfWork() as uow:
            if not leases.renew(uow.session, conversation_id, runner_id, seconds):
                return
            uow.commit()


async def run_until_idle(runner_id: str | None = None, *, max_rounds: int = 10_000) -> int:
    """Run everything runnable until nothing is left; returns how many runs happened."""
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
