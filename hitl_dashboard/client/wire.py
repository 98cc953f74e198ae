"""The HTTP side of the client: settings from arguments or the environment, request bodies, answers
turned into results or exceptions, the retry policy. client.py and aclient.py send; an Approval's
report() opens one of them."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
from tenacity import retry_if_exception, stop_after_attempt, wait_exponential_jitter

from hitl_dashboard.client.errors import (
    ApprovalDenied,
    ApprovalError,
    ApprovalTimeout,
    RequestIdConflict,
    RevisionRequested,
)

PATH = "/api/external/approvals"
MAX_RESULT_CHARS = 20_000  # the server's limit on a reported result


@dataclass(frozen=True)
class Settings:
    """base_url: HITL_URL; token: HITL_TOKEN (an API token, scope 'approvals' is enough); team: HITL_TEAM."""

    base_url: str
    token: str
    team: str | None = None
    timeout_s: float = 30.0  # per HTTP request, beyond the long poll's own wait
    poll_s: float = 25.0  # each long poll asks the server to hold the answer this long
    retries: int = 5  # connection errors, 429 and 5xx answers: retried with exponential backoff
    backoff_s: float = 0.5
    max_backoff_s: float = 30.0

    @classmethod
    def resolve(cls, base_url: str | None = None, token: str | None = None, team: str | None = None,
                **options: Any) -> Settings:
        url = base_url or os.environ.get("HITL_URL")
        secret = token or os.environ.get("HITL_TOKEN")
        if not url:
            raise ApprovalError("no server: pass base_url= or set HITL_URL (e.g. https://hitl.example.com)")
        if not secret:
            raise ApprovalError("no token: pass token= or set HITL_TOKEN (python -m hitl_dashboard tokens create "
                                "USER --scope approvals)")
        return cls(url.rstrip("/"), secret, team or os.environ.get("HITL_TEAM"),
                   **{k: v for k, v in options.items() if v is not None})

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "User-Agent": "hitl-dashboard-client"}

    def http_timeout(self) -> httpx.Timeout:
        return httpx.Timeout(self.timeout_s, read=self.timeout_s + self.poll_s)


@dataclass(frozen=True)
class Ask:
    """What to ask: a tool call (tool + arguments, optional JSON schema) or content (+ file name)."""

    title: str
    team: str | None = None
    request_id: str | None = None
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    args_schema: dict[str, Any] | None = None
    content: str | None = None
    file_name: str | None = None
    link: str | None = None
    context: str | None = None
    callback_url: str | None = None
    task_type: str | None = None

    def body(self, settings: Settings) -> dict[str, Any]:
        team = self.team or settings.team
        if not team:
            raise ApprovalError("no team: pass team= or set HITL_TEAM (it decides the reviewers and the SLA)")
        if (self.tool is None) == (self.content is None):
            raise ApprovalError("ask about a tool call (tool=, arguments=) or content (content=, file_name=)")
        body: dict[str, Any] = {"request_id": self.request_id or f"auto-{uuid.uuid4()}", "team": team,
                                "title": self.title}
        if self.tool is not None:
            body["tool_call"] = {"name": self.tool, "arguments": self.arguments or {},
                                 **({"args_schema": self.args_schema} if self.args_schema is not None else {})}
        else:
            body["content"] = {"text": self.content, "file_name": self.file_name or "content.txt"}
        for name in ("link", "context", "callback_url", "task_type"):
            if getattr(self, name) is not None:
                body[name] = getattr(self, name)
        return body


@dataclass(frozen=True)
class Approval:
    """An approved request: `arguments` are what may run (a reviewer may have edited them).
    report() / areport() tell the server what ran (once)."""

    id: int
    request_id: str
    status: str
    arguments: dict[str, Any] | None
    url: str
    callback_secret: str | None
    decided_by: str | None = None
    settings: Settings | None = field(default=None, repr=False, compare=False)

    def report(self, result: Any = None, *, error: BaseException | str | None = None) -> None:
        from hitl_dashboard.client.client import ApprovalClient

        with ApprovalClient.from_settings(self._settings()) as client:
            client.report(self.id, result=result, error=error)

    async def areport(self, result: Any = None, *, error: BaseException | str | None = None) -> None:
        from hitl_dashboard.client.aclient import AsyncApprovalClient

        async with AsyncApprovalClient.from_settings(self._settings()) as client:
            await client.report(self.id, result=result, error=error)

    def _settings(self) -> Settings:
        if self.settings is None:
            raise ApprovalError("this Approval was not made by a client, so it cannot report")
        return self.settings


class ClientBase:
    """What the sync and the async client share: their settings, from arguments or the environment."""

    settings: Settings

    def __init__(self, base_url: str | None = None, token: str | None = None, *, team: str | None = None,
                 timeout_s: float | None = None, poll_s: float | None = None, retries: int | None = None,
                 backoff_s: float | None = None, transport: Any = None):
        self.settings = Settings.resolve(base_url, token, team, timeout_s=timeout_s, poll_s=poll_s,
                                         retries=retries, backoff_s=backoff_s)
        self._open(transport)

    @classmethod
    def from_settings(cls, settings: Settings, transport: Any = None) -> Any:
        client = cls.__new__(cls)
        client.settings = settings
        client._open(transport)
        return client

    def _open(self, transport: Any) -> None:
        raise NotImplementedError


class Retryable(Exception):
    """A 429 or 5xx answer: worth another try after a pause."""

    def __init__(self, response: httpx.Response):
        super().__init__(f"HTTP {response.status_code} from {response.request.url}")
        self.response = response


def retryable(exc: BaseException) -> bool:
    return isinstance(exc, (httpx.TransportError, Retryable))


def checked(response: httpx.Response) -> dict[str, Any]:
    """The JSON body of a success; Retryable for 429/5xx; an ApprovalError that says why otherwise."""
    if response.status_code == 429 or response.status_code >= 500:
        raise Retryable(response)
    if response.is_success:
        data: dict[str, Any] = response.json()
        return data
    try:
        detail = response.json().get("detail")
    except ValueError:
        detail = response.text[:500]
    message = detail if isinstance(detail, str) else "; ".join(
        f"{'.'.join(str(p) for p in d.get('loc', [])[1:])}: {d.get('msg')}" for d in detail or [])
    kind = RequestIdConflict if response.status_code == 409 else ApprovalError
    raise kind(f"HTTP {response.status_code}: {message}", response.status_code)


def settled(data: dict[str, Any], settings: Settings | None = None) -> Approval | None:
    """None while pending; the Approval once approved; raises ApprovalDenied or RevisionRequested."""
    status = data["status"]
    if status == "pending":
        return None
    if status == "denied":
        raise ApprovalDenied(data.get("reason") or "denied", approval_id=data["id"], decided_by=data.get("decided_by"))
    if status == "revise":
        raise RevisionRequested(data.get("instructions") or "", approval_id=data["id"],
                                decided_by=data.get("decided_by"))
    return Approval(id=data["id"], request_id=data["request_id"], status=status, arguments=data.get("arguments"),
                    url=data["url"], callback_secret=data.get("callback_secret"), decided_by=data.get("decided_by"),
                    settings=settings)


def report_body(result: Any = None, error: BaseException | str | None = None) -> dict[str, Any]:
    if error is not None:
        text = f"{type(error).__name__}: {error}" if isinstance(error, BaseException) else str(error)
        return {"ok": False, "result": text[:MAX_RESULT_CHARS]}
    return {"ok": True, "result": ("" if result is None else str(result))[:MAX_RESULT_CHARS]}


def retry_policy(settings: Settings) -> dict[str, Any]:
    """tenacity's arguments: connection errors, 429 and 5xx, retried with exponential backoff and jitter."""
    return {"retry": retry_if_exception(retryable), "reraise": True, "stop": stop_after_attempt(settings.retries + 1),
            "wait": wait_exponential_jitter(multiplier=settings.backoff_s, jitter=settings.backoff_s,
                                            max=settings.max_backoff_s)}


@contextmanager
def explained_failures(settings: Settings) -> Iterator[None]:
    """The last retry's failure, as an ApprovalError that says where and how often it was tried."""
    attempts = settings.retries + 1
    try:
        yield
    except Retryable as exc:
        raise ApprovalError(f"{exc} after {attempts} attempts", exc.response.status_code) from exc
    except httpx.TransportError as exc:
        raise ApprovalError(f"cannot reach {settings.base_url} after {attempts} attempts: "
                            f"{type(exc).__name__}: {exc}") from exc


class PollClock:
    """How long each long poll asks the server to hold, within the caller's own timeout (None: none)."""

    def __init__(self, poll_s: float, timeout_s: float | None):
        self.poll_s, self.timeout_s, self.started = poll_s, timeout_s, time.monotonic()

    def next_wait(self) -> float:
        if self.timeout_s is None:
            return self.poll_s
        return max(0.0, min(self.poll_s, self.timeout_s - (time.monotonic() - self.started)))

    def check(self, approval_id: int) -> None:
        """After a pending answer: ApprovalTimeout once the caller's timeout has run out."""
        waited = time.monotonic() - self.started
        if self.timeout_s is not None and waited >= self.timeout_s:
            raise ApprovalTimeout(approval_id, waited)
