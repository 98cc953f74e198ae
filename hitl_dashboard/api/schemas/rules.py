"""Standing rules (issue 42): what a rule is made of, and what is answered about one."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Condition(BaseModel):
    """A team file's `when` rule: {argument, equals} or {argument, one_of}; checked as a team file's is
    (an undeclared argument, a value of the wrong type or an unknown operator is refused with 422)."""

    model_config = ConfigDict(extra="allow")
    argument: str = Field(min_length=1, max_length=64)


class RuleIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    team: str = Field(min_length=1, max_length=40)
    tool: str = Field(default="", max_length=64, description="the tool whose calls it decides; empty for a "
                                                            "rule on a sign-off gate (task_type and role)")
    task_type: str | None = Field(default=None, max_length=16,
                                  description="a sign-off gate's rule: the task type whose chain it is part of")
    role: str | None = Field(default=None, max_length=32, description="a sign-off gate's rule: the sign-off role "
                             "whose step it takes (the team file must list it under rules_may_sign_off)")
    when: list[dict[str, Any]] = Field(min_length=1, max_length=8, description="conditions; every one must hold")
    effect: Literal["approve", "deny"] = "approve"
    reason: str | None = Field(default=None, max_length=2000, description="a deny rule's: what the agent reads")
    expires_in_days: int = Field(default=30, ge=1, le=365)
    daily_cap: int | None = Field(default=None, ge=1, le=100_000)


class PromoteIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    override_reason: str | None = Field(default=None, max_length=2000,
                                        description="a workspace admin's, to promote without K agreements")


class StopIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str | None = Field(default=None, max_length=2000)


class RulePublic(BaseModel):
    id: int
    workspace_id: int
    team: str
    tool: str
    effect: str
    when: str
    conditions: list[dict[str, Any]]
    reason: str | None
    state: str
    state_reason: str | None
    version: int
    owner: str
    promoted_by: str | None
    override_reason: str | None
    daily_cap: int | None
    expires_at: str
    agreements: int
    disagreements: int
    decided: int
    created_at: str
    evidence: list[dict[str, Any]]
    task_type: str | None = None  # a sign-off gate's rule (tool ""): its gate
    role: str | None = None


class CandidatePublic(BaseModel):
    team: str
    tool: str
    when: dict[str, Any]
    approved_unchanged: int
    contrary: int
    examples: list[dict[str, Any]]
