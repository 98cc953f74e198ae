"""The long-running loop: run whatever is runnable, escalate what is overdue. Safe to run in
several processes at once (leases and conditional updates decide who does what)."""

from __future__ import annotations

import asyncio
import logging

from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services import leases
from hitl_dashboard.services.escalation import escalate_overdue
from hitl_dashboard.services.runner import new_runner_id, run_conversation
from hitl_dashboard.services.webhook_delivery import deliver_due
from hitl_dashboard.settings import get_settings

log = logging.getLogger(__name__)


def escalate_once() -> list[int]:
    with UnitOfWork() as uow:
        handled = escalate_overdue(uow)
        uow.commit()
    return handled


async def run_worker_forever(runner_id: str | None = None, stop: asyncio.Event | None = None) -> None:
    runner_id = runner_id or new_runner_id()
    log.info("runner %s started", runner_id)
    while stop is None or not stop.is_set():
        try:
            escalate_once()
            await deliver_due()
            with UnitOfWork() as uow:
                candidates = leases.runnable_ids(uow.session)
            for conversation_id in candidates:
                await run_conversation(conversation_id, runner_id)
            if not candidates:
                await asyncio.sleep(get_settings().worker_poll_seconds)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the loop must outlive one bad conversation or a DB blip
            log.exception("runner %s: iteration failed; retrying", runner_id)
            await asyncio.sleep(1.0)
