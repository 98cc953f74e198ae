"""What happens after an agent turn: persist it, then act on what domain/turn_gate.decide_turn
says (open a review or a tool approval, finish, or go on)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlmodel import Session

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.code_revisions import add_revisions
from hitl_dashboard.db.lookups import tool_call_label
from hitl_dashboard.db.models import CodeRevision, Conversation, Message, ReviewRequest, ToolCall, utcnow
from hitl_dashboard.domain.enums import ConversationStatus, ReviewKind, Role, SubjectType
from hitl_dashboard.domain.findings import FindingsView
from hitl_dashboard.domain.hashing import content_hash
from hitl_dashboard.domain.policies import GatePolicy, planned_task_type
from hitl_dashboard.domain.revisions import ProposedCode
from hitl_dashboard.domain.signoff import first_role
from hitl_dashboard.domain.stored_values import CALL_ID_CHARS, MODEL_CHARS, SOURCE_CHARS, fit_with_hash, storable_text
from hitl_dashboard.domain.turn_gate import TurnCode, decide_turn, parse_turn_code
from hitl_dashboard.observability import metrics
from hitl_dashboard.observability.on_commit import on_commit
from hitl_dashboard.services.findings.queue import enqueue as enqueue_analysis
from hitl_dashboard.services.reviews.review_requests import Subject, dismiss_open_requests, open_request
from hitl_dashboard.services.rules.gate import decide_by_rules
from hitl_dashboard.services.rules.sign_off_gate import decide_sign_off_by_rules
from hitl_dashboard.services.runner.checkpoints import store_turn_checkpoint
from hitl_dashboard.services.teams.versions import pinned
from hitl_dashboard.services.webhooks import webhooks
from hitl_dashboard.teams.model import TeamDefinition

if TYPE_CHECKING:  # the runner hands us these; importing them would load AutoGen
    from hitl_dashboard.agents.team_run import ProducedMessage, ToolIntent, TurnResult

CONTINUE, PAUSED, FINISHED = "continue", "paused", "finished"
RESUMED = "resumed"  # the turn's tool calls were decided by standing rules: the runner picks it up again


def apply_turn(session: Session, conversation: Conversation, turn: TurnResult,
               findings: FindingsView | None = None, code: TurnCode | None = None) -> str:
    """Runs inside the transaction that also stores the checkpoint. findings: the gate input of
    services/findings/gate.py (None unless the policy gates on findings and the turn has Python).
    code: the turn's, as the runner parsed it (parsed here when not given)."""
    team = pinned(conversation)
    if code is None:
        code = parse_turn_code(team.code_authors, turn.messages)
    kept = [(m, blocks) for m, blocks in zip(turn.messages, code.per_message, strict=True) if not m.awaiting_approval]
    messages = [m for m, _ in kept]
    on_commit(session, metrics.agent_turn, turn.messages[-1].source if turn.messages else "none")
    stored = [_store_message(session, conversation, m) for m in messages]
    _follow_planner_route(session, conversation, messages)
    revisions = _store_revisions(session, conversation, [blocks for _, blocks in kept], stored)
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
    held = _held_tool_calls(messages, team)
    decision = decide_turn(policy, messages, proposes_code=bool(revisions), held_tool_calls=len(held),
                           findings=findings, turns_without_review=conversation.turns_since_review + 1)
    if decision.outcome == "tool_approval":
        requests = _open_tool_approvals(session, conversation, team, held)
        if decide_by_rules(session, conversation, requests) == len(requests):
            return RESUMED  # standing rules decided every call: the conversation runs them next
        return _pause(conversation)
    last_text = next((row for m, row in zip(reversed(messages), reversed(stored), strict=True) if m.kind == "text"),
                     None)
    if decision.outcome == "review":
        session.flush()  # the subject names the rows by id
        subject = _subject_for(conversation, revisions, last_text)
        dismiss_open_requests(session, conversation.id, actor="runner", why="new content to review")
        request = open_request(
            session, conversation,
            kind=ReviewKind.SIGNOFF if decision.is_signoff else ReviewKind.GATE,
            role=Role.SECURITY_REVIEWER.value if decision.to_security else first_role(_sign_off_chain(conversation)),
            rule=decision.primary.rule,
            reason="; ".join(h.describe() for h in decision.hits),
            subject=subject,
            risk_flags=list(decision.risk_flags),
        )
        # A sign-off gate the team lets standing rules take: an active rule may sign off at once.
        if decision.is_signoff and decide_sign_off_by_rules(session, conversation, request) is None:
            return FINISHED  # rules took every step of the chain: the conversation is approved
        return _pause(conversation)
    if decision.outcome == "done":
        conversation.status = ConversationStatus.APPROVED
        conversation.status_reason = "completed without review (gate policy: never)"
        append_audit(session, actor="runner", action="conversation.completed_without_review",
                     conversation_id=conversation.id)
        webhooks.conversation_finished(session, conversation)
        return FINISHED
    conversation.turns_since_review += 1
    if decision.outcome == "turn_budget" and last_text is not None:
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


def _store_message(session: Session, conversation: Conversation, produced: ProducedMessage) -> Message:
    row = Message(
        conversation_id=conversation.id, workspace_id=conversation.workspace_id, seq=conversation.next_seq,
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


def _store_revisions(session: Session, conversation: Conversation, code: list[tuple[ProposedCode, ...]],
                     stored: list[Message]) -> list[CodeRevision]:
    revisions: list[CodeRevision] = []
    for blocks, row in zip(code, stored, strict=True):
        if blocks:
            session.flush()  # the revisions name their message by id
            assert conversation.id is not None and row.id is not None  # both flushed
            revisions += add_revisions(session, conversation.id, row.id, list(blocks))
    if revisions:
        session.flush()
    return revisions


def _held_tool_calls(messages: list[ProducedMessage],
                     team: TeamDefinition) -> list[tuple[ProducedMessage, ToolIntent]]:
    """The calls the agent's approval wrapper held back: the team's approval mode (always, or `when`
    a rule on the arguments matches) decides, as the wrapper did. It did not run such a call, so a
    review must open even when the conversation's gate policy does not list the tool (a call left
    "pending" with no review would wait for ever)."""
    return [(produced, intent) for produced in messages for intent in produced.tool_calls
            if team.holds_back(produced.source, intent.name, intent.arguments)]


def _open_tool_approvals(session: Session, conversation: Conversation, team: TeamDefinition,
                         held: list[tuple[ProducedMessage, ToolIntent]]) -> list[ReviewRequest]:
    """Every call's request is opened before any standing rule decides one: a rule's decision of the
    turn's last open call resumes the conversation with every call of the turn."""
    assert conversation.id is not None  # a stored conversation
    requests = []
    for produced, intent in held:
        call = ToolCall(conversation_id=conversation.id, call_id=fit_with_hash(intent.call_id, CALL_ID_CHARS),
                        tool_name=intent.name,  # a tool of the team, whose names are identifiers
                        arguments=intent.arguments, args_hash=content_hash(intent.arguments),
                        turn=conversation.checkpoint_version)
        session.add(call)
        session.flush()
        requests.append(open_request(
            session, conversation, kind=ReviewKind.TOOL_CALL, role=team.tool_approver, rule="tool",
            reason=f"{produced.source} wants to call {intent.name}",
            subject=Subject(SubjectType.TOOL_CALL, call.id, tool_call_label(session, call), call.args_hash),
            risk_flags=[intent.name],
        ))
    return requests


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
