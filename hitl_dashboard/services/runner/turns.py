"""What happens after an agent turn: persist it, then let the gate policy decide."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlmodel import Session

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import CodeRevision, Conversation, Message, ToolCall, utcnow
from hitl_dashboard.domain.enums import ConversationStatus, ReviewKind, Role, SubjectType
from hitl_dashboard.domain.findings import FindingsView
from hitl_dashboard.domain.hashing import content_hash
from hitl_dashboard.domain.policies import GateHit, GatePolicy, TurnView, planned_task_type, risk_flags
from hitl_dashboard.domain.signoff import first_role
from hitl_dashboard.domain.stored_values import CALL_ID_CHARS, MODEL_CHARS, SOURCE_CHARS, fit_with_hash, storable_text
from hitl_dashboard.observability import metrics
from hitl_dashboard.observability.on_commit import on_commit
from hitl_dashboard.services.conversations.checkpoints import store_turn_checkpoint
from hitl_dashboard.services.conversations.proposed_code import add_revisions, proposed_code
from hitl_dashboard.services.findings.queue import enqueue as enqueue_analysis
from hitl_dashboard.services.reviews.review_requests import Subject, dismiss_open_requests, open_request
from hitl_dashboard.services.teams.versions import pinned
from hitl_dashboard.services.webhooks import webhooks

if TYPE_CHECKING:  # the runner hands us these; importing them would load AutoGen
    from hitl_dashboard.agents.team_session import ProducedMessage, TurnResult

CONTINUE, PAUSED, FINISHED = "continue", "paused", "finished"


def apply_turn(session: Session, conversation: Conversation, turn: TurnResult,
               findings: FindingsView | None = None) -> str:
    """Runs inside the transaction that also stores the checkpoint. findings: the gate input of
    services/findings/gate.py (None unless the policy gates on findings and the turn has Python)."""
    messages = [m for m in turn.messages if not m.awaiting_approval]
    on_commit(session, metrics.agent_turn, turn.messages[-1].source if turn.messages else "none")
    stored = [_store_message(session, conversation, m) for m in messages]
    _follow_planner_route(session, conversation, messages)
    revisions = _store_revisions(session, conversation, messages, stored)
    enqueue_analysis(session, revisions)  # analysed after the commit (services/findings)
    conversation.checkpoint_version += 1
    store_turn_checkpoint(session, conversation, kind=turn.checkpoint_kind, data=turn.checkpoint, task=turn.task,
                          stored=stored)
    conversation.next_input = None
    conversation.updated_at = utcnow()
    for message in messages:
        conversation.prompt_tokens += message.prompt_tokens
        conversation.completion_tokens += message.completion_tokens

    policy = GatePolicy.from_dict(conversation.gate_policy)
    if _open_tool_approvals(session, conversation, messages, stored):
        return _pause(conversation)
    hits, flags, last_text = [], [], None
    for message, row in zip(messages, stored, strict=True):
        if message.kind != "text":
            continue
        hits += policy.evaluate(TurnView(message.source, message.content))
        flags += risk_flags(message.content)
        last_text = row
    hits += policy.evaluate_findings(findings if revisions else None)
    if hits:
        session.flush()  # the subject names the rows by id
        subject = _subject_for(conversation, revisions, last_text)
        signoff = any(h.is_signoff_point for h in hits)
        dismiss_open_requests(session, conversation.id, actor="runner", why="new content to review")
        open_request(
            session, conversation,
            kind=ReviewKind.SIGNOFF if signoff else ReviewKind.GATE,
            role=Role.SECURITY_REVIEWER.value if any(h.rule == "findings" for h in hits) and not signoff
            else first_role(_sign_off_chain(conversation)),
            rule=_primary(hits).rule,
            reason="; ".join(h.describe() for h in hits),
            subject=subject,
            risk_flags=sorted(set(flags)),
        )
        return _pause(conversation)
    if policy.mode == "never" and any(TurnView(m.source, m.content).says_done for m in messages):
        conversation.status = ConversationStatus.APPROVED
        conversation.status_reason = "completed without review (gate policy: never)"
        append_audit(session, actor="runner", action="conversation.completed_without_review",
                     conversation_id=conversation.id)
        webhooks.conversation_finished(session, conversation)
        return FINISHED
    conversation.turns_since_review += 1
    if conversation.turns_since_review >= policy.max_turns_without_review and last_text is not None:
        session.flush()
        open_request(
            session, conversation, kind=ReviewKind.GATE, role=first_role(_sign_off_chain(conversation)),
            rule="turn_budget", reason=f"{conversation.turns_since_review} turns without a review",
            subject=_message_subject(last_text),
        )
        return _pause(conversation)
    return CONTINUE


def _sign_off_chain(conversation: Conversation) -> tuple[str, ...]:
    return pinned(conversation).sign_off(conversation.task_type)


def _pause(conversation: Conversation) -> str:
    conversation.status = ConversationStatus.AWAITING_REVIEW
    conversation.turns_since_review = 0
    return PAUSED


def _primary(hits: list[GateHit]) -> GateHit:
    return next((h for h in hits if h.is_signoff_point), next((h for h in hits if h.rule == "findings"), hits[0]))


def _store_message(session: Session, conversation: Conversation, produced: ProducedMessage) -> Message:
    row = Message(
        conversation_id=conversation.id, seq=conversation.next_seq,
        source=fit_with_hash(produced.source, SOURCE_CHARS), kind=produced.kind,
        content=storable_text(produced.content), prompt_tokens=produced.prompt_tokens,
        completion_tokens=produced.completion_tokens, model=fit_with_hash(produced.model, MODEL_CHARS) or None,
    )
    conversation.next_seq += 1
    session.add(row)  # flushed with the turn, or earlier by a step that needs its id
    return row


def _follow_planner_route(session: Session, conversation: Conversation, messages: list[ProducedMessage]) -> None:
    team = pinned(conversation)
    if team.fixed_task_type is not None:
        return
    for message in messages:
        planned = planned_task_type(message.content) if message.source == team.speaker_order.planner else None
        if planned and planned != conversation.task_type and team.serves(planned):
            append_audit(session, actor="runner", action="conversation.rerouted", conversation_id=conversation.id,
                         details={"from": conversation.task_type, "to": planned})
            conversation.task_type = planned
            policy = GatePolicy.from_dict(conversation.gate_policy)
            if policy.mode == "after_agent":
                agents = tuple(a for a in policy.agents if a not in team.producers)
                conversation.gate_policy = {**policy.to_dict(), "agents": agents + (team.producer(planned),)}


def _store_revisions(session, conversation, messages, stored) -> list[CodeRevision]:
    revisions: list[CodeRevision] = []
    team = pinned(conversation)
    for produced, row in zip(messages, stored, strict=True):
        if produced.kind != "text":
            continue
        blocks = proposed_code(team, produced.source, produced.content)
        if blocks:
            session.flush()  # the revisions name their message by id
            revisions += add_revisions(session, conversation.id, row.id, blocks)
    if revisions:
        session.flush()
    return revisions


def _open_tool_approvals(session, conversation, messages, stored) -> bool:
    opened = False
    team = pinned(conversation)
    for produced, _row in zip(messages, stored, strict=True):
        for intent in produced.tool_calls:
            # The team's approval mode (always, or `when` a rule on the arguments matches) decides,
            # as the agent's approval wrapper did: it did not run such a call, so a review must open
            # even when the conversation's gate policy does not list the tool (issue 29: a call left
            # "pending" with no review would wait for ever).
            if not team.holds_back(produced.source, intent.name, intent.arguments):
                continue
            call = ToolCall(conversation_id=conversation.id, call_id=fit_with_hash(intent.call_id, CALL_ID_CHARS),
                            tool_name=intent.name,  # a tool of the team, whose names are identifiers
                            arguments=intent.arguments, args_hash=content_hash(intent.arguments),
                            turn=conversation.checkpoint_version)
            session.add(call)
            session.flush()
            open_request(
                session, conversation, kind=ReviewKind.TOOL_CALL, role=team.tool_approver, rule="tool",
                reason=f"{produced.source} wants to call {intent.name}",
                subject=Subject(SubjectType.TOOL_CALL, call.id, f"{intent.name} (call {call.id})", call.args_hash),
                risk_flags=[intent.name],
            )
            opened = True
    return opened


def _subject_for(conversation: Conversation, revisions: list[CodeRevision], message: Message | None) -> Subject:
    if revisions:
        label = f"{revisions[0].key} r{revisions[0].number}" + (
            f" +{len(revisions) - 1} files" if len(revisions) > 1 else "")
        combined = content_hash(sorted([r.key, r.content_hash] for r in revisions))
        return Subject(SubjectType.CODE_REVISION, revisions[0].id, label, combined)
    assert message is not None
    return _message_subject(message)


def _message_subject(message: Message) -> Subject:
    return Subject(SubjectType.MESSAGE, message.id, f"message #{message.seq} by {message.source}",
                   content_hash(message.content))
