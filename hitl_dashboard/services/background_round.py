"""A piece of background work the runner loop starts each iteration unless it is still going
(analyses, questions to agents): it runs as its own task, so it never holds up the agents' turns."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)


class BackgroundRound:
    def __init__(self, name: str, work: Callable[[], Awaitable[object]]):
        self.name, self.work = name, work
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._logged())

    async def _logged(self) -> None:
        try:
            await self.work()
        except Exception:  # noqa: BLE001 - a database blip: the next round tries again
            log.exception("%s round failed", self.name)
