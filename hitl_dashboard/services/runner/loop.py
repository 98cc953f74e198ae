"""The long-running loop: run whatever is runnable, escalate what is overdue. Safe to run in
several processes at once (leases and conditional updates decide who does what)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.findings.queue import start_analysis_round
from hitl_dashboard.services.live import live
from hitl_dashboard.services.questions.answering import start_question_round
from hitl_dashboard.services.reviews.escalation import escalate_overdue
from hitl_dashboard.services.runner import leases
from hitl_dashboard.services.runner.runner import new_runner_id, run_conversation
from hitl_dashboard.services.webhooks.webhook_delivery import start_delivery_round
from hitl_dashboard.settings import get_settings

log = logging.getLogger(__name__)


async def run_runner_forever(runner_id: str | None = None, stop: asyncio.Event | None = None) -> None:
    """Up to RUNNER_CONCURRENCY conversations at once: their model calls overlap, and the lease
    on each conversation keeps every other runner (in this process or another) off it."""
    runner_id = runner_id or new_runner_id()
    wake = _WakeOnChange(asyncio.get_running_loop())
    live.register_sink(wake)  # a decision made in this process starts the next turn at once
    slots = max(1, get_settings().runner_concurrency)
    running: dict[int, asyncio.Task] = {}
    log.info("runner %s started with %d slots", runner_id, slots)
    try:
        while stop is None or not stop.is_set():
            try:
                escalate_overdue()
                start_delivery_round()
                start_analysis_round()
                start_question_round()
                for done in [cid for cid, task in running.items() if task.done()]:
                    _log_if_crashed(runner_id, done, running.pop(done))
                free = slots - len(running)
                started = 0
                if free > 0:
                    with UnitOfWork() as uow:
                        candidates = [c for c in leases.runnable_ids(uow.session, limit=slots * 2)
                                      if c not in running]
                    for conversation_id in candidates[:free]:
                        running[conversation_id] = asyncio.create_task(run_conversation(conversation_id, runner_id))
                        started += 1
                await wake.wait(0.05 if started else get_settings().worker_poll_seconds)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the loop must outlive one bad conversation or a DB blip
                log.exception("runner %s: iteration failed; retrying", runner_id)
                await asyncio.sleep(1.0)
    finally:
        for task in running.values():
            task.cancel()


def _log_if_crashed(runner_id: str, conversation_id: int, task: asyncio.Task) -> None:
    """Retrieve the task's outcome: run_conversation logs and backs off its own crashes, so an
    exception here is a bug in that handling (e.g. the database went away while releasing)."""
    if task.cancelled():
        return
    error = task.exception()
    if error is not None:
        log.error("runner %s: run of conversation %s ended with an error", runner_id, conversation_id,
                  exc_info=error)


class _WakeOnChange:
    """A live sink that cuts the idle poll short when something changed in this process."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop, self.event = loop, asyncio.Event()

    async def chunk(self, conversation_id: int, source: str, message_id: str, text: str) -> None:
        return None

    def changed(self, conversation_id: int, roles: tuple[str, ...] | None = None) -> None:
        live.call_on_loop(self.loop, self.event.set)

    async def wait(self, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.event.wait(), timeout)
        self.event.clear()
