"""External approval requests (issue 31): a process outside the product asks for a decision.

The request is a conversation of its own (origin 'external') that goes through the same review
requests, decisions and audit as internal work; this row keeps what only an external request
has: who asked with which of their own ids, the link back to their run, the context, where to
call back, the caller's JSON schema of the arguments, and what the caller reported as run."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from hitl_dashboard.db.models import utcnow


class ExternalRequest(SQLModel, table=True):
    __tablename__ = "external_requests"
    # The caller's own request id is unique per caller (a user): asking again gives the same review.
    __table_args__ = (UniqueConstraint("caller_id", "caller_request_id", name="uq_external_requests_caller_id"),)
    id: int | None = Field(default=None, primary_key=True)
    conversation_id: int = Field(foreign_key="conversations.id", unique=True)
    caller_id: int = Field(foreign_key="users.id")
    token_name: str = Field(default="", max_length=100)  # the token it came with, as the caller named it
    caller_request_id: str = Field(max_length=200)
    # sha256 of the canonical request: the same id with another request is refused.
    fingerprint: str = Field(max_length=64)
    kind: str = Field(max_length=16)  # tool_call | content
    link: str | None = Field(default=None, max_length=2000)
    context: str | None = Field(default=None, sa_column=Column(Text))
    args_schema: dict | None = Field(default=None, sa_column=Column(JSON))
    callback_url: str | None = Field(default=None, max_length=2000)
    # The delivery target of the callback: a webhook row subscribed to no event (services/external/callbacks.py).
    callback_webhook_id: int | None = Field(default=None, foreign_key="webhooks.id")
    # What the caller reports as run: ok | error, with its text (bounded).
    result_status: str | None = Field(default=None, max_length=8)
    result: str | None = Field(default=None, sa_column=Column(Text))
    reported_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
