"""A ChatCompletionClient wrapper that retries transient model failures and explains the final one.

Why: the OpenAI SDK's own retries are switched off (``max_retries=0``) so that one place decides what
is retried, waits with jittered exponential backoff, and turns the last failure into a
``ModelCallFailed`` whose message a reviewer can read ("... answered HTTP 500 three times").
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Awaitable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import openai
import pydantic
from autogen_core import CancellationToken
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
)
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from hitl_dashboard.agents.delegating_client import DelegatingChatCompletionClient
from hitl_dashboard.agents.errors import ModelCallFailed

FailureKind = Literal["status", "timeout", "connection", "malformed"]
T = TypeVar("T")


class MalformedReply(Exception):
    """The endpoint answered 200 but the reply carried nothing usable."""


def classify_failure(exc: BaseException) -> FailureKind | None:
    """What kind of model failure ``exc`` is; None for errors that are not the model's (e.g. bad arguments)."""
    # TimeoutError: our own bound on an attempt (attempt_timeout_s), for clients without a timeout.
    if isinstance(exc, (openai.APITimeoutError, TimeoutError)):  # APITimeoutError: before APIConnectionError
        return "timeout"
    if isinstance(exc, openai.APIConnectionError):
        return "connection"
    if isinstance(exc, openai.APIStatusError):
        return "status"
    # What autogen-ext 0.7.5 raises on bodies it cannot use (checked against tests/support/openai_stub.py):
    # non-JSON body -> json.JSONDecodeError, JSON without choices -> TypeError, non-JSON content type ->
    # AttributeError, empty choices -> IndexError. A plain ValueError is autogen rejecting our own arguments.
    malformed = (json.JSONDecodeError, pydantic.ValidationError, openai.APIResponseValidationError, MalformedReply)
    if isinstance(exc, malformed + (TypeError, AttributeError, LookupError)):
        return "malformed"
    return None


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, openai.APIStatusError):  # the "status" kind
        return exc.status_code == 429 or exc.status_code >= 500
    return classify_failure(exc) is not None


_TIMES = {1: "once", 2: "twice", 3: "three times", 4: "four times", 5: "five times"}


def describe_failures(failures: Sequence[BaseException], *, endpoint: str, timeout_s: float) -> str:
    """One plain sentence about why the call failed, from every attempt's exception."""
    n = len(failures)
    attempts = f"{n} attempt" + ("" if n == 1 else "s")
    kinds = {classify_failure(e) for e in failures}
    last = failures[-1]
    if kinds == {"status"}:
        statuses = [e.status_code for e in failures if isinstance(e, openai.APIStatusError)]
        detail = _status_detail(last)
        if not is_retryable(last):
            return f"model endpoint {endpoint} rejected the request with HTTP {statuses[-1]}: {detail}"
        if len(set(statuses)) == 1:
            times = _TIMES.get(n, f"{n} times")
            return f"model endpoint {endpoint} answered HTTP {statuses[0]} {times} ({detail})"
    if kinds == {"timeout"}:
        return f"model call timed out after {float(timeout_s)!r} s ({attempts})"
    if kinds == {"connection"}:
        return f"could not connect to model endpoint {endpoint} ({attempts}): {last}"
    if kinds == {"malformed"}:
        return f"model returned a malformed reply: {_short(last)} ({attempts})"
    return f"model call to {endpoint} failed ({attempts}): " + "; ".join(_short(e) for e in failures)


