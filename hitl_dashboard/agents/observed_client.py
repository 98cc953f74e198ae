"""Every agent's model client, observed: latency, tokens and errors by model (metrics) and a GenAI
"chat" span per call inside AutoGen's invoke_agent span (observability/genai.py)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, Literal

from autogen_core import CancellationToken
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
)
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel

from hitl_dashboard.agents.delegating_client import DelegatingChatCompletionClient
from hitl_dashboard.observability.genai import ModelCallRecord, model_call


def _fill(record: ModelCallRecord, result: CreateResult) -> None:
    record.input_tokens, record.output_tokens = result.usage.prompt_tokens, result.usage.completion_tokens
    record.finish_reason = str(result.finish_reason)


class ObservedChatCompletionClient(DelegatingChatCompletionClient):
    def __init__(self, inner: ChatCompletionClient, *, model: str, provider: str, agent: str) -> None:
        super().__init__(inner)
        self._model, self._provider, self._agent = model, provider, agent

    @property
    def label(self) -> str:
        """The model's name as messages show it (a model name, or 'scripted')."""
        return self._model

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
        with model_call(self._model, self._provider, self._agent, streaming=False) as record:
            result = await self.inner.create(messages, tools=tools, tool_choice=tool_choice, json_output=json_output,
                                             extra_create_args=extra_create_args,
                                             cancellation_token=cancellation_token)
            _fill(record, result)
            return result

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
        with model_call(self._model, self._provider, self._agent, streaming=True) as record:
            stream = self.inner.create_stream(messages, tools=tools, tool_choice=tool_choice, json_output=json_output,
                                              extra_create_args=extra_create_args,
                                              cancellation_token=cancellation_token)
            try:
                async for item in stream:
                    if isinstance(item, CreateResult):
                        _fill(record, item)
                    yield item
            finally:
                await stream.aclose()


def observed(client: ChatCompletionClient, spec: Any, agent: str) -> ObservedChatCompletionClient:
    """`client` built from `spec` (a ModelSpec) for `agent`, wrapped."""
    model = "scripted" if spec.provider == "scripted" else spec.model
    return ObservedChatCompletionClient(client, model=model, provider=spec.provider, agent=agent)
