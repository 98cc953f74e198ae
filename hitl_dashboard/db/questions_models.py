"""Questions a reviewer asks the agent that produced the work under review (issue 14)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from hitl_dashboard.db.models import utcnow


class ReviewQuestion(SQLModel, table=True):
    """open -> answering -> answered | failed (-> open again on a retry). Asking changes nothing
    about the review itself: it stays open, claimed by whoever holds it; the answer is text, never
    a new revision."""

    __tablename__ = "review_questions"
    __table_args__ = (Index("ix_review_questions_status", "status", "claim_expires_at"),)
    id: int = Field(default=None, primary_key=True)
    review_request_id: int = Field(foreign_key="review_requests.id", index=True)
    conversation_id: int = Field(foreign_key="conversations.id")
    asker_id: int = Field(foreign_key="users.id")
    agent: str = Field(max_length=64)  # who is asked: the producer of the work under review
    key: str | None = Field(default=None, max_length=255)  # the file, for a question about a line
    line: int | None = None
    question: str = Field(sa_column=Column(Text, nullable=False))
    answer: str | None = Field(default=None, sa_column=Column(Text))
    status: str = Field(default="open", max_length=16)
    # Why the agent's model gave no answer (status failed): shown on the thread beside a retry.
    error: str | None = Field(default=None, sa_column=Column(Text))
    # The label of the model client that answered, as on the agent's messages (0014).
    model: str | None = Field(default=None, max_length=128)
    attempts: int = 0
    claim_expires_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    answered_at: datetime | None = None
