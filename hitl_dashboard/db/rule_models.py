"""Standing rules (issue 42) and what they saw: a rule of a workspace decides tool calls of one team's
tool automatically, once evidence and a second person say so (domain/standing_rules.py). A rule's
decisions are Decision rows with rule_id set and no reviewer."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, Index, Text
from sqlmodel import Field, SQLModel

from hitl_dashboard.db.models import utcnow


class StandingRule(SQLModel, table=True):
    __tablename__ = "standing_rules"
    # Read at every tool-call request: the live rules of one team's tool in one workspace that may
    # match the call (match_key: domain/standing_rules.rule_key), so 1,000 rules cost one index range.
    __table_args__ = (Index("ix_standing_rules_scope", "workspace_id", "team", "tool", "state", "match_key"),)
    id: int = Field(default=None, primary_key=True)
    workspace_id: int = Field(foreign_key="workspaces.id")
    team: str = Field(max_length=40)
    tool: str = Field(max_length=64)  # "" for a rule on a sign-off gate
    # A rule on a content sign-off gate (the team file must allow it): the task type and the role
    # whose step it takes. NULL for a tool rule.
    task_type: str | None = Field(default=None, max_length=16)
    sign_off_role: str | None = Field(default=None, max_length=32)
    effect: str = Field(max_length=16)  # approve | deny
    reason: str | None = Field(default=None, sa_column=Column(Text))  # what the agent reads on a denial
    conditions: list = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    match_key: str = Field(default="", max_length=32)
    state: str = Field(max_length=16)
    version: int = 1  # +1 at every change: decisions and audit events name the version they acted on
    owner_id: int = Field(foreign_key="users.id")
    promoted_by_id: int | None = Field(default=None, foreign_key="users.id")
    override_reason: str | None = Field(default=None, sa_column=Column(Text))
    state_reason: str | None = Field(default=None, sa_column=Column(Text))  # why it paused, was revoked...
    daily_cap: int | None = None
    expires_at: datetime
    agreements: int = 0  # shadow: people decided as it would have
    disagreements: int = 0
    decided: int = 0  # active: calls it decided
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class RuleObservation(SQLModel, table=True):
    """One call a rule matched: what it did (active) or would have done (shadow), beside what a
    person did (when a person decided)."""

    __tablename__ = "standing_rule_observations"
    __table_args__ = (Index("ix_rule_observations_rule_created", "rule_id", "created_at"),
                      Index("ix_rule_observations_call", "tool_call_id"))
    id: int = Field(default=None, primary_key=True)
    rule_id: int = Field(foreign_key="standing_rules.id")
    rule_version: int
    workspace_id: int
    conversation_id: int
    review_request_id: int
    tool_call_id: int | None = None  # None: a sign-off's observation
    mode: str = Field(max_length=16)  # shadow | active
    would: str = Field(max_length=16)  # approve | deny
    human_action: str | None = Field(default=None, max_length=16)
    human_edited: bool = False
    agreed: bool | None = None  # None: decided by the rule itself
    created_at: datetime = Field(default_factory=utcnow)


class WorkspaceRuleSettings(SQLModel, table=True):
    """N, T and K of domain/standing_rules.RuleSettings, per workspace; no row: the defaults."""

    __tablename__ = "workspace_rule_settings"
    workspace_id: int = Field(primary_key=True, foreign_key="workspaces.id")
    min_approvals: int
    window_days: int
    min_agreements: int
