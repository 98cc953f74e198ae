"""Start a conversation; retry a failed one from its last checkpoint; abort one in any state (admin).

Each use case opens its own transaction and, once it is committed, tells the live feeds; the
step add_conversation runs inside another use case's transaction (the demo seed's)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.lookups import load_conversation
from hitl_dashboard.db.memberships import resolve_workspace
from hitl_dashboard.db.models import Conversation, Message, utcnow, without_checkpoint
from hitl_dashboard.domain.enums import TERMINAL_STATUSES, ConversationStatus, MessageKind, TaskType
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound
from hitl_dashboard.domain.permissions import Actor, require_role
from hitl_dashboard.domain.policies import GatePolicy
from hitl_dashboard.domain.text_cuts import cut_visibly
from hitl_dashboard.services.external_outcomes.outcomes import conversation_settled
from hitl_dashboard.services.live import live
from hitl_dashboard.services.reviews.review_requests import dismiss_open_requests
from hitl_dashboard.services.reviews.tool_decisions import cancel_pending_calls
from hitl_dashboard.services.teams import versions
from hitl_dashboard.services.transactions import transaction
from hitl_dashboard.services.webhooks import webhooks

MAX_TASK_CHARS = 20_000
MAX_REASON_CHARS = 2_000
TASK_TYPES = {t.value for t in TaskType} | {"auto"}
# No base_url: endpoints (and the keys that go with them) are the operator's configuration; a
# caller-chosen URL would receive the server's API key.
ALLOWED_ROUTING_KEYS = {"provider", "model", "timeout_s", "max_retries", "delay_ms"}


@dataclass
class StartCommand:
    task: str
    task_type: str = "code"
    title: str | None = None
    template: str | None = None
    gate_policy: dict[str, Any] | None = None
    model_routing: dict[str, dict[str, Any]] = field(default_factory=dict)
    on_overdue: str = "escalate"
    workspace: str | None = None  # its slug; None: the one the starter acts in (db/memberships.py)


def start_conversation(actor: Actor, command: StartCommand) -> Conversation:
    """The agents begin at once: the conversation is stored as running with the task as its input."""
    with transaction() as uow:
        conversation = add_conversation(uow.session, actor, command)
    live.publish_turn(conversation.id)  # browsers watching the lists see it at once
    return conversation


def add_conversation(session: Session, actor: Actor, command: StartCommand) -> Conversation:
    """Step: validate the command and store the conversation, its first message and the audit event."""
    task = (command.task or "").strip()
    if not task:
        raise InvalidInput("the task is empty", "task")
    if len(task) > MAX_TASK_CHARS:
        raise InvalidInput(f"the task is longer than {MAX_TASK_CHARS} characters", "task")
    if command.task_type not in TASK_TYPES:
        raise InvalidInput(f"task type must be one of {', '.join(sorted(TASK_TYPES))}", "task_type")
    workspace = resolve_workspace(session, actor, command.workspace, for_new_work=True)
    template_name = command.template or command.task_type
    found = versions.current(session, template_name, workspace.id)  # its newest version: the conversation keeps it
    if found is None:
        raise InvalidInput(f"unknown team template '{template_name}'", "template")
    version, template = found
    if template.fixed_task_type and command.task_type not in (template.fixed_task_type, "auto"):
        raise InvalidInput(f"template '{template_name}' does {template.fixed_task_type} tasks", "template")
    if command.task_type != "auto" and not template.serves(command.task_type):
        raise InvalidInput(f"template '{template_name}' does {', '.join(template.task_types)} tasks", "template")
    if command.on_overdue not in ("escalate", "abort"):
        raise InvalidInput("on_overdue must be escalate or abort", "on_overdue")
    _validate_routing(command.model_routing, template.agent_names)
    # 'auto' starts as code; the planner's TASK TYPE line re-routes it (see services/turns).
    first_type = "code" if template.serves("code") else next(iter(template.task_types))
    task_type = template.fixed_task_type or (command.task_type if command.task_type != "auto" else first_type)
    policy = (
        GatePolicy.from_dict(command.gate_policy) if command.gate_policy is not None
        else template.default_policy(task_type)
    )
    conversation = Conversation(
        workspace_id=workspace.id,
        title=cut_visibly(command.title or task.splitlines()[0], 200),
        task=task,
        task_type=task_type,
        template=template_name,
        team_version_id=version.id,
        gate_policy=policy.to_dict(),
        model_routing=command.model_routing,
        on_overdue=command.on_overdue,
        status=ConversationStatus.RUNNING,
        initiator_id=actor.user_id,
        next_input={"source": "user", "content": task},
        next_seq=2,
    )
    session.add(conversation)
    session.flush()
    session.add(
        Message(conversation_id=conversation.id, workspace_id=conversation.workspace_id, seq=1, source=actor.username,
                kind=MessageKind.TEXT, content=task)
    )
    append_audit(
        session,
        actor=actor.username,
        action="conversation.started",
        conversation_id=conversation.id,
        details={"task_type": task_type, "template": template_name, "team_version": version.number,
                 "gate_policy": policy.to_dict()},
    )
    return conversation


def _validate_routing(routing: dict[str, dict[str, Any]], agents: tuple[str, ...]) -> None:
    if not isinstance(routing, dict):
        raise InvalidInput("model routing must map agent names to model settings", "model_routing")
    for agent, spec in routing.items():
        if agent not in agents:
            raise InvalidInput(f"model routing names unknown agent '{agent}'", "model_routing")
        if not isinstance(spec, dict) or set(spec) - ALLOWED_ROUTING_KEYS:
            raise InvalidInput(
                f"model routing for {agent} may set only {', '.join(sorted(ALLOWED_ROUTING_KEYS))}", "model_routing"
            )
        if spec.get("provider", "scripted") not in ("scripted", "openai"):
            raise InvalidInput("provider must be scripted or openai", "model_routing")


def retry_conversation(actor: Actor, conversation_id: int) -> Conversation:
    """A failed conversation goes back to running; it resumes from its last checkpoint with the
    input that was in flight, which is still stored (a failed turn commits nothing)."""
    require_role(actor, "admin", what="retry a failed conversation")
    with transaction() as uow:
        conversation = load_conversation(uow.session, conversation_id, actor)
        if conversation.status != ConversationStatus.FAILED:
            raise Conflict(f"conversation {conversation_id} is {conversation.status}, not failed")
        reason = conversation.status_reason
        conversation.status, conversation.status_reason = ConversationStatus.RUNNING, None
        conversation.lease_owner, conversation.lease_expires_at = None, None
        conversation.crash_count = 0
        conversation.updated_at = utcnow()
        uow.session.add(conversation)
        append_audit(uow.session, actor=actor.username, actor_role="admin", action="conversation.retried",
                     conversation_id=conversation_id, details={"failure": reason})
    live.publish_turn(conversation_id)
    return conversation


def abort_conversation(actor: Actor, conversation_id: int, reason: str) -> Conversation:
    """Stop a conversation whatever it is doing (running, awaiting review, failed, backing off).

    The row is locked first (PostgreSQL: a runner storing a turn finishes before, or waits and then
    finds its lease gone); clearing the lease makes that runner's next renew fail, so it stops
    without writing over the aborted status. Open review requests are dismissed."""
    require_role(actor, "admin", what="abort a conversation")
    reason = (reason or "").strip()
    if not reason:
        raise InvalidInput("a reason is required to abort a conversation", "reason")
    if len(reason) > MAX_REASON_CHARS:
        raise InvalidInput(f"the reason is longer than {MAX_REASON_CHARS} characters", "reason")
    with transaction() as uow:
        conversation = _abort(uow.session, actor, conversation_id, reason)
    live.publish_turn(conversation_id)  # the status banner of every viewer changes
    return conversation


def _abort(session: Session, actor: Actor, conversation_id: int, reason: str) -> Conversation:
    conversation = session.get(Conversation, conversation_id, options=without_checkpoint(), with_for_update=True)
    if conversation is None:
        raise NotFound(f"conversation {conversation_id} does not exist")
    if conversation.status in TERMINAL_STATUSES:
        raise Conflict(f"conversation {conversation_id} is already {conversation.status}; it cannot be aborted")
    was = conversation.status
    dismiss_open_requests(session, conversation_id, actor=actor.username, why="conversation aborted by an admin")
    cancel_pending_calls(session, conversation_id, why=f"the conversation was aborted by {actor.username}")
    conversation.status = ConversationStatus.ABORTED
    conversation.status_reason = f"aborted by {actor.username} (admin): {reason}"
    conversation.next_input = None
    session.add(Message(conversation_id=conversation_id, workspace_id=conversation.workspace_id,
                        seq=conversation.next_seq, source=actor.username,
                        kind=MessageKind.SYSTEM, content=f"ABORTED by {actor.username} (admin): {reason}"))
    conversation.next_seq += 1
    conversation.lease_owner, conversation.lease_expires_at = None, None
    conversation.updated_at = utcnow()
    session.add(conversation)
    append_audit(session, actor=actor.username, actor_role="admin", action="conversation.aborted",
                 conversation_id=conversation_id, details={"reason": reason, "was": was})
    webhooks.conversation_finished(session, conversation)
    conversation_settled(session, conversation)  # an external caller hears it was denied
    return conversation
