"""Queue rows for one role, ready to show."""

from __future__ import annotations

from dataclasses import dataclass, field

from hitl_dashboard.domain.external import EXTERNAL
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.findings.review_flags import review_findings_reading
from hitl_dashboard.services.reviews.queues import role_queue
from hitl_dashboard.ui.views.formatting import age, countdown, epoch_ms

SUBJECT_LABELS = {"code_revision": "code revision", "message": "message", "tool_call": "tool call"}


@dataclass
class QueueRow:
    review_id: int = 0
    version: int = 0
    content_hash: str = ""  # what a batch decision binds to (ui/states/queue_batch.py)
    conversation_id: int = 0
    title: str = ""
    task_type: str = ""
    kind: str = ""
    subject: str = ""
    subject_kind: str = ""
    rule: str = ""
    reason: str = ""
    risk_flags: list[str] = field(default_factory=list)
    tokens: str = ""
    age: str = ""
    created_ms: int = 0
    due: str = ""
    due_ms: int = 0
    urgency: str = "ok"
    status: str = ""
    assignee: str = ""
    findings: str = ""  # "1 high · 2 medium findings", "not analysed: why" of the code under review; "" if none
    not_analysed: bool = False
    external: bool = False  # asked from outside the product (docs/external-approvals.md)


def queue_rows(actor: Actor, role: str, limit: int = 100) -> list[QueueRow]:
    rows = []
    items = role_queue(actor, role, limit=limit)
    flags = review_findings_reading([i.id for i in items if i.subject_type == "code_revision"])
    for item in items:
        due, urgency = countdown(item.due_at)
        rows.append(QueueRow(
            review_id=item.id, version=item.version, content_hash=item.content_hash,
            conversation_id=item.conversation_id,
            title=item.title, task_type=item.task_type, kind=item.kind, subject=item.subject_label,
            subject_kind=SUBJECT_LABELS.get(item.subject_type, item.subject_type), rule=item.rule,
            reason=item.reason, risk_flags=item.risk_flags, tokens=f"{item.tokens:,}", age=age(item.created_at),
            created_ms=epoch_ms(item.created_at), due=due, due_ms=epoch_ms(item.due_at), urgency=urgency,
            status=item.status, assignee=item.assignee or "",
            findings=flags[item.id].flag if item.id in flags else "",
            not_analysed=item.id in flags and flags[item.id].status == "not_analysed",
            external=item.origin == EXTERNAL,
        ))
    return rows
