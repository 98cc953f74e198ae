"""Forks and replays of a conversation, and its place in the fork tree."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from hitl_dashboard.api.schemas.common import AgentName, text_rules


class ForkCreate(BaseModel):
    """Start a new conversation from the team state after `turn`. With instructions, the agents resume
    with them (sent to target_agent, by default the agent producing the work); edited_message replaces
    the agent message of that turn. Reviews and approvals never carry over."""

    model_config = ConfigDict(extra="forbid")
    turn: int = Field(ge=1, le=1_000_000, strict=True)
    instructions: Annotated[str, *text_rules(20_000)] | None = None
    target_agent: AgentName | None = None
    edited_message: Annotated[str, *text_rules(100_000, 1)] | None = None


class ReplayCreate(BaseModel):
    """Run again from the state after `turn` (0: from the start), with the input the next turn had."""

    model_config = ConfigDict(extra="forbid")
    turn: int = Field(ge=0, le=1_000_000, strict=True)


class BranchPublic(BaseModel):
    id: int
    title: str
    origin: str
    turn: int
    status: str


class ForkTreePublic(BaseModel):
    """parent: where this conversation was forked or replayed from (turn: the parent's turn it starts
    after); children: the forks and replays of this one."""

    parent: BranchPublic | None
    children: list[BranchPublic]
