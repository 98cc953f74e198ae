"""SQLModel tables. Times are timezone-aware UTC (sqlmodel stores them as UTC on every database).

The core tables. Later features keep theirs in *_models.py modules, which import this one (for
utcnow and the tables they name in foreign keys) and are never imported by it: db/tables.py loads
them all when something needs the whole metadata (Alembic, the migration tests).

Primary keys are typed `id: int` with default None (here and in the *_models.py files): the database
assigns the id at the first flush, and every row the code reads an id from has been flushed or
loaded. Typed `int | None`, each of about ninety readers would have to narrow a value that is never
None there. The column is the same (a primary key is NOT NULL either way)."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, Index, Text, TextClause, UniqueConstraint, literal_column, text
from sqlmodel import Field, SQLModel

from hitl_dashboard.domain.enums import BREACHED_REVIEW_STATUSES, OPEN_REVIEW_STATUSES, ToolCallStatus


# The predicates of the partial indexes on review requests by status (open ones; breached ones for
# the SLA-breach chart). A query uses such an index only when its WHERE names the same statuses as
# literals (a bound parameter does not prove the predicate).
def _status_clause(statuses: tuple[StrEnum, ...]) -> TextClause:
    return text("status IN ({})".format(", ".join(f"'{s.value}'" for s in statuses)))


OPEN_REVIEW_CLAUSE = _status_clause(OPEN_REVIEW_STATUSES)
BREACHED_REVIEW_CLAUSE = _status_clause(BREACHED_REVIEW_STATUSES)


def utcnow() -> datetime:
    return datetime.now(UTC)


def _json(nullable: bool = True) -> Any:
    return Field(default=None, sa_column=Column(JSON, nullable=nullable))


class User(SQLModel, table=True):
    __tablename__ = "users"
    # A single sign-on user is found by the provider's (issuer, subject), never by a name it sends.
    __table_args__ = (Index("ux_users_oidc_identity", "oidc_issuer", "oidc_subject", unique=True),)
    id: int = Field(default=None, primary_key=True)
    username: str = Field(index=True, unique=True, max_length=64)
    display_name: str = Field(default="", max_length=128)
    password_hash: str
    roles: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    is_active: bool = True
    is_demo: bool = False
    created_at: datetime = Field(default_factory=utcnow)
    oidc_issuer: str | None = Field(default=None, max_length=500)
    oidc_subject: str | None = Field(default=None, max_length=255)


class Conversation(SQLModel, table=True):
    __tablename__ = "conversations"
    __table_args__ = (
        Index("ix_conversations_status_lease", "status", "lease_expires_at"),
        Index("ix_conversations_created", "created_at"),
        # A workspace's conversation list, newest first by id (issue 41: filtered by membership;
        # conversation_list._page_ids merges a few workspaces' by it).
        Index("ix_conversations_workspace_id", "workspace_id", "id"),
    )
    id: int = Field(default=None, primary_key=True)
    workspace_id: int  # db/workspace_models.py (no foreign key: SQLite adds none to a table that exists)
    title: str = Field(max_length=200)
    task: str = Field(sa_column=Column(Text, nullable=False))
    task_type: str = Field(max_length=16)
    template: str = Field(max_length=32)
    gate_policy: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    model_routing: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    on_overdue: str = Field(default="escalate", max_length=16)
    status: str = Field(default="running", max_length=24)
    status_reason: str | None = Field(default=None, sa_column=Column(Text))
    initiator_id: int = Field(foreign_key="users.id")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # Durable pause: the team state is kept turn by turn in turn_checkpoints (the last turn is
    # checkpoint_version), and the message it resumes with here.
    checkpoint_version: int = 0
    next_input: dict | None = _json()
    turns_since_review: int = 0
    next_seq: int = 1
    # A lease with no owner but an expiry in the future is a back-off: nobody runs it before then.
    lease_owner: str | None = Field(default=None, max_length=80)
    lease_expires_at: datetime | None = None
    # Runs in a row that crashed without storing a turn (see services/run_failures).
    crash_count: int = 0
    # A fork or replay: the conversation it came from and the turn it starts after. No foreign key:
    # conversations are never deleted, and SQLite could not drop the column again on a downgrade.
    parent_id: int | None = Field(default=None, index=True)
    parent_turn: int | None = None
    origin: str | None = Field(default=None, max_length=8)  # fork | replay
    # The team version it runs on (db/team_models.py). None: started before 0012 (its team's file).
    # No foreign key, like parent_id.
    team_version_id: int | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


def without_checkpoint() -> list:
    """Loader options for a conversation row. The team checkpoint that once had to be left out here
    now lives in turn_checkpoints, so there is nothing left to defer; kept so callers need not change."""
    return []


class TurnCheckpoint(SQLModel, table=True):
    """What one agent turn changed in the team state (or the whole state): domain/checkpoints.py.
    The state at turn N = the last 'full' row at or before N, with the 'delta' rows after it applied."""

    __tablename__ = "turn_checkpoints"
    __table_args__ = (UniqueConstraint("conversation_id", "turn", name="uq_turn_checkpoints_conversation_turn"),)
    id: int = Field(default=None, primary_key=True)
    conversation_id: int = Field(foreign_key="conversations.id")
    turn: int
    kind: str = Field(max_length=8)  # full | delta
    data: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    # The message the turn started with (None: it carried on), so a replay can give the same input.
    input: dict | None = _json()
    # The transcript up to this turn: messages with seq <= last_seq.
    last_seq: int = 0
    created_at: datetime = Field(default_factory=utcnow)


class Message(SQLModel, table=True):
    __tablename__ = "messages"
    __table_args__ = (
        UniqueConstraint("conversation_id", "seq", name="uq_messages_conversation_seq"),
        # Tokens per day (audit_stats): the window's rows read from the index alone, no table scan.
        Index("ix_messages_created_tokens", "created_at", "prompt_tokens", "completion_tokens"),
        # The same for a workspace's managers (issue 41).
        Index("ix_messages_workspace_created_tokens", "workspace_id", "created_at", "prompt_tokens",
              "completion_tokens"),
    )
    id: int = Field(default=None, primary_key=True)
    conversation_id: int = Field(foreign_key="conversations.id", index=True)
    workspace_id: int  # its conversation's, copied so the charts read one index (no foreign key: 0022)
    seq: int
    source: str = Field(max_length=64)
    kind: str = Field(max_length=16)
    content: str = Field(sa_column=Column(Text, nullable=False))
    prompt_tokens: int = 0
    completion_tokens: int = 0
    created_at: datetime = Field(default_factory=utcnow)
    # The model label of the agent's client (None: a person, a tool result, or before 0011).
    model: str | None = Field(default=None, max_length=128)
    # The user who wrote this text as a reviewer's edit of a message under review (None: an agent,
    # or a person's note). No foreign key (see conversations.parent_id).
    author_id: int | None = None


class CodeRevision(SQLModel, table=True):
    __tablename__ = "code_revisions"
    __table_args__ = (
        UniqueConstraint("conversation_id", "key", "number", name="uq_revisions_conversation_key_number"),
    )
    id: int = Field(default=None, primary_key=True)
    conversation_id: int = Field(foreign_key="conversations.id", index=True)
    message_id: int = Field(foreign_key="messages.id")
    key: str = Field(max_length=255)
    number: int
    language: str = Field(default="text", max_length=32)
    content: str = Field(sa_column=Column(Text, nullable=False))
    content_hash: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    # The reviewer who wrote this version ("approve with my changes"); None: an agent proposed it.
    # The four-eyes rule reads it (services/reviews/edits.py). No foreign key (see conversations.parent_id).
    author_id: int | None = None


class ToolCall(SQLModel, table=True):
    """A tool call an agent asked for; it runs only after approval, at most once."""

    __tablename__ = "tool_calls"
    id: int = Field(default=None, primary_key=True)
    conversation_id: int = Field(foreign_key="conversations.id", index=True)
    call_id: str = Field(max_length=128)
    tool_name: str = Field(max_length=64)
    arguments: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    args_hash: str = Field(max_length=64)
    # A ToolCallStatus: pending -> approved | denied; approved -> executing -> executed | failed
    # (services/runner/tool_execution.py). Stored as its plain string value.
    status: str = Field(default=ToolCallStatus.PENDING, max_length=16)
    # The agent turn (checkpoint version) that asked for it: the team resumes once per turn,
    # after every call of that turn is decided.
    turn: int = 0
    approved_arguments: dict | None = _json()
    result: str | None = Field(default=None, sa_column=Column(Text))
    executed_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)


class ReviewRequest(SQLModel, table=True):
    __tablename__ = "review_requests"
    __table_args__ = (
        Index("ix_reviews_queue", "required_role", "status", "due_at"),
        Index("ix_reviews_conversation", "conversation_id", "status"),
        # Open requests only (a small part of the table): a role's queue in its order, read up to
        # the page's end with no sort; and the overdue check, read up to now.
        Index("ix_reviews_open_role_due", "required_role", "due_at", "id",
              sqlite_where=OPEN_REVIEW_CLAUSE, postgresql_where=OPEN_REVIEW_CLAUSE),
        Index("ix_reviews_open_due", "due_at", sqlite_where=OPEN_REVIEW_CLAUSE, postgresql_where=OPEN_REVIEW_CLAUSE),
        # A role's queue in the workspaces one is a member of (issue 41).
        Index("ix_reviews_open_workspace_role_due", "workspace_id", "required_role", "due_at", "id",
              sqlite_where=OPEN_REVIEW_CLAUSE, postgresql_where=OPEN_REVIEW_CLAUSE),
        # Analytics read the requests opened in a period; the breach chart those that passed their deadline.
        Index("ix_reviews_created", "created_at", "required_role", "status"),
        Index("ix_reviews_breached", "closed_at", "status",
              sqlite_where=BREACHED_REVIEW_CLAUSE, postgresql_where=BREACHED_REVIEW_CLAUSE),
    )
    id: int = Field(default=None, primary_key=True)
    conversation_id: int = Field(foreign_key="conversations.id")
    workspace_id: int  # its conversation's, kept here for the queues
    kind: str = Field(max_length=16)
    required_role: str = Field(max_length=32)
    rule: str = Field(max_length=32)
    reason: str = Field(sa_column=Column(Text, nullable=False))
    risk_flags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    subject_type: str = Field(max_length=16)
    subject_id: int
    subject_label: str = Field(default="", max_length=255)
    content_hash: str = Field(max_length=64)
    status: str = Field(default="pending", max_length=16)
    assignee_id: int | None = Field(default=None, foreign_key="users.id")
    claimed_at: datetime | None = None
    due_at: datetime
    version: int = 1
    escalated_from_id: int | None = None
    created_at: datetime = Field(default_factory=utcnow)
    closed_at: datetime | None = None


def review_is_open():
    """The WHERE term that lets a query use the open-request indexes (see OPEN_REVIEW_CLAUSE)."""
    return ReviewRequest.status.in_([literal_column(f"'{s.value}'") for s in OPEN_REVIEW_STATUSES])


class Decision(SQLModel, table=True):
    __tablename__ = "decisions"
    # Idempotency keys belong to their reviewer: nobody can occupy someone else's key.
    __table_args__ = (
        UniqueConstraint("reviewer_id", "idempotency_key", name="uq_decisions_reviewer_idempotency_key"),
        # Analytics read the decisions of a period.
        Index("ix_decisions_created", "created_at"),
    )
    id: int = Field(default=None, primary_key=True)
    review_request_id: int = Field(foreign_key="review_requests.id", index=True)
    conversation_id: int = Field(foreign_key="conversations.id", index=True)
    action: str = Field(max_length=16)
    reason: str | None = Field(default=None, sa_column=Column(Text))
    instructions: str | None = Field(default=None, sa_column=Column(Text))
    target_agent: str | None = Field(default=None, max_length=64)
    edited_args: dict | None = _json()
    line_comments: list | None = _json()
    # None: decided by a standing rule (rule_id, at rule_version), never by a person.
    reviewer_id: int | None = Field(default=None, foreign_key="users.id")
    rule_id: int | None = None  # db/rule_models.StandingRule
    rule_version: int | None = None
    role: str = Field(max_length=32)
    is_override: bool = False
    override_reason: str | None = Field(default=None, sa_column=Column(Text))
    content_hash: str = Field(max_length=64)
    idempotency_key: str | None = Field(default=None, max_length=200)
    # sha256 of what was asked (review, action, texts, arguments): a reused key must ask the same.
    request_fingerprint: str | None = Field(default=None, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)


class AuditEvent(SQLModel, table=True):
    """Append-only. hash = sha256(prev_hash + canonical payload); see domain/audit_chain."""

    __tablename__ = "audit_events"
    __table_args__ = (Index("ix_audit_conversation", "conversation_id", "seq"),
                      Index("ix_audit_workspace_seq", "workspace_id", "seq"))
    id: int = Field(default=None, primary_key=True)
    seq: int = Field(unique=True)
    # The workspace it happened in (its conversation's, when it has one); None: the instance's own
    # events (users, workspaces, sign-ins), read by the instance admin only.
    workspace_id: int | None = None
    at: datetime = Field(default_factory=utcnow, index=True)
    actor: str = Field(max_length=64, index=True)
    actor_role: str | None = Field(default=None, max_length=32)
    action: str = Field(max_length=48, index=True)
    conversation_id: int | None = None
    review_request_id: int | None = None
    content_hash: str | None = Field(default=None, max_length=64)
    details: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)

    def payload(self) -> dict[str, Any]:
        return chain_payload(self.seq, self)


def chain_payload(seq: int, event: Any) -> dict[str, Any]:
    """What an event's hash covers: its seq and the fields of `event` (an AuditEvent, or a row with
    the same names, such as an audit_outbox row the linker moves)."""
    return {
        "seq": seq,
        "at": event.at.isoformat(),
        "actor": event.actor,
        "actor_role": event.actor_role,
        "action": event.action,
        "conversation_id": event.conversation_id,
        "review_request_id": event.review_request_id,
        "content_hash": event.content_hash,
        "details": event.details,
    }


class AuditOutbox(SQLModel, table=True):
    """PostgreSQL: audit events committed with their change and not yet linked into the chain. The
    committing process links them right after its commit (db/audit.py, in batches under the chain
    lock), so the chain lock is never held across a change's own commit."""

    __tablename__ = "audit_outbox"
    id: int = Field(default=None, primary_key=True)
    workspace_id: int | None = None
    at: datetime = Field(default_factory=utcnow)
    actor: str = Field(max_length=64)
    actor_role: str | None = Field(default=None, max_length=32)
    action: str = Field(max_length=48)
    conversation_id: int | None = None
    review_request_id: int | None = None
    content_hash: str | None = Field(default=None, max_length=64)
    details: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class AuditVerification(SQLModel, table=True):
    """Where the last verification of the audit chain got to (one row, id 1): events 1..seq were
    found intact, event seq has hash `hash`; the next verification goes on from there. ok,
    first_bad_seq and problem are that last run's answer; full says whether it started at event 1."""

    __tablename__ = "audit_verification"
    id: int = Field(default=None, primary_key=True)
    seq: int = 0
    hash: str = Field(max_length=64)
    verified_at: datetime = Field(default_factory=utcnow)
    ok: bool = True
    first_bad_seq: int | None = None
    problem: str | None = Field(default=None, sa_column=Column(Text))
    full: bool = False


