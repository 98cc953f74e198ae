"""Which model an agent talks to: the offline scripted model (default) or any OpenAI-protocol endpoint."""

from __future__ import annotations

from typing import Literal

from autogen_core.models import ChatCompletionClient, ModelInfo
from pydantic import BaseModel, Field

from hitl_dashboard.agents.retrying import RetryingChatCompletionClient
from hitl_dashboard.agents.scripted.model import ScriptedChatCompletionClient
from hitl_dashboard.settings import get_settings

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"

# We cannot know what an arbitrary OpenAI-protocol server supports; tool calls are what the agents need.
GENERIC_MODEL_INFO = ModelInfo(
    vision=False, function_calling=True, json_output=False, family="unknown", structured_output=False
)


class ModelSpec(BaseModel):
    provider: Literal["scripted", "openai"] = "scripted"
    model: str = "scripted"
    base_url: str | None = None
    api_key: str | None = Field(default=None, repr=False)  # never in logs or tracebacks
    timeout_s: float = 60
    max_retries: int = 3  # total attempts per model call, the first one included
    delay_ms: float = 0  # scripted provider only: simulated thinking time
    chunk_delay_ms: float = 0  # scripted provider only: pause between streamed words
    retry_base_delay_s: float = 0.5  # first backoff step; tests make it tiny


def build_model_client(spec: ModelSpec, agent_role: str) -> ChatCompletionClient:
    """A fresh client for one agent. The scripted one needs the role to know what to write."""
    if spec.provider == "scripted":
        return ScriptedChatCompletionClient(agent_role, delay_ms=spec.delay_ms, chunk_delay_ms=spec.chunk_delay_ms)
    return _build_openai_client(spec)


def _build_openai_client(spec: ModelSpec) -> ChatCompletionClient:
    # Imported here so the offline default does not pay for loading the OpenAI SDK.
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    api_key = spec.api_key or get_settings().openai_api_key
    if not api_key:
        if not spec.base_url:
            raise ValueError("the openai provider needs an api_key (or OPENAI_API_KEY) when no base_url is set")
        api_key = "unused"  # local OpenAI-protocol servers usually ignore the key but the SDK requires one
    inner = OpenAIChatCompletionClient(
        model=spec.model,
        base_url=spec.base_url or OPENAI_DEFAULT_BASE_URL,
        api_key=api_key,
        timeout=spec.timeout_s,
        max_retries=0,  # RetryingChatCompletionClient decides about retries
        model_info=GENERIC_MODEL_INFO,
        # stream_options is NOT passed here: 0.7.5 would send it on non-streamed requests too, which
        # OpenAI rejects; the wrapper adds it to streamed requests only.
    )
    return RetryingChatCompletionClient(
        inner,
        endpoint=spec.base_url or OPENAI_DEFAULT_BASE_URL,
        timeout_s=spec.timeout_s,
        max_attempts=spec.max_retries,
        base_delay_s=spec.retry_base_delay_s,
        stream_extra_create_args={"stream_options": {"include_usage": True}},
    )
