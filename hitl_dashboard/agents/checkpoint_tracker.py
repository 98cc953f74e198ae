"""What one agent turn changed in a team's state, read from the live team objects, so that writing a
turn costs the same at turn 100 as at turn 10 (save_state() dumps every message of the conversation,
several times over: the manager's thread, each agent's model context and message buffer).

The lists of the state, and how they change between turns: the manager's thread and each agent's
model context only grow; an agent's buffer grows, and is emptied when the agent speaks. A list whose
first and last known items are still in place was appended to; anything else is stored whole (a
buffer that was emptied and refilled holds only what the turn added). The format is
domain/checkpoints.py's; tests/test_checkpoints.py checks after every turn that the rebuilt state
equals save_state(), which is what would notice AutoGen changing the layout of its state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autogen_agentchat.teams import SelectorGroupChat
from autogen_core import AgentId

from hitl_dashboard.domain.checkpoints import DELTA


def _reader(owner: Any, attribute: str) -> Callable[[], list[Any]]:
    """Reads owner.<attribute> at each call: load_state replaces the list objects."""
    return lambda: getattr(owner, attribute)


@dataclass
class _TrackedList:
    path: list[str]
    read: Callable[[], list]  # the live list (re-read each time: load_state replaces the objects)
    dump: Callable[[Any], dict]
    length: int = 0
    first: Any = None
    last: Any = None

    def mark(self) -> None:
        items = self.read()
        self.length = len(items)
        self.first, self.last = (items[0], items[-1]) if items else (None, None)

    def change(self) -> list | None:
        items = self.read()
        appended = (self.length == 0 or (len(items) >= self.length and items[0] is self.first
                                         and items[self.length - 1] is self.last))
        keep = self.length if appended else 0
        if appended and len(items) == keep:
            return None
        change = [self.path, keep, [self.dump(item) for item in items[keep:]]]
        self.mark()
        return change


class CheckpointTracker:
    """Start it once the team's state is in memory (after load_state, or after the first turn)."""

    def __init__(self, team: SelectorGroupChat):
        self.team = team
        self._lists: list[_TrackedList] = []
        self._manager: Any = None

    async def start(self) -> None:
        team = self.team
        runtime = team._runtime
        self._lists = []
        for name, agent_type in zip(team._participant_names, team._participant_topic_types, strict=True):
            container: Any = await runtime.try_get_underlying_agent_instance(AgentId(agent_type, team._team_id))
            context = container._agent._model_context
            self._lists.append(_TrackedList(["agent_states", name, "agent_state", "llm_context", "messages"],
                                            _reader(context, "_messages"), _dump_model))
            self._lists.append(_TrackedList(["agent_states", name, "message_buffer"],
                                            _reader(container, "_message_buffer"), _dump_message))
        manager_name = team._group_chat_manager_name
        self._manager = await runtime.try_get_underlying_agent_instance(
            AgentId(team._group_chat_manager_topic_type, team._team_id))
        self._lists.append(_TrackedList(["agent_states", manager_name, "message_thread"],
                                        _reader(self._manager, "_message_thread"), _dump_message))
        self._manager_name = manager_name
        for tracked in self._lists:
            tracked.mark()

    def delta(self) -> tuple[str, dict[str, Any]]:
        """(DELTA, the changes since the last call, or since start)."""
        lists = [change for tracked in self._lists if (change := tracked.change()) is not None]
        manager = ["agent_states", self._manager_name]
        values = [[[*manager, "current_turn"], self._manager._current_turn],
                  [[*manager, "previous_speaker"], self._manager._previous_speaker]]
        return DELTA, {"lists": lists, "values": values}


def _dump_message(message: Any) -> dict:
    return message.dump()


def _dump_model(message: Any) -> dict:
    return message.model_dump()
