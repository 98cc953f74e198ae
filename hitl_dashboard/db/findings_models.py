"""Static-analysis tables (issue 14): one analysis per content hash, its findings as rows.

Keyed by content hash, not by revision: the same file text proposed twice (another revision,
another conversation) is analysed once. A revision finds its analysis through its content_hash."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from hitl_dashboard.db.models import utcnow


class CodeAnalysis(SQLModel, table=True):
    """pending -> running -> analysed | not_analysed (reason says why: timeout, too large, ...).
    A running claim that outlives claim_expires_at (its worker died) is taken over."""

    __tablename__ = "code_analyses"
    __table_args__ = (Index("ix_code_analyses_status", "status", "claim_expires_at"),)
    content_hash: str = Field(primary_key=True, max_length=64)
    file: str = Field(default="", max_length=255)  # the name it was analysed under (first revision's key)
    status: str = Field(default="pending", max_length=16)
    reason: str | None = Field(default=None, sa_column=Column(Text))
    attempts: int = 0
    claim_expires_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None


class CodeFinding(SQLModel, table=True):
    __tablename__ = "code_findings"
    __table_args__ = (Index("ix_code_findings_hash_line", "content_hash", "line"),)
    id: int = Field(default=None, primary_key=True)
    content_hash: str = Field(max_length=64)
    analyser: str = Field(max_length=16)
    rule: str = Field(max_length=32)
    severity: str = Field(max_length=8)
    line: int = 0
    column: int = 0
    message: str = Field(sa_column=Column(Text, nullable=False))
