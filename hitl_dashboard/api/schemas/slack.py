"""Slack user links (docs/slack.md): which product user a Slack user acts as."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class SlackLinkCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    slack_team_id: str = Field(pattern=r"^[TE][A-Z0-9]{2,31}$", description="The Slack workspace id (T0123ABCD)")
    slack_user_id: str = Field(pattern=r"^[UW][A-Z0-9]{2,31}$", description="The Slack user id (U0123ABCD)")
    username: str = Field(min_length=1, max_length=64, description="The dashboard user the Slack user acts as")
    workspace: str | None = Field(default=None, max_length=40, description=(
        "The slug of the workspace whose reviews the link decides (the user must be a member); "
        "default: the one the request acts in (?workspace=, else the caller's only one)"))


class SlackLinkPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    slack_team_id: str
    slack_user_id: str
    username: str
    created_at: datetime
    workspace: str = Field(description="The workspace whose reviews this Slack user decides, as `username`")


class SlackAnswerPublic(BaseModel):
    """What Slack gets back: a message only the person who clicked sees."""

    model_config = ConfigDict(extra="allow")
    text: str
    response_type: str | None = None
    replace_original: bool | None = None
    detail: str | None = Field(default=None, description="Why, on a refusal before the click was trusted")
