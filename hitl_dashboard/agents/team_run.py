"""Run a team one agent turn at a time and hand back plain data (no AutoGen types leak out)."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from autogen_agentchat.base import TaskResult
from autogen_agentchat.messages import (
    ModelClientStreamingChunkEvent,
    TextMessage,
    ToolCallExecutionEvent,
    ToolCallRequestEvent,
)

from hitl_dashboard.agents.checkpoint_tracker import CheckpointTracker
from hitl_dashboard.agents.model_clients import ModelSpec, build_declared_client, build_model_client
from hitl_dashboard.agents.observed_client import ObservedChatCompletionClient, observed
from hitl_dashboard.agents.teams import build_team
from hitl_dashboard.agents.tool_approval import PENDING_MARKER
from hitl_dashboard.agents.turn_tracing import traced_turn
from hitl_dashboard.domain.bounded_input import load_json
from hitl_dashboard.domain.checkpoints import FULL
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.teams.model import SERVER, TeamDefinition

ChunkCallback = Callable[[str, str, str], Awaitable[None]]  # (source, message_id, text)


class TurnFailed(Exception):
    """The team could not finish a turn (model down, garbage reply...). Message is user-facing."""


@dataclass(frozen=True)
class ToolIntent:
    call_id: str
    name: str
    arguments: dict[str, Any]


@dataclass
class ProducedMessage:
    source: str
    kind: str  # text | tool_call | tool_result
    content: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tool_calls: list[ToolIntent] = field(default_factory=list)
    # A tool result that only says "waiting for approval": the real result is written to the
    # transcript when the approved call runs, so this placeholder is never shown as final.
    awaiting_approval: bool = False
    model: str = ""  # the label of the model that wrote it ("" for a tool result)


@dataclass
class TurnResult:
    messages: list[ProducedMessage]
    # What to store for this turn: (FULL, the whole state) or (DELTA, what the turn changed);
    # see domain/checkpoints.py.
    checkpoint_kind: str
    checkpoint: dict[str, Any]
    stop_reason: str | None
    task: dict[str, str] | None = None  # the message the turn started with


class TeamRun:
    """One run of a conversation's AutoGen team: a fresh team, optionally restored from a checkpoint,
    run one agent turn at a time."""

    def __init__(self, team: TeamDefinition, task_type: str, specs: dict[str, ModelSpec], *, stream: bool = True):
        """team: the version the conversation runs on (services/teams/versions.pinned)."""
        self.template = team
        self._clients: dict[str, ObservedChatCompletionClient] = {}
        for agent in self.template.agents:
            self._clients[agent.name] = agent_client(self.template, agent.name, specs[agent.name])
        clients = self._clients
        selector = clients[self.template.speaker_order.planner or self.template.agent_names[0]]
        self.team = build_team(self.template, task_type, clients, selector, stream=stream)
        self._tracker = CheckpointTracker(self.team)
        self._tracking = False

    async def restore(self, state: dict[str, Any] | None) -> None:
        if state:
            await self.team.load_state(state)
            await self._tracker.start()
            self._tracking = True

    @traced_turn
    async def run_turn(self, task: dict[str, str] | None, on_chunk: ChunkCallback | None = None) -> TurnResult:
        """task: {"source": ..., "content": ...} to resume with, or None to continue."""
        message = TextMessage(source=task["source"], content=task["content"]) if task else None
        produced: list[ProducedMessage] = []
        stop_reason = None
        try:
            async for item in self.team.run_stream(task=message):
                if isinstance(item, TaskResult):
                    stop_reason = item.stop_reason
                elif isinstance(item, ModelClientStreamingChunkEvent):
                    if on_chunk is not None:
                        await on_chunk(item.source, item.full_message_id or item.id, item.content)
                elif item.source in self.template.agent_names:
                    converted = _convert(item)
                    if converted is not None:
                        if converted.kind != "tool_result":
                            converted.model = self._clients[item.source].label
                        produced.append(converted)
        except Exception as exc:  # noqa: BLE001 - any failure ends the turn; the caller records why
            raise TurnFailed(_describe(exc)) from exc
        # Only after the TaskResult is the state consistent (see shared notes).
        if self._tracking:
            kind, checkpoint = self._tracker.delta()
        else:  # the first turn of a new team: its whole state is one turn's worth
            kind, checkpoint = FULL, dict(await self.team.save_state())
            await self._tracker.start()
            self._tracking = True
        return TurnResult(produced, kind, checkpoint, stop_reason, task)

    async def save_state(self) -> dict[str, Any]:
        return dict(await self.team.save_state())  # a dict already; typed Mapping by autogen

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()


def agent_client(team: TeamDefinition, agent: str, spec: ModelSpec) -> ObservedChatCompletionClient:
    """Agents on the `server` model use the server's model (with the conversation's routing);
    the others the model their team file declares. The one choice of a client for an agent: its
    turns and its answers to reviewers' questions (agents/questions.py) both come from here."""
    model = team.models[team.agent(agent).model]
    if model.provider == SERVER:
        return observed(build_model_client(spec, agent), spec, agent)
    client, label = build_declared_client(model, agent, spec)
    provider = "scripted" if model.provider == "scripted" else model.provider.rsplit(".", 1)[-1]
    return ObservedChatCompletionClient(client, model=label, provider=provider, agent=agent)


def _usage(item: Any) -> tuple[int, int]:
    usage = getattr(item, "models_usage", None)
    return (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)


def _convert(item: Any) -> ProducedMessage | None:
    prompt, completion = _usage(item)
    if isinstance(item, TextMessage):
        return ProducedMessage(item.source, "text", item.content, prompt, completion)
    if isinstance(item, ToolCallRequestEvent):
        intents = [ToolIntent(c.id, c.name, _parse_args(c.arguments)) for c in item.content]
        body = "\n".join(f"{i.name}({json.dumps(i.arguments, sort_keys=True)})" for i in intents)
        return ProducedMessage(item.source, "tool_call", body, prompt, completion, intents)
    if isinstance(item, ToolCallExecutionEvent):
        body = "\n".join(f"{r.name}: {r.content}" for r in item.content)
        waiting = all(r.content.startswith(PENDING_MARKER) for r in item.content)
        return ProducedMessage(item.source, "tool_result", body, awaiting_approval=waiting)
    return None  # summaries, thoughts and team events repeat what is already recorded


def _parse_args(raw: str) -> dict[str, Any]:
    # A model's arguments are outside input: unreadable or past a bound, they are kept as text, which
    # no tool schema accepts, so the reviewer sees them and nothing runs with a guess.
    try:
        value = load_json(raw if isinstance(raw, str) else b"", "the arguments")
    except InvalidInput:
        return {"_unparsed": str(raw)}
    return value if isinstance(value, dict) else {"_value": value}


_ERROR_LINE = re.compile(r"^(?:[\w.]+\.)?(\w+(?:Error|Exception|Failed)): (.+)$", re.MULTILINE)


def _describe(exc: BaseException) -> str:
    """A message a person can act on. AutoGen re-raises agent errors as RuntimeError carrying
    the whole traceback as text; the last 'SomeError: message' line in it is the real cause."""
    seen = exc
    while seen.__cause__ is not None:
        seen = seen.__cause__
    text = str(seen) or type(seen).__name__
    if "Traceback (most recent call last)" in text:
        lines = _ERROR_LINE.findall(text)
        if lines:
            name, message = lines[-1]
            return message if name == "ModelCallFailed" else f"{name}: {message}"
    return text
