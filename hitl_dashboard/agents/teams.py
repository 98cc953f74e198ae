"""Team templates: who is in the team, who produces the reviewed work, which tools they hold."""

from __future__ import annotations

import re
from collections.abc import Sequence

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage
from autogen_agentchat.teams import SelectorGroupChat
from autogen_core.models import ChatCompletionClient

from hitl_dashboard.agents.tool_approval import TOOLS, ApprovalRequiredTool
from hitl_dashboard.domain.policies import planned_task_type
from hitl_dashboard.domain.templates import PRODUCER_BY_TASK_TYPE, TeamTemplate

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


_MENTION = re.compile(r"@(\w+)")


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
