"""A ChatCompletionClient around another one: everything but the calls themselves goes to `inner`.
The retrying and the observed clients each wrap the calls and inherit the rest from here."""

from __future__ import annotations

from collections.abc import Sequence

from autogen_core.models import (
    ChatCompletionClient,
    LLMMessage,
    ModelCapabilities,  # deprecated for ModelInfo, but still an abstract property in 0.7.5
    ModelInfo,
    RequestUsage,
)
from autogen_core.tools import Tool, ToolSchema


class DelegatingChatCompletionClient(ChatCompletionClient):
    """Subclasses implement create and create_stream."""

    def __init__(self, inner: ChatCompletionClient) -> None:
        self.inner = inner

    async def close(self) -> None:
        await self.inner.close()

    def actual_usage(self) -> RequestUsage:
        return self.inner.actual_usage()

    def total_usage(self) -> RequestUsage:
        return self.inner.total_usage()

    def count_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        return self.inner.count_tokens(messages, tools=tools)

    def remaining_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        return self.inner.remaining_tokens(messages, tools=tools)

    @property
    def capabilities(self) -> ModelCapabilities:
        return self.inner.capabilities

    @property
    def model_info(self) -> ModelInfo:
        return self.inner.model_info
