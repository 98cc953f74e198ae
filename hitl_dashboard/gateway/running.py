"""What a serving gateway keeps running, over HTTP or stdio: its upstream sessions (in a task group of
its own) and the writer of the forwarded calls' records; on the way out, the last records are written."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

import anyio
import anyio.to_thread

from hitl_dashboard.gateway.server import Gateway
from hitl_dashboard.services.mcp_gateway.records import FLUSH_S, call_log

logger = logging.getLogger(__name__)


@contextlib.asynccontextmanager
async def running(gateway: Gateway) -> AsyncIterator[None]:
    async with anyio.create_task_group() as group:
        gateway.start(group)
        group.start_soon(_write_records)
        try:
            yield
        finally:
            gateway.stop()
            group.cancel_scope.cancel()
    with anyio.CancelScope(shield=True):
        await anyio.to_thread.run_sync(call_log.write)


async def _write_records() -> None:
    while True:
        await anyio.sleep(FLUSH_S)
        try:
            await anyio.to_thread.run_sync(call_log.write)
        except Exception:  # noqa: BLE001 - logged; the next round writes what is noted then
            logger.exception("mcp gateway: could not record the forwarded calls")