class ApiToken(SQLModel, table=True):
    """A bearer token: API tokens for bots and scripts, session tokens for browsers.
    Only the sha256 of the token is stored; the plaintext is shown once, at creation."""

    __tablename__ = "api_tokens"
    id: int = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    # Made for one workspace: acts only there. None: in every workspace its user is a member of.
    workspace_id: int | None = None
    name: str = Field(default="", max_length=100)
    kind: str = Field(default="api", max_length=16)  # api | session
    # full: everything its user may do; approvals: only external approval requests (services/external).
    scope: str = Field(default="full", max_length=16)
    token_hash: str = Field(max_length=64, unique=True)
    prefix: str = Field(max_length=16)  # the first characters, so people can tell tokens apart
    created_at: datetime = Field(default_factory=utcnow)
    last_used_at: datetime | None = None
    expires_at: datetime | None = None
    revoked_at: datetime | None = None


class SsoAttempt(SQLModel, table=True):
    """One single sign-on in flight: what the callback must find again (the state, by its hash), the
    nonce and PKCE verifier it must use, and where the browser goes after. Finished once: a replayed
    state finds finished_at set."""

    __tablename__ = "sso_attempts"
    id: int | None = Field(default=None, primary_key=True)
    state_hash: str = Field(max_length=64, unique=True)
    nonce: str = Field(max_length=128)
    code_verifier: str = Field(max_length=128)
    return_to: str = Field(default="", max_length=2000)
    created_at: datetime = Field(default_factory=utcnow, index=True)
    finished_at: datetime | None = None


