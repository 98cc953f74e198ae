"""External approval requests: what a caller sends and reads back (docs/external-approvals.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from hitl_dashboard.api.schemas.common import text_rules
from hitl_dashboard.domain import external as rules

RequestId = Annotated[str, StringConstraints(pattern=r"^[!-~]{1,200}$")]
TeamName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_-]{0,39}$")]
ToolName = Annotated[str, StringConstraints(pattern=rules.TOOL_NAME.pattern)]
Url = Annotated[str, StringConstraints(max_length=rules.MAX_URL, pattern=r"^https?://")]


class ToolCallAsk(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: ToolName
    arguments: dict[str, Any] = Field(description=f"JSON object, at most {rules.MAX_JSON_BYTES // 1024} KB")
    args_schema: dict[str, Any] | None = Field(
        default=None, description="JSON Schema (2020-12) of the arguments: they, and every reviewer's edit, "
                                  "must match it; local $refs only")


class ContentAsk(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: Annotated[str, *text_rules(rules.MAX_CONTENT, 1)]
    file_name: Annotated[str, *text_rules(rules.MAX_FILE_NAME, 1)]


class ApprovalCreate(BaseModel):
    """Ask for a decision on a tool call or on content. The same request_id again (from the same
    user) returns the same review; with a different request it is a 409."""

    model_config = ConfigDict(extra="forbid")
    request_id: RequestId = Field(description="Your own id for this request: 1-200 printable ASCII, no spaces")
    team: TeamName = Field(description="The team whose rules apply: roles, sign-off chain, SLAs")
    title: Annotated[str, *text_rules(rules.MAX_TITLE, 1)]
    tool_call: ToolCallAsk | None = None
    content: ContentAsk | None = None
    task_type: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,15}$")] | None = Field(
        default=None, description="Which of the team's task types (its sign-off chain); default: its first")
    link: Url | None = Field(default=None, description="Back to your run (http/https), shown to reviewers")
    context: Annotated[str, *text_rules(rules.MAX_CONTEXT)] | None = Field(
        default=None, description="Markdown for the reviewers; shown sanitized, never as HTML")
    callback_url: Url | None = Field(default=None, description="Receives the outcome as a signed POST")
    on_overdue: Literal["escalate", "abort"] = "escalate"

    @model_validator(mode="after")
    def _one_subject(self) -> ApprovalCreate:
        if (self.tool_call is None) == (self.content is None):
            raise ValueError("give exactly one of tool_call and content")
        return self


class ResultReport(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ok: bool = Field(strict=True, description="false: it ran and failed (result holds the error)")
    result: Annotated[str, *text_rules(rules.MAX_RESULT)] = ""


class ApprovalPublic(BaseModel):
    id: int
    request_id: str
    conversation_id: int
    review_id: int | None
    kind: str
    title: str
    status: Literal["pending", "approved", "denied", "revise"]
    arguments: dict[str, Any] | None = Field(description="approved tool calls: the arguments that may run")
    reason: str | None = Field(description="denied: why")
    instructions: str | None = Field(description="revise: what to change before asking again")
    decided_by: str | None
    created: bool = Field(description="false: this request_id was asked before and this is that review")
    url: str
    callback_secret: str | None = Field(description="HMAC-SHA256 key of the callbacks (X-HITL-Signature)")
    result_status: str | None = Field(description="what you reported: ok | error")
    message: str
