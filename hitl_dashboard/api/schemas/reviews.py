"""Review requests, the queue items that list them, and structured decisions."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from hitl_dashboard.api.schemas.common import MAX_ID, AgentName, text_rules
from hitl_dashboard.api.schemas.findings import ReviewFindingsPublic
from hitl_dashboard.domain.edits import MAX_EDITED_FILE_CHARS, MAX_EDITED_FILES, MAX_EDITED_MESSAGE_CHARS
from hitl_dashboard.domain.enums import Action


class ReviewPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    conversation_id: int
    kind: str
    role: str = Field(validation_alias="required_role")
    rule: str
    reason: str
    risk_flags: list[str]
    subject_type: str
    subject_id: int
    subject_label: str
    content_hash: str
    status: str
    assignee_id: int | None
    version: int
    due_at: datetime
    created_at: datetime
    escalated_from_id: int | None
    findings: ReviewFindingsPublic | None = Field(
        default=None, description="code reviews in a conversation's or the queue's payload: the findings flag, "
                                  "or why the code was not analysed")


class ReviewListItemPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    version: int
    role: str
    conversation_id: int
    title: str
    task_type: str
    kind: str
    subject_type: str
    subject_label: str
    rule: str
    reason: str
    risk_flags: list[str]
    tokens: int
    status: str
    content_hash: str = Field(description="Send it back as expected_content_hash to decide on exactly this content")
    assignee: str | None
    created_at: datetime
    due_at: datetime
    overdue: bool
    origin: str | None = Field(default=None, description="the conversation's: fork, replay, or external (an "
                                                         "approval asked from outside, docs/external-approvals.md)")
    findings: ReviewFindingsPublic | None = Field(
        default=None, description="code reviews: the findings flag, or why the code was not analysed")


class LineCommentCreate(BaseModel):
    """A comment on a line of a file of the code under review; with `suggestion`, a suggested change:
    those exact lines replace lines line..end_line of the file's newest revision (as GitHub's)."""

    model_config = ConfigDict(extra="forbid")
    key: Annotated[str, *text_rules(255, 1)]
    line: int = Field(ge=1, le=1_000_000, strict=True)
    text: Annotated[str, *text_rules(20_000)] = Field(
        default="", description="what should change; may be empty only with a suggestion")
    end_line: int | None = Field(default=None, ge=1, le=1_000_000, strict=True,
                                 description="suggestion: the last line it replaces (default: line)")
    suggestion: list[Annotated[str, *text_rules(20_000)]] | None = Field(
        default=None, max_length=500,
        description="the exact replacement lines, one string per line ([] deletes the lines); the next "
                    "revision's diff says whether it was applied (the conversation's `suggestions`)")


FileKey = Annotated[str, *text_rules(255, 1)]
EditedFile = Annotated[str, *text_rules(MAX_EDITED_FILE_CHARS)]


class DecisionCreate(BaseModel):
    """The structured decision. Send an Idempotency-Key header to make retries safe: keys belong to
    their user; the same key with the same body replays the first answer, with a different body
    it is refused (422)."""

    model_config = ConfigDict(extra="forbid")
    action: Action
    reason: Annotated[str, *text_rules(20_000)] | None = None
    instructions: Annotated[str, *text_rules(20_000)] | None = None
    target_agent: AgentName | None = Field(
        default=None, description="revise: the agent of the conversation's team that gets the instructions "
                                  "(default: the one producing the work); another name is refused (422)")
    edited_args: dict[str, Any] | None = Field(default=None, description="Tool call reviews: approved arguments")
    line_comments: list[LineCommentCreate] = Field(default_factory=list, max_length=200)
    expected_version: int | None = Field(default=None, ge=1, le=MAX_ID, strict=True)
    override_reason: Annotated[str, *text_rules(20_000)] | None = None
    expected_content_hash: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$",
        description="The content_hash of the review you read: refused with 409 if the review is about other content",
    )

    edited_files: dict[FileKey, EditedFile] | None = (
        Field(default=None, max_length=MAX_EDITED_FILES, description=(
            "Approve with my changes, on a code review: your version of files under review (file key -> its whole "
            "text). It is stored as a new revision you wrote; the approval and the next sign-offs bind to its hash. "
            "A file not under review or an unchanged version is refused (422)")))
    edited_text: Annotated[str, *text_rules(MAX_EDITED_MESSAGE_CHARS, 1)] | None = Field(
        default=None, description="Approve with my changes, on a message review: your version of the message")

    @field_validator("edited_args")
    @classmethod
    def _small_object(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None and len(value) > 50:
            raise ValueError("at most 50 arguments")
        return value


class DecisionOutcomePublic(BaseModel):
    decision_id: int
    review_id: int
    conversation_id: int
    action: str
    conversation_status: str
    next_review_id: int | None
    replayed: bool = Field(description="True when this Idempotency-Key was already used: nothing was applied twice")
