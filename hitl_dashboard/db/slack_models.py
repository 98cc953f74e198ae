"""Slack buttons (docs/slack.md): which product user a Slack user acts as, and the Slack requests
already seen (a replayed request is refused, whichever web worker it reaches)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from hitl_dashboard.db.models import utcnow


class SlackUserLink(SQLModel, table=True):
    """An admin's statement that this Slack user (in this Slack workspace) is this product user, in
    this product workspace: a click on a review of `workspace_id` acts as `user_id` there, with the
    roles held there. Unmapped Slack users can press nothing."""

    __tablename__ = "slack_user_links"
    __table_args__ = (UniqueConstraint("slack_team_id", "slack_user_id", "workspace_id",
                                       name="uq_slack_user_links_slack_user_workspace"),)
    id: int = Field(default=None, primary_key=True)  # assigned at the first flush (db/models.py)
    workspace_id: int = Field(index=True)
    slack_team_id: str = Field(max_length=32)
    slack_user_id: str = Field(max_length=32)
    user_id: int = Field(foreign_key="users.id", index=True)
    created_by: int | None = Field(default=None, foreign_key="users.id")  # None: the operator's CLI
    created_at: datetime = Field(default_factory=utcnow)


class SlackSeenRequest(SQLModel, table=True):
    """One signed Slack request that was accepted for processing, by the hash of its signature (the
    signature covers the timestamp and the whole body). Kept past the timestamp window, after which
    the timestamp check alone refuses the request; expired rows are deleted as new ones arrive."""

    __tablename__ = "slack_seen_requests"
    id: int = Field(default=None, primary_key=True)  # assigned at the first flush (db/models.py)
    key: str = Field(max_length=64, unique=True)
    expires_at: datetime = Field(index=True)