class Webhook(SQLModel, table=True):
    __tablename__ = "webhooks"
    id: int = Field(default=None, primary_key=True)
    workspace_id: int = Field(index=True)  # gets that workspace's events only
    url: str = Field(max_length=2000)
    events: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # Kept readable: every delivery is signed with it (HMAC needs the key itself).
    secret: str = Field(max_length=128)
    format: str = Field(default="json", max_length=16)  # json | slack
    active: bool = True
    created_by: int | None = Field(default=None, foreign_key="users.id")  # None: the operator's CLI
    created_at: datetime = Field(default_factory=utcnow)


class WebhookDelivery(SQLModel, table=True):
    """One event for one webhook, queued in the transaction that caused the event."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        UniqueConstraint("webhook_id", "event_id", name="uq_webhook_deliveries_webhook_event"),
        Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
    )
    id: int = Field(default=None, primary_key=True)
    webhook_id: int = Field(foreign_key="webhooks.id")
    event: str = Field(max_length=48)
    event_id: str = Field(max_length=120)
    payload: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    status: str = Field(default="pending", max_length=16)  # pending | delivered | failed
    attempts: int = 0
    next_attempt_at: datetime = Field(default_factory=utcnow)
    last_status_code: int | None = None
    last_error: str | None = Field(default=None, sa_column=Column(Text))
    delivered_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
