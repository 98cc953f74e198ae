"""The live bus through the database (services/live/live_database.py): what a process with no
browsers and no Redis (the CLI in the embedded setup) changed, for the web worker to push."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel

from hitl_dashboard.db.models import utcnow


class LiveChange(SQLModel, table=True):
    """One live event, in the shape of the Redis bus's ({"type": "changed", "conversation_id": 7,
    "roles": [...]}). Only a window of the newest rows is kept: a web worker reads the ones after
    the last it saw, a few times a second."""

    __tablename__ = "live_changes"
    id: int = Field(default=None, primary_key=True)  # assigned at the first flush (db/models.py)
    at: datetime = Field(default_factory=utcnow)
    event: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
