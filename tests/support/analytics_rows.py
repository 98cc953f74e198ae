"""Rows with known timings for the review analytics tests: a reviewer decides requests that waited
1, 2 and 10 minutes (one a revise), on conversations of one team with known token counts, and one
request is overdue now."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy.engine import Engine

from hitl_dashboard.db.models import Conversation, Decision, ReviewRequest, User, utcnow
from hitl_dashboard.db.uow import UnitOfWork

WAITS_S = (60, 120, 600)  # median 2 min, p90 (nearest rank) 10 min

DEFAULT = 1  # the workspace every database starts with (alembic 0020)


@dataclass(frozen=True)
class Seeded:
    reviewer: str
    conversations: list[int]  # the three decided ones
    overdue_conversation: int
    tokens: list[int]


def seed(engine: Engine | None = None, *, team: str = "copy") -> Seeded:
    suffix = uuid.uuid4().hex[:6]
    now = utcnow()
    with UnitOfWork(engine) as uow:
        s = uow.session
        starter = User(username=f"starter-{suffix}", password_hash="x", roles=["product_reviewer"])
        reviewer = User(username=f"reviewer-{suffix}", password_hash="x", roles=["product_reviewer"])
        s.add_all([starter, reviewer])
        s.flush()
        ids, tokens = [], []
        for index, wait in enumerate(WAITS_S):
            c = Conversation(workspace_id=DEFAULT, title=f"Tagline {suffix} {index}", task="t", task_type="copy",
                             template=team,
                             status="awaiting_review", initiator_id=starter.id, prompt_tokens=100 * (index + 1),
                             completion_tokens=10 * (index + 1), created_at=now - timedelta(hours=2))
            s.add(c)
            s.flush()
            asked = now - timedelta(hours=1)
            request = ReviewRequest(workspace_id=DEFAULT, conversation_id=c.id, kind="signoff",
                                    required_role="product_reviewer",
                                    rule="signoff", reason="r", subject_type="message", subject_id=1,
                                    content_hash="0" * 64, status="decided", due_at=asked + timedelta(days=1),
                                    created_at=asked, closed_at=asked + timedelta(seconds=wait))
            s.add(request)
            s.flush()
            s.add(Decision(review_request_id=request.id, conversation_id=c.id,
                           action="revise" if index == 0 else "approve", reviewer_id=reviewer.id,
                           role="product_reviewer", content_hash="0" * 64,
                           created_at=asked + timedelta(seconds=wait)))
            ids.append(c.id)
            tokens.append(110 * (index + 1))
        late = Conversation(workspace_id=DEFAULT, title=f"Late {suffix}", task="t", task_type="copy", template=team,
                            status="awaiting_review", initiator_id=starter.id, created_at=now - timedelta(hours=3))
        s.add(late)
        s.flush()
        s.add(ReviewRequest(workspace_id=DEFAULT, conversation_id=late.id, kind="signoff",
                            required_role="product_reviewer",
                            rule="signoff", reason="r", subject_type="message", subject_id=1, content_hash="0" * 64,
                            status="pending", due_at=now - timedelta(minutes=5), created_at=now - timedelta(hours=3)))
        uow.commit()
        return Seeded(reviewer.username, ids, late.id, tokens)
