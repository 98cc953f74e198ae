"""Sign-off rules: which roles must approve, in which order, on the same content."""

from __future__ import annotations

from dataclasses import dataclass

from hitl_dashboard.domain.enums import Role, TaskType

SIGNOFF_ORDER: dict[TaskType, tuple[Role, ...]] = {
    TaskType.CODE: (Role.SECURITY_REVIEWER, Role.FINAL_APPROVER),
    TaskType.COPY: (Role.PRODUCT_REVIEWER, Role.FINAL_APPROVER),
    TaskType.OPS: (Role.FINAL_APPROVER,),
}

# Who approves a risky tool call, per task type.
TOOL_APPROVER = Role.SECURITY_REVIEWER


@dataclass(frozen=True)
class Approval:
    role: str
    content_hash: str


@dataclass(frozen=True)
class SignOffStep:
    role: str
    approved: bool


def required_roles(task_type: str) -> tuple[Role, ...]:
    return SIGNOFF_ORDER[TaskType(task_type)]


def progress(task_type: str, approvals: list[Approval], content_hash: str) -> list[SignOffStep]:
    """Only approvals of exactly this content count; a new revision starts over."""
    approved_roles = {a.role for a in approvals if a.content_hash == content_hash}
    return [SignOffStep(role.value, role.value in approved_roles) for role in required_roles(task_type)]


def next_role(task_type: str, approvals: list[Approval], content_hash: str) -> str | None:
    for step in progress(task_type, approvals, content_hash):
        if not step.approved:
            return step.role
    return None


def first_role(task_type: str) -> str:
    return required_roles(task_type)[0].value
