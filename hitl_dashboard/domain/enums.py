from enum import StrEnum


class Role(StrEnum):
    SECURITY_REVIEWER = "security_reviewer"
    PRODUCT_REVIEWER = "product_reviewer"
    FINAL_APPROVER = "final_approver"
    MANAGER = "manager"
    WORKSPACE_ADMIN = "workspace_admin"  # manages one workspace's members, teams, webhooks, Slack links
    ADMIN = "admin"  # the instance admin: creates workspaces, may act in any (audited as such)


# Roles held in a workspace (a membership); "admin" is the instance's, held on the user record.
WORKSPACE_ROLES = (Role.SECURITY_REVIEWER, Role.PRODUCT_REVIEWER, Role.FINAL_APPROVER, Role.MANAGER,
                   Role.WORKSPACE_ADMIN)
INSTANCE_ROLES = (Role.ADMIN,)


REVIEW_ROLES = (Role.SECURITY_REVIEWER, Role.PRODUCT_REVIEWER, Role.FINAL_APPROVER)
# Escalations can land on admins, so their queue is a queue too.
QUEUE_ROLES = tuple(r.value for r in REVIEW_ROLES) + (Role.ADMIN.value,)


class TaskType(StrEnum):
    CODE = "code"
    COPY = "copy"
    OPS = "ops"


class ConversationStatus(StrEnum):
    RUNNING = "running"
    AWAITING_REVIEW = "awaiting_review"
    APPROVED = "approved"
    ABORTED = "aborted"
    FAILED = "failed"


TERMINAL_STATUSES = (ConversationStatus.APPROVED, ConversationStatus.ABORTED)


class MessageKind(StrEnum):
    TEXT = "text"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    DECISION = "decision"
    SYSTEM = "system"


class ToolCallStatus(StrEnum):
    """pending -> approved | denied; approved -> executing -> executed | failed. 'executing' is
    committed before the tool runs, so a runner that dies mid-call never runs it again."""

    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"
    EXECUTING = "executing"
    EXECUTED = "executed"
    FAILED = "failed"


class ReviewKind(StrEnum):
    """What a review request asks: sign off content, pass a gate, or run a tool call."""

    SIGNOFF = "signoff"
    GATE = "gate"
    TOOL_CALL = "tool_call"


class SubjectType(StrEnum):
    MESSAGE = "message"
    CODE_REVISION = "code_revision"
    TOOL_CALL = "tool_call"


class ReviewStatus(StrEnum):
    PENDING = "pending"
    CLAIMED = "claimed"
    DECIDED = "decided"
    EXPIRED = "expired"
    ESCALATED = "escalated"
    DISMISSED = "dismissed"


OPEN_REVIEW_STATUSES = (ReviewStatus.PENDING, ReviewStatus.CLAIMED)
# Requests that passed their deadline: the SLA-breach figures count these.
BREACHED_REVIEW_STATUSES = (ReviewStatus.ESCALATED, ReviewStatus.EXPIRED)


class Action(StrEnum):
    APPROVE = "approve"
    REVISE = "revise"
    ABORT = "abort"
    SKIP = "skip"
