"""Team templates: who is in the team, who produces the reviewed work, which tools they hold."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage
from autogen_agentchat.teams import SelectorGroupChat
from autogen_core.models import ChatCompletionClient

from hitl_dashboard.agents.tools import TOOLS, ApprovalRequiredTool
from hitl_dashboard.domain.policies import GatePolicy, RISK_KEYWORDS

PRODUCER_BY_TASK_TYPE = {"code": "coder", "copy": "copywriter", "ops": "operator"}

SYSTEM_PROMPTS = {
    "planner": (
        "You are the planner. Start with a line 'TASK TYPE: code|copy|ops', then a short numbered plan. "
        "End with 'CONFIDENCE: <0..1>'."
    ),
    "coder": (
        "You are the coder. Propose complete files in fenced code blocks whose first line is "
        "'# file: <path>'. Follow reviewer instructions exactly. End with 'CONFIDENCE: <0..1>' and "
        "'Ready for review.'"
    ),
    "copywriter": (
        "You are the copywriter. Write the requested copy in markdown. Follow reviewer instructions. "
        "End with 'CONFIDENCE: <0..1>' and 'Ready for review.'"
    ),
    "operator": (
        "You are the operator. Use the deploy_to_prod tool for deployments; it needs human approval. "
        "After it ran or was denied, report the outcome and say DONE."
    ),
}


@dataclass(frozen=True)
class TeamTemplate:
    name: str
    agents: tuple[str, ...]
    fixed_task_type: str | None  # None: follow the planner's "TASK TYPE:" line

    def default_policy(self, task_type: str) -> GatePolicy:
        producer = PRODUCER_BY_TASK_TYPE[task_type]
        return GatePolicy(mode="after_agent", agents=(producer,), keywords=RISK_KEYWORDS[:3])


TEMPLATES: dict[str, TeamTemplate] = {
    "code": TeamTemplate("code", ("planner", "coder"), "code"),
    "copy": TeamTemplate("copy", ("planner", "copywriter"), "copy"),
    "ops": TeamTemplate("ops", ("planner", "operator"), "ops"),
    # One team that can do all three; the planner's first message decides the route.
    "auto": TeamTemplate("auto", ("planner", "coder", "copywriter", "operator"), None),
}

_TASK_TYPE_LINE = re.compile(r"TASK TYPE:\s*(code|copy|ops)\b", re.IGNORECASE)
_MENTION = re.compile(r"@(\w+)")


def planned_task_type(text: str) -> str | None:
    found = _TASK_TYPE_LINE.search(text)
    return found.group(1).lower() if found else None


def make_selector(template: TeamTemplate, task_type: str, agents: tuple[str, ...]):
    """Deterministic speaker choice, so no model call is spent on selection.
    A reviewer's '@agent' sends the next turn to that agent."""

    def select(thread: Sequence[BaseAgentEvent | BaseChatMessage]) -> str:
        route = task_type
        for message in thread:
            if getattr(message, "source", None) == "planner":
                route = (template.fixed_task_type or planned_task_type(_text(message)) or task_type)
                break
        producer = PRODUCER_BY_TASK_TYPE[route]
        last = thread[-1]
        if last.source not in agents:
            mentioned = [m for m in _MENTION.findall(_text(last)) if m in agents]
            if mentioned:
                return mentioned[0]
            spoke = any(getattr(m, "source", None) in agents for m in thread)
            return producer if spoke else "planner"
        return producer

    return select


def _text(message: BaseAgentEvent | BaseChatMessage) -> str:
    return message.to_text() if hasattr(message, "to_text") else str(getattr(message, "content", ""))


def build_team(
    template: TeamTemplate,
    task_type: str,
    clients: dict[str, ChatCompletionClient],
    selector_client: ChatCompletionClient,
    *,
    stream: bool = True,
) -> SelectorGroupChat:
    """Fresh agent objects for every team: a shared agent leaks text between conversations."""
    participants = []
    for name in template.agents:
        tools = [ApprovalRequiredTool(TOOLS["deploy_to_prod"])] if name == "operator" else []
        participants.append(
            AssistantAgent(
                name,
                model_client=clients[name],
                system_message=SYSTEM_PROMPTS[name],
                tools=tools or None,
                model_client_stream=stream,
                description=SYSTEM_PROMPTS[name].split(".")[0],
            )
        )
    return SelectorGroupChat(
        participants,
        model_client=selector_client,
        max_turns=1,  # stop after every agent turn: that is where we checkpoint
        selector_func=make_selector(template, task_type, template.agents),
        allow_repeated_speaker=True,
    )
