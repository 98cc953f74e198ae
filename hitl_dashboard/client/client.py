"""The synchronous client: ask, wait (long polls that pick up where they were after a dropped
connection), report. Connection errors, 429 and 5xx answers are retried with exponential backoff
(tenacity); asking again is safe, since the server keys every request on its request_id."""

from __future__ import annotations

from typing import Any

import httpx
from tenacity import Retrying

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


class ApprovalClient(ClientBase):
    """Blocking calls. ApprovalClient(base_url=None, token=None, *, team=None, timeout_s=None, poll_s=None,
    retries=None, backoff_s=None, transport=None): what is not given comes from HITL_URL, HITL_TOKEN,
    HITL_TEAM, or the defaults of wire.Settings."""

    def _open(self, transport: httpx.BaseTransport | None) -> None:
        self._http = httpx.Client(base_url=self.settings.base_url, headers=self.settings.headers(),
                                  timeout=self.settings.http_timeout(), transport=transport)

    def __enter__(self) -> ApprovalClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def ask(self, ask: Ask) -> dict[str, Any]:
        """The review for this request (a new one, or the one this request_id already has)."""
        return self._call("POST", PATH, json=ask.body(self.settings))

    def wait(self, approval_id: int, timeout_s: float | None = None) -> Approval:
        """Until decided: the Approval, or ApprovalDenied / RevisionRequested; ApprovalTimeout once
        `timeout_s` (None: no limit) has passed with it still pending."""
        clock = PollClock(self.settings.poll_s, timeout_s)
        while True:
            found = settled(self._call("GET", f"{PATH}/{approval_id}", params={"wait": clock.next_wait()}),
                            self.settings)
            if found is not None:
                return found
            clock.check(approval_id)

    def require(self, ask: Ask, timeout_s: float | None = None) -> Approval:
        data = self.ask(ask)
        return settled(data, self.settings) or self.wait(data["id"], timeout_s)

    def report(self, approval_id: int, *, result: Any = None, error: BaseException | str | None = None) -> None:
        """What ran: the result, or the error. It shows in the conversation and the audit trail."""
        self._call("POST", f"{PATH}/{approval_id}/result", json=report_body(result, error))

    def _call(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        with explained_failures(self.settings):
            for attempt in Retrying(**retry_policy(self.settings)):
                with attempt:
                    return checked(self._http.request(method, url, **kwargs))
        raise AssertionError("unreachable: tenacity returns or raises")
