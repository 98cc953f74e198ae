"""Which model an agent talks to: the offline scripted model (default) or any OpenAI-protocol endpoint."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal

from autogen_core.models import ChatCompletionClient, ModelInfo
from pydantic import BaseModel, Field

from hitl_dashboard.agents.retrying import RetryingChatCompletionClient
from hitl_dashboard.agents.scripted.model import ScriptedChatCompletionClient
from hitl_dashboard.domain.text_cuts import cut_visibly
from hitl_dashboard.settings import get_settings
from hitl_dashboard.teams.model import SCRIPTED, ModelDef, TeamDefinition
from hitl_dashboard.teams.providers import NO_KEY, is_openai_sdk

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
NO_KEY_PLACEHOLDER = "unused"  # local OpenAI-protocol servers ignore the key, but the SDK requires one

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
        api_key = NO_KEY_PLACEHOLDER
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


def build_declared_client(model: ModelDef, agent_role: str, defaults: ModelSpec) -> tuple[ChatCompletionClient, str]:
    """A client for a model a team file declares (not the server's): (client, model label).
    The key is read from the environment variable the file names, at the last moment, and never
    appears in an error message. Like the server's own model, it is wrapped in our retries with the
    server's timeout (MODEL_TIMEOUT_S, MODEL_MAX_RETRIES, MODEL_RETRY_BASE_S: `defaults`), so an
    endpoint that hangs or answers garbage fails the conversation, retryably, instead of the runner."""
    if model.provider == SCRIPTED:
        # `plays`: the built-in role whose script an agent of another name follows (planner, coder,
        # copywriter, operator); by default the agent's own name.
        agent_role = str(model.config.get("plays", agent_role))
        client: ChatCompletionClient = ScriptedChatCompletionClient(
            agent_role, delay_ms=model.config.get("delay_ms", defaults.delay_ms),
            chunk_delay_ms=model.config.get("chunk_delay_ms", defaults.chunk_delay_ms))
        return client, "scripted"
    config = dict(model.config)
    openai_sdk = is_openai_sdk(model.provider)
    if openai_sdk:
        # The file's own timeout wins; retries are ours (below), not the SDK's on top of them.
        config.setdefault("timeout", defaults.timeout_s)
        config.setdefault("max_retries", 0)
        if config.get("api_key") == NO_KEY and not model.api_key_env:
            # "This server takes no key" (teams/providers.py): the SDK refuses an empty key, and
            # without one it would read OPENAI_API_KEY; a placeholder is neither.
            config["api_key"] = NO_KEY_PLACEHOLDER
    key = None
    if model.api_key_env:
        key = os.environ.get(model.api_key_env)
        if not key:
            raise ValueError(f"the model {model.provider} needs the environment variable {model.api_key_env}")
        config["api_key"] = key
    try:
        client = ChatCompletionClient.load_component({"provider": model.provider, "config": config})
    except Exception as exc:  # noqa: BLE001 - any load failure is a configuration problem of this team
        text = f"{type(exc).__name__}: {exc}"
        raise ValueError(cut_visibly(f"cannot load the model {model.provider}: "
                                     f"{text.replace(key, '***') if key else text}", 500)) from None
    timeout_s = _seconds(config.get("timeout"), defaults.timeout_s)
    retrying = RetryingChatCompletionClient(
        client,
        endpoint=_endpoint(model, openai_sdk),
        timeout_s=timeout_s,
        max_attempts=defaults.max_retries,
        base_delay_s=defaults.retry_base_delay_s,
        # Any provider: a bound of our own on each attempt, whatever timeout its client has (or lacks).
        attempt_timeout_s=timeout_s,
        stream_extra_create_args={"stream_options": {"include_usage": True}} if openai_sdk else None,
    )
    return retrying, str(model.config.get("model") or model.provider.rsplit(".", 1)[-1])


def _seconds(value: object, default: float) -> float:
    try:
        # Whatever the team file holds: float() refuses what is not a number, caught below.
        return float(value) if value else default  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


def _endpoint(model: ModelDef, openai_sdk: bool) -> str:
    """Where the model is, for error messages (never with the key: the file holds none)."""
    where = model.config.get("base_url") or model.config.get("azure_endpoint") or model.config.get("host")
    return str(where or (OPENAI_DEFAULT_BASE_URL if openai_sdk else model.provider))


def model_specs(agents: tuple[str, ...], routing: dict[str, Any], defaults: ModelSpec) -> dict[str, ModelSpec]:
    """routing: {"coder": {"provider": "openai", "model": "gpt-4o"}, ...}; others use the defaults."""
    return {name: defaults.model_copy(update=routing.get(name) or {}) for name in agents}


# Runs nobody watches (the demo seed before the server starts) need no readable pace: inside
# `full_speed()` the scripted model streams with no pause between words, whatever the setting.
_FULL_SPEED: ContextVar[bool] = ContextVar("scripted_full_speed", default=False)


@contextmanager
def full_speed() -> Iterator[None]:
    token = _FULL_SPEED.set(True)
    try:
        yield
    finally:
        _FULL_SPEED.reset(token)


def default_model_spec() -> ModelSpec:
    """The configured endpoint travels with every spec, so a conversation that routes one agent
    to "openai" (while the default is scripted) reaches the operator's endpoint, never another."""
    s = get_settings()
    return ModelSpec(
        provider="openai" if s.model_provider == "openai" else "scripted",
        model=s.openai_model,  # unused by the scripted model
        base_url=s.openai_base_url, api_key=s.openai_api_key, timeout_s=s.model_timeout_s,
        max_retries=s.model_max_retries, retry_base_delay_s=s.model_retry_base_s,
        delay_ms=s.scripted_delay_ms, chunk_delay_ms=0.0 if _FULL_SPEED.get() else s.scripted_chunk_delay_ms,
    )


def agent_model_specs(team: TeamDefinition, routing: dict) -> dict[str, ModelSpec]:
    """Each agent's server-model spec with the conversation's routing: what its turns and its
    answers to reviewers' questions (services/questions/answering.py) are built from."""
    return model_specs(team.agent_names, routing, default_model_spec())