def _status_detail(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    return str(getattr(exc, "message", exc))


def _short(exc: BaseException) -> str:
    kind = classify_failure(exc)
    if isinstance(exc, openai.APIStatusError):  # the "status" kind
        return f"HTTP {exc.status_code}"
    if kind == "timeout":
        return "timed out"
    if isinstance(exc, json.JSONDecodeError):
        return f"the body is not valid JSON ({exc})"
    if isinstance(exc, (TypeError, AttributeError, LookupError)):
        return f"the reply has no usable choices ({type(exc).__name__}: {exc})"
    return f"{type(exc).__name__}: {exc}"


def _looks_empty(result: CreateResult) -> bool:
    # autogen-ext 0.7.5 turns a streamed body with no SSE events into an empty result with only a warning.
    return result.content == "" and result.finish_reason == "unknown" and result.usage.completion_tokens == 0


class RetryingChatCompletionClient(DelegatingChatCompletionClient):
    """Delegates to ``inner``; retries ``create`` and the opening of ``create_stream``."""

    def __init__(
        self,
        inner: ChatCompletionClient,
        *,
        endpoint: str,
        timeout_s: float,
        max_attempts: int = 3,
        base_delay_s: float = 0.5,
        max_delay_s: float = 8.0,
        stream_extra_create_args: Mapping[str, Any] | None = None,
        attempt_timeout_s: float | None = None,
    ) -> None:
        """attempt_timeout_s: a bound on each attempt (a stream: until its first item), for a client
        whose own timeout we cannot set (any provider a team file names); None: the client's own."""
        super().__init__(inner)
        self._attempt_timeout_s = attempt_timeout_s
        self._endpoint = endpoint
        self._timeout_s = timeout_s
        self._max_attempts = max(1, max_attempts)
        self._base_delay_s = base_delay_s
        self._max_delay_s = max_delay_s
        # e.g. {"stream_options": {"include_usage": True}}: only valid on streamed requests
        self._stream_extra_create_args = dict(stream_extra_create_args or {})

    def _retrying(self) -> AsyncRetrying:
        return AsyncRetrying(
            stop=stop_after_attempt(self._max_attempts),
            wait=wait_exponential_jitter(
                multiplier=self._base_delay_s, max=self._max_delay_s, jitter=self._base_delay_s
            ),
            retry=retry_if_exception(is_retryable),
            reraise=True,
        )

    async def _bounded(self, call: Awaitable[T]) -> T:
        if self._attempt_timeout_s is None:
            return await call
        return await asyncio.wait_for(call, self._attempt_timeout_s)

    def _failed(self, failures: Sequence[BaseException]) -> ModelCallFailed:
        return ModelCallFailed(describe_failures(failures, endpoint=self._endpoint, timeout_s=self._timeout_s))

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> CreateResult:
        failures: list[BaseException] = []
        try:
            async for attempt in self._retrying():
                with attempt:
                    try:
                        return await self._bounded(self.inner.create(
                            messages, tools=tools, tool_choice=tool_choice, json_output=json_output,
                            extra_create_args=extra_create_args, cancellation_token=cancellation_token,
                        ))
                    except Exception as exc:
                        failures.append(exc)
                        raise
        except Exception as exc:
            if classify_failure(exc) is None:
                raise
            raise self._failed(failures) from exc
        raise AssertionError("unreachable: tenacity either returns or re-raises")

    async def create_stream(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> AsyncGenerator[str | CreateResult, None]:
        extra = {**self._stream_extra_create_args, **extra_create_args}
        failures: list[BaseException] = []

        async def open_stream() -> tuple[AsyncGenerator[str | CreateResult, None], str | CreateResult]:
            stream = self.inner.create_stream(
                messages, tools=tools, tool_choice=tool_choice, json_output=json_output,
                extra_create_args=extra, cancellation_token=cancellation_token,
            )
            try:
                first = await self._bounded(anext(stream))
                if isinstance(first, CreateResult) and _looks_empty(first):
                    raise MalformedReply("the stream carried no content")
            except Exception as exc:
                failures.append(exc)
                await stream.aclose()
                raise
            return stream, first

        # Retried only up to the first item: once a chunk reached the caller, a retry would repeat text.
        stream: AsyncGenerator[str | CreateResult, None]
        first: str | CreateResult
        try:
            stream, first = await self._retrying()(open_stream)
        except Exception as exc:
            if classify_failure(exc) is None:
                raise
            raise self._failed(failures) from exc
        try:
            yield first
            async for item in stream:
                yield item
        except Exception as exc:
            if classify_failure(exc) is None:
                raise
            message = f"model reply stream from {self._endpoint} broke off midway: {_short(exc)}"
            raise ModelCallFailed(message) from exc
        finally:
            await stream.aclose()

    # -- token counting that works offline (the rest is delegated as it is) -----------------------
    def count_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        try:
            return self.inner.count_tokens(messages, tools=tools)
        except Exception:  # noqa: BLE001 - see below: any failure falls back to an estimate
            # autogen-ext counts with tiktoken, which downloads its encoding on first use; offline that
            # fails, and a rough estimate is better than crashing a token-limited model context.
            return sum(len(str(getattr(m, "content", ""))) for m in messages) // 4 + 3 * len(messages)

    def remaining_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        try:
            return self.inner.remaining_tokens(messages, tools=tools)
        except Exception:  # noqa: BLE001 - as in count_tokens
            return max(0, 128_000 - self.count_tokens(messages, tools=tools))
