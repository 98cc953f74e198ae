"""Audit trail entries and the chain check."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class AuditEventPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    seq: int
    at: datetime
    actor: str
    actor_role: str | None
    action: str
    conversation_id: int | None
    review_request_id: int | None
    content_hash: str | None
    details: dict[str, Any]
    prev_hash: str
    hash: str


class AuditPage(BaseModel):
    items: list[AuditEventPublic]
    next_before_seq: int | None = Field(description="Pass as before_seq for the next (older) page; null at the end")


class ChainReportPublic(BaseModel):
    ok: bool
    checked: int = Field(description="Events this verification read (only those after the verified point, "
                                     "unless full)")
    first_bad_seq: int | None
    problem: str | None
    verified_up_to: int = Field(description="Events 1..verified_up_to are intact; the next verification "
                                            "goes on from there")
    full: bool = Field(description="This verification started at event 1")
