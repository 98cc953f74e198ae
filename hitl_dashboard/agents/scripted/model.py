"""The offline default model: a deterministic ChatCompletionClient that reads the conversation it is given.

Not a replay list: each role (planner, coder, copywriter, operator) writes from the task and reacts to
reviewer instructions found in its LLM context, so the whole review loop can run with no key and no server.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import zlib
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, Literal, Self

from autogen_core import CancellationToken, Component, FunctionCall
from autogen_core.models import (
    AssistantMessage,
    ChatCompletionClient,
    CreateResult,
    FunctionExecutionResultMessage,
    LLMMessage,
    ModelCapabilities,  # deprecated for ModelInfo, but still an abstract property in 0.7.5
    ModelInfo,
    RequestUsage,
    SystemMessage,
    UserMessage,
)
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel

from hitl_dashboard.domain.edits import split_edits
from hitl_dashboard.domain.policies import given_task_type
from hitl_dashboard.domain.revise_message import reviewer_instruction
from hitl_dashboard.domain.text_cuts import cut_visibly

from . import answers, content
from .code import draft_files, parse_blocks, render_blocks
from .follow_review import revise_files
from .human_edits import with_human_edits, with_message_edits

DEPLOY_TOOL = "deploy_to_prod"
Answer = str | list[FunctionCall]
TOKEN_LIMIT = 128_000
SCRIPTED_MODEL_INFO = ModelInfo(
    vision=False, function_calling=True, json_output=False, family="unknown", structured_output=False
)


class ScriptedClientConfig(BaseModel):
    agent_role: str
    delay_ms: float = 0
    chunk_delay_ms: float = 0


def approx_tokens(text: str) -> int:
    return max(1, math.ceil(len(text.split()) * 1.3))


def message_text(message: LLMMessage) -> str:
    if isinstance(message, FunctionExecutionResultMessage):
        return "\n".join(result.content for result in message.content)
    if isinstance(message.content, str):
        return message.content
    parts = [p if isinstance(p, str) else json.dumps({"name": p.name, "arguments": p.arguments})
             for p in message.content if isinstance(p, (str, FunctionCall))]
    return "\n".join(parts)


class ScriptedChatCompletionClient(ChatCompletionClient, Component[ScriptedClientConfig]):
    component_type = "model"
    component_config_schema = ScriptedClientConfig
    component_provider_override = "hitl_dashboard.agents.scripted.model.ScriptedChatCompletionClient"

    def __init__(self, agent_role: str, *, delay_ms: float = 0, chunk_delay_ms: float = 0) -> None:
        self.agent_role = agent_role
        self.delay_ms = delay_ms
        self.chunk_delay_ms = chunk_delay_ms
        self._total_usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
        self._actual_usage = RequestUsage(prompt_tokens=0, completion_tokens=0)

    # -- the model ------------------------------------------------------------------------------------
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
        await self._sleep(self.delay_ms, cancellation_token)
        answer = self._answer(messages, tools)
        output = answer if isinstance(answer, str) else " ".join(c.name + " " + c.arguments for c in answer)
        usage = RequestUsage(
            prompt_tokens=sum(approx_tokens(message_text(m)) for m in messages),
            completion_tokens=approx_tokens(output),
        )
        self._total_usage = _add(self._total_usage, usage)
        self._actual_usage = _add(self._actual_usage, usage)
        finish = "stop" if isinstance(answer, str) else "function_calls"
        return CreateResult(finish_reason=finish, content=answer, usage=usage, cached=False)

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
        result = await self.create(messages, tools=tools, cancellation_token=cancellation_token)
        if isinstance(result.content, str):
            # Split where whitespace ends, so every chunk keeps its trailing whitespace and they join exactly.
            for index, chunk in enumerate(re.split(r"(?<=\s)(?=\S)", result.content)):
                if index:
                    await self._sleep(self.chunk_delay_ms, cancellation_token)
                yield chunk
        yield result

    @staticmethod
    async def _sleep(ms: float, cancellation_token: CancellationToken | None) -> None:
        if cancellation_token is not None and cancellation_token.is_cancelled():
            raise asyncio.CancelledError("model call cancelled")
        if ms <= 0:
            return
        sleeping = asyncio.ensure_future(asyncio.sleep(ms / 1000))
        if cancellation_token is not None:
            cancellation_token.link_future(sleeping)  # a Stop button must not wait for the simulated model
        await sleeping

    def _answer(self, messages: Sequence[LLMMessage], tools: Sequence[Tool | ToolSchema]) -> Answer:
        role = self.agent_role.lower()
        if messages and (reply := answers.answer(role, message_text(messages[-1]))) is not None:
            return reply  # a reviewer's question beside the team (agents/questions.py)
        if role == "planner":
            return self._plan(messages)
        if role == "coder":
            return self._code(messages)
        if role == "copywriter":
            return self._copy(messages)
        if role == "operator":
            return self._operate(messages, tools)
        last = next((message_text(m) for m in reversed(messages) if not isinstance(m, SystemMessage)), "")
        return content.generic_answer(self.agent_role, last)

    def _own_turns(self, messages: Sequence[LLMMessage]) -> list[int]:
        return [i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)]

    def _instructions(self, messages: Sequence[LLMMessage], since: int = -1) -> list[str]:
        """Reviewer instructions for this role that arrived after message index ``since``."""
        found = []
        for message in messages[since + 1 :]:
            if isinstance(message, UserMessage) and isinstance(message.content, str):
                said = split_edits(message.content)[0]  # a diff's "@decorator" is no mention
                instruction = reviewer_instruction(said)
                if instruction and content.addressed_to(said, self.agent_role):
                    found.append(instruction)
        return found

    def _edited_last_turn(self, messages: Sequence[LLMMessage], turns: list[int]) -> str | None:
        """This agent's last message as the reviewers edited it since, else None (none, or no edit)."""
        if not turns:
            return None
        text, edited = with_message_edits(message_text(messages[turns[-1]]), _said_after(messages, turns[-1]))
        return text if edited else None

    def _plan(self, messages: Sequence[LLMMessage]) -> str:
        task, turns = _task(messages), self._own_turns(messages)
        edited = self._edited_last_turn(messages, turns)
        if edited is None:
            return content.plan(task, self._instructions(messages), given=_given_type(messages))
        body = edited.split("\nCONFIDENCE:")[0]
        steps = "".join(f"\n- Address review feedback: {i}" for i in self._instructions(messages, turns[-1]))
        return (f"{body}{steps}\n(Continuing from the reviewer's version of the plan.)\n"
                f"{content.confidence_line(task, len(turns) + 1)}")

    def _code(self, messages: Sequence[LLMMessage]) -> str:
        task = _task(messages)
        own = [(i, parse_blocks(message_text(m))) for i, m in enumerate(messages) if isinstance(m, AssistantMessage)]
        drafts = [(i, files) for i, files in own if files]
        last_index, files = drafts[-1] if drafts else (-1, draft_files(task))
        files, edited = with_human_edits(files, _said_after(messages, last_index))
        instructions = self._instructions(messages, last_index)
        revision = len(drafts) + 1
        if not instructions:
            intro = (f"Implementation of `{files[0].path}` for: {cut_visibly(task.strip(), 160)}" if not drafts
                     else f"Continuing from the reviewer's version of {', '.join(sorted(set(edited)))}."
                     if edited else
                     f"No new review instructions since revision {revision - 1}; the code is unchanged.")
            return f"{intro}\n\n{render_blocks(files)}\n\n{content.confidence_line(task)}\nReady for review."
        files, changes = revise_files(files, instructions)
        summary = "\n".join(f"- {change}" for change in changes)
        return (f"Revision {revision} of `{files[0].path}`, following the review:\n{summary}\n\n"
                f"{render_blocks(files)}\n\n{content.confidence_line(task, revision)}\nReady for review.")

    def _copy(self, messages: Sequence[LLMMessage]) -> str:
        task = _task(messages)
        turns = self._own_turns(messages)
        instructions = self._instructions(messages, turns[-1] if turns else -1)
        if not turns:
            return f"{content.write_copy(task)}\n\n{content.confidence_line(task)}"
        edited = self._edited_last_turn(messages, turns)
        previous = (edited or message_text(messages[turns[-1]])).split("\n\nCONFIDENCE:")[0]
        previous = previous.split("\n\nChanges:")[0]
        changes: list[str] = ["continued from the reviewer's version"] if edited is not None else []
        for instruction in instructions:
            previous, done = content.revise_copy(previous, instruction)
            changes += done
        notes = f"\n\nChanges: {'; '.join(changes)}." if changes else ""
        return f"{previous}{notes}\n\n{content.confidence_line(task, len(turns) + 1)}"

    def _operate(self, messages: Sequence[LLMMessage], tools: Sequence[Tool | ToolSchema]) -> Answer:
        task = _task(messages)
        tool_names = {t.name if isinstance(t, Tool) else t["name"] for t in tools}
        calls = [(i, c) for i, m in enumerate(messages) if isinstance(m, AssistantMessage)
                 and isinstance(m.content, list) for c in m.content if c.name == DEPLOY_TOOL]
        if tools and DEPLOY_TOOL not in tool_names:
            return f"I cannot deploy: no {DEPLOY_TOOL} tool is available to me. DONE"
        if not calls:
            return [self._deploy_call(messages, content.deploy_arguments(task))]
        index, call = calls[-1]
        try:
            requested = json.loads(call.arguments or "{}")
        except ValueError:  # a call written by another (real) model earlier in the conversation
            requested = {}
        # The latest word on this call wins: its tool result, or a reviewer message after it.
        outcome, detail, who = None, "", "the reviewer"
        said: str | None
        for message in messages[index + 1 :]:
            if isinstance(message, FunctionExecutionResultMessage):
                for result in message.content:
                    if result.call_id == call.id or result.name == DEPLOY_TOOL:
                        said = content.deployment_outcome(result.content) or "succeeded"
                        outcome = "failed" if result.is_error else said
                        detail, who = result.content, "the approval gate"
            elif isinstance(message, UserMessage) and isinstance(message.content, str):
                said = content.deployment_outcome(message.content)
                if said == "revise" and not content.addressed_to(message.content, self.agent_role):
                    continue  # a revision for another agent says nothing about this deployment
                if said is not None or outcome is None:
                    outcome, detail, who = said, message.content, message.source
        if outcome == "revise":
            revised = content.deploy_arguments(reviewer_instruction(detail) or "", requested)
            return [self._deploy_call(messages, revised)]
        arguments = content.approved_arguments(detail, requested) if outcome == "succeeded" else requested
        return content.deploy_report(outcome or "none", arguments, detail, who)

    @staticmethod
    def _deploy_call(messages: Sequence[LLMMessage], arguments: dict[str, Any]) -> FunctionCall:
        seed = "".join(message_text(m) for m in messages) + json.dumps(arguments)
        call_id = f"call_{zlib.crc32(seed.encode()):08x}"  # deterministic, and new for new arguments
        return FunctionCall(id=call_id, name=DEPLOY_TOOL, arguments=json.dumps(arguments))

    # -- bookkeeping ----------------------------------------------------------------------------------
    async def close(self) -> None:
        return None

    def actual_usage(self) -> RequestUsage:
        return self._actual_usage

    def total_usage(self) -> RequestUsage:
        return self._total_usage

    def count_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        return sum(approx_tokens(message_text(m)) for m in messages)

    def remaining_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        return max(0, TOKEN_LIMIT - self.count_tokens(messages, tools=tools))

    @property
    def capabilities(self) -> ModelCapabilities:
        return ModelCapabilities(vision=False, function_calling=True, json_output=False)

    @property
    def model_info(self) -> ModelInfo:
        return SCRIPTED_MODEL_INFO

    def _to_config(self) -> ScriptedClientConfig:
        return ScriptedClientConfig(
            agent_role=self.agent_role, delay_ms=self.delay_ms, chunk_delay_ms=self.chunk_delay_ms
        )

    @classmethod
    def _from_config(cls, config: ScriptedClientConfig) -> Self:
        return cls(config.agent_role, delay_ms=config.delay_ms, chunk_delay_ms=config.chunk_delay_ms)


def _task(messages: Sequence[LLMMessage]) -> str:
    """The task is the first user message; everything after it is the conversation about it."""
    first = next((m for m in messages if isinstance(m, UserMessage)), None)
    return message_text(first) if first is not None else ""


def _said_after(messages: Sequence[LLMMessage], index: int) -> list[str]:
    """What people said after message `index` (decisions, and the edits they report)."""
    return [m.content for m in messages[index + 1:] if isinstance(m, UserMessage) and isinstance(m.content, str)]


def _given_type(messages: Sequence[LLMMessage]) -> str | None:
    """The task type the team gave the planner in its system prompt (agents/teams.py), if any."""
    system = next((m for m in messages if isinstance(m, SystemMessage)), None)
    return given_task_type(system.content) if system is not None else None


def _add(a: RequestUsage, b: RequestUsage) -> RequestUsage:
    return RequestUsage(a.prompt_tokens + b.prompt_tokens, a.completion_tokens + b.completion_tokens)
