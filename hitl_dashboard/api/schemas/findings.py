"""Reviewer aids (issue 14): static-analysis findings of a code revision, questions to the agent."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from hitl_dashboard.api.schemas.common import text_rules


class FindingPublic(BaseModel):
    analyser: Literal["bandit", "ruff"]
    rule: str
    severity: Literal["low", "medium", "high"]
    line: int
    column: int
    message: str  # about agent-written code: render it as text


class RevisionFindingsPublic(BaseModel):
    revision_id: int
    file: str
    number: int
    content_hash: str
    status: Literal["pending", "running", "analysed", "not_analysed"]
    reason: str | None  # why not analysed (timeout, too large, not Python)
    findings: list[FindingPublic]


class NotAnalysedFilePublic(BaseModel):
    file: str
    reason: str


class ReviewFindingsPublic(BaseModel):
    """What the analysers say about a code review's files (the queue page's flag)."""

    status: Literal["analysed", "not_analysed", "pending"] = Field(
        description="not_analysed: at least one file could not be analysed (never read it as no findings)")
    flag: str = Field(description="what the queue page shows: '1 high finding', 'not analysed: why', ''")
    counts: dict[Literal["low", "medium", "high"], int]
    not_analysed: list[NotAnalysedFilePublic]
    pending: list[str]


class RevisionAnalysisPublic(BaseModel):
    status: Literal["pending", "running", "analysed", "not_analysed"]
    reason: str | None = Field(description="why not analysed: a parse error, a failure, a timeout, too large")
    counts: dict[Literal["low", "medium", "high"], int]


class QuestionCreate(BaseModel):
    """A question to the agent that produced the work under review; key and line for a line of the diff."""

    model_config = ConfigDict(extra="forbid")
    question: Annotated[str, *text_rules(20_000, 1)]
    key: Annotated[str, *text_rules(255, 1)] | None = None
    line: int | None = Field(default=None, ge=1, le=1_000_000, strict=True)


class QuestionPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    review_request_id: int
    conversation_id: int
    agent: str
    key: str | None
    line: int | None
    question: str
    status: Literal["open", "answering", "answered", "failed"]
    answer: str | None  # agent-written: render it as text
    error: str | None  # why the agent's model gave no answer (status failed); POST .../retry asks again
    model: str | None  # the label of the model that answered, as on the agent's messages
    created_at: datetime
    answered_at: datetime | None
