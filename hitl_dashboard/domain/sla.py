"""Review deadlines and what happens when one passes."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from hitl_dashboard.domain.enums import Role

OverdueAction = Literal["escalate", "abort"]

# Where an overdue request goes. Admins are everybody's backup.
BACKUP_ROLE: dict[str, str] = {
    Role.SECURITY_REVIEWER.value: Role.ADMIN.value,
    Role.PRODUCT_REVIEWER.value: Role.ADMIN.value,
    Role.FINAL_APPROVER.value: Role.ADMIN.value,
}


def due_at(now: datetime, role: str, sla_hours: dict[str, float]) -> datetime:
    return now + timedelta(hours=sla_hours.get(role, 24.0))


def escalation_target(role: str) -> str | None:
    """None means there is nobody above: the request can only be aborted."""
    return BACKUP_ROLE.get(role)
