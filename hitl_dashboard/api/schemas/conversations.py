"""Conversations: start one, list them, read one with its sign-off progress and open reviews."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from hitl_dashboard.api.schemas.common import AgentName, text_rules
from hitl_dashboard.api.schemas.findings import RevisionAnalysisPublic
from hitl_dashboard.api.schemas.reviews import ReviewPublic

# Teams are data (docs/teams.md): which agents and teams exist is checked by the service (422).
TeamNameIn = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_-]{0,39}$")]
ToolNameIn = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]
TaskTypeIn = Literal["code", "copy", "ops", "auto"]


class GatePolicyCreate(BaseModel):
    """When a human must look. Omitted fields keep the template's defaults."""

    model_config = ConfigDict(extra="forbid")
    mode: Literal["after_agent", "on_done", "never"] = "after_agent"
    agents: list[AgentName] = Field(default_factory=list, max_length=32)
    keywords: list[Annotated[str, *text_rules(100, 1)]] = Field(default_factory=list, max_length=20)
    regex: Annotated[str, *text_rules(200)] | None = None
    min_confidence: float | None = Field(default=None, ge=0, le=1, strict=True)
    tools: list[ToolNameIn] = Field(default_factory=list, max_length=10)
    max_turns_without_review: int = Field(default=12, ge=1, le=1000, strict=True)
    min_finding_severity: Literal["low", "medium", "high"] | None = None  # findings gate (docs/findings.md)


class ModelRouteCreate(BaseModel):
    """Which model one agent uses. No base_url here: the server's API key must not be sent
    to an address a caller chooses (operators set endpoints in the server's settings)."""

    model_config = ConfigDict(extra="forbid")
    provider: Literal["scripted", "openai"] = "scripted"
    model: Annotated[str, *text_rules(100, 1)] | None = None
    timeout_s: float | None = Field(default=None, gt=0, le=600, strict=True)
    max_retries: int | None = Field(default=None, ge=1, le=10, strict=True)
    delay_ms: float | None = Field(default=None, ge=0, le=60_000, strict=True)


class ConversationCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task: Annotated[str, *text_rules(20_000, 1)]
    task_type: TaskTypeIn = "code"
    title: Annotated[str, *text_rules(200)] | None = None
    template: TeamNameIn | None = Field(default=None, description="a team of GET /api/teams; default: the "
                                                                  "team named like the task type")
    gate_policy: GatePolicyCreate | None = None
    model_routing: dict[AgentName, ModelRouteCreate] = Field(default_factory=dict, max_length=32)
    on_overdue: Literal["escalate", "abort"] = "escalate"


class AbortCreate(BaseModel):
    """Why an admin stops the conversation; recorded in the audit trail and shown as its status reason."""

    model_config = ConfigDict(extra="forbid")
    reason: Annotated[str, *text_rules(2_000, 1)]


class ConversationSummaryPublic(BaseModel):
    id: int
    title: str
    task_type: str
    status: str
    status_reason: str | None
    tokens: int
    created_at: datetime
    initiator: str


class SignOffStepPublic(BaseModel):
    role: str
    approved: bool


class RevisionPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    key: str
    number: int
    language: str
    content_hash: str
    message_id: int
    created_at: datetime
    author_id: int | None = Field(default=None, description="the reviewer who wrote this version (approve with "
                                                            "my changes); null: an agent proposed it")
    analysis: RevisionAnalysisPublic | None = Field(
        default=None, description="in a conversation's payload: the static analysis of this revision")


class SuggestionPublic(BaseModel):
    """A suggested change a reviewer sent with a revise, and whether the next revision took it."""

    decision_id: int
    reviewer: str
    key: str
    line: int
    end_line: int
    lines: list[str] = Field(description="the exact replacement lines ([] deletes the lines)")
    text: str
    revision: int = Field(description="the file's revision number the line numbers refer to")
    next_revision: int | None = Field(description="the revision it was judged on; null while waiting or if gone")
    state: Literal["applied", "applied with changes", "not applied", "file gone", "waiting for the next revision"]
    detail: str
    applied_at_line: int | None = Field(description="where the next revision has the suggested lines")


class RevisionWithContentPublic(RevisionPublic):
    content: str


class ConversationPublic(BaseModel):
    id: int
    title: str
    task: str
    task_type: str
    template: str
    team_version: int | None = Field(default=None, description="The version of the team (template) it runs on, "
                                                               "to its end; null for one started before versions")
    status: str
    status_reason: str | None
    initiator_id: int
    on_overdue: str
    gate_policy: dict[str, Any]
    prompt_tokens: int
    completion_tokens: int
    created_at: datetime
    updated_at: datetime
    turns: int = 0  # agent turns stored so far
    # A fork or replay: the conversation and turn it started from (origin: fork | replay).
    parent_id: int | None = None
    parent_turn: int | None = None
    origin: str | None = None
    signoff: list[SignOffStepPublic]
    open_reviews: list[ReviewPublic]
    revisions: list[RevisionPublic]
    suggestions: list[SuggestionPublic] = Field(default_factory=list)


class MessagePublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    seq: int
    source: str
    kind: str
    content: str
    prompt_tokens: int
    completion_tokens: int
    created_at: datetime
    model: str | None = Field(default=None, description="The model that wrote it; null for people and tool results")


class TranscriptPage(BaseModel):
    items: list[MessagePublic]
    next_after_seq: int | None = Field(description="Pass as after_seq for the next page; null at the end")


class RevisionDiffPublic(BaseModel):
    before: RevisionWithContentPublic
    after: RevisionWithContentPublic
    unified_diff: str
