"""The asynchronous client: ApprovalClient's twin for asyncio code (LangGraph, AutoGen tools)."""

from __future__ import annotations

from typing import Any

import httpx
from tenacity import AsyncRetrying

from hitl_dashboard.client.wire import (
    PATH,
    Approval,
    Ask,
    ClientBase,
    PollClock,
    checked,
    explained_failures,
    report_body,
    retry_policy,
    settled,
)


class AsyncApprovalClient(ClientBase):
    """Awaitable calls; the same arguments as ApprovalClient (an httpx.AsyncBaseTransport as transport)."""

    def _open(self, transport: httpx.AsyncBaseTransport | None) -> None:
        self._http = httpx.AsyncClient(base_url=self.settings.base_url, headers=self.settings.headers(),
                                       timeout=self.settings.http_timeout(), transport=transport)

    async def __aenter__(self) -> AsyncApprovalClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def ask(self, ask: Ask) -> dict[str, Any]:
        return await self._call("POST", PATH, json=ask.body(self.settings))

    async def wait(self, approval_id: int, timeout_s: float | None = None) -> Approval:
        clock = PollClock(self.settings.poll_s, timeout_s)
        while True:
            found = settled(await self._call("GET", f"{PATH}/{approval_id}", params={"wait": clock.next_wait()}),
                            self.settings)
            if found is not None:
                return found
            clock.check(approval_id)

    async def require(self, ask: Ask, timeout_s: float | None = None) -> Approval:
        data = await self.ask(ask)
        return settled(data, self.settings) or await self.wait(data["id"], timeout_s)

    async def report(self, approval_id: int, *, result: Any = None, error: BaseException | str | None = None) -> None:
        await self._call("POST", f"{PATH}/{approval_id}/result", json=report_body(result, error))

    async def _call(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        with explained_failures(self.settings):
            async for attempt in AsyncRetrying(**retry_policy(self.settings)):
                with attempt:
                    return checked(await self._http.request(method, url, **kwargs))
        raise AssertionError("unreachable: tenacity returns or raises")
