"""Build the AutoGen team of a team definition (hitl_dashboard/teams): its agents with their
prompts and tools, and its speaker order. No team knowledge here: it is all in the definition."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import ChatAgent, Team
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage
from autogen_agentchat.teams import SelectorGroupChat
from autogen_core.models import ChatCompletionClient

from hitl_dashboard.agents.tool_approval import agent_tool
from hitl_dashboard.domain.policies import given_task_type_line, planned_task_type
from hitl_dashboard.teams.model import TeamDefinition

_MENTION = re.compile(r"@(\w+)")
Selector = Callable[[Sequence[BaseAgentEvent | BaseChatMessage]], str | None]


def make_selector(team: TeamDefinition, task_type: str) -> Selector:
    """Deterministic speaker choice (no model call spent on it) except for model_selected.
    In every mode a reviewer's '@agent' sends the next turn to that agent."""
    agents = team.agent_names
    order = team.speaker_order

    def mentioned(thread: Sequence[BaseAgentEvent | BaseChatMessage]) -> str | None:
        last = thread[-1]
        if last.source in agents:
            return None
        found = [m for m in _MENTION.findall(_text(last)) if m in agents]
        return found[0] if found else None

    def planner_then_producer(thread: Sequence[BaseAgentEvent | BaseChatMessage]) -> str | None:
        route = task_type
        for message in thread:
            if getattr(message, "source", None) == order.planner:
                planned = planned_task_type(_text(message))
                route = team.fixed_task_type or (planned if planned and team.serves(planned) else task_type)
                break
        producer = team.producer(route)
        if thread[-1].source not in agents:
            spoke = any(getattr(m, "source", None) in agents for m in thread)
            return mentioned(thread) or (producer if spoke else order.planner)
        return producer

    def round_robin(thread: Sequence[BaseAgentEvent | BaseChatMessage]) -> str:
        last_agent = next((m.source for m in reversed(thread) if getattr(m, "source", None) in agents), None)
        following = agents[(agents.index(last_agent) + 1) % len(agents)] if last_agent else agents[0]
        return mentioned(thread) or following

    if order.mode == "round_robin":
        return round_robin
    if order.mode == "model_selected":
        return mentioned  # None: SelectorGroupChat asks the selector model
    return planner_then_producer


def _text(message: BaseAgentEvent | BaseChatMessage) -> str:
    return message.to_text() if hasattr(message, "to_text") else str(getattr(message, "content", ""))


def planner_prompt_tail(team: TeamDefinition, agent: str) -> str:
    """A team that does one task type tells its planner which: the plan's TASK TYPE line then names
    the type the conversation was started with (a team serving several lets its planner choose)."""
    if agent != team.speaker_order.planner or team.fixed_task_type is None:
        return ""
    return "\n" + given_task_type_line(team.fixed_task_type)


def build_team(
    team: TeamDefinition,
    task_type: str,
    clients: Mapping[str, ChatCompletionClient],
    selector_client: ChatCompletionClient,
    *,
    stream: bool = True,
) -> SelectorGroupChat:
    """Fresh agent objects for every team: a shared agent leaks text between conversations.
    Always a SelectorGroupChat, whatever the speaker order, so a saved state loads into any rebuild."""
    participants: list[ChatAgent | Team] = [
        AssistantAgent(
            agent.name,
            model_client=clients[agent.name],
            system_message=agent.system_prompt + planner_prompt_tail(team, agent.name),
            tools=[agent_tool(team, name) for name in agent.tools] or None,
            model_client_stream=stream,
            description=agent.description,
        )
        for agent in team.agents
    ]
    return SelectorGroupChat(
        participants,
        model_client=selector_client,
        max_turns=1,  # stop after every agent turn: that is where we checkpoint
        selector_func=make_selector(team, task_type),
        allow_repeated_speaker=True,
    )
