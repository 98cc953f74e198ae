"""Record a reviewer's decision and apply it: exactly once, or a clear conflict.

`decide` is the use case (its own transaction, then the live push); `record_decision` is the same
work inside a caller's transaction, for tests that look at what a rollback leaves behind."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from sqlalchemy import Row, bindparam, exists, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col, select

from hitl_dashboard.agents.tools import validate_tool_args
from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import (
    Conversation,
    Decision,
    Message,
    ReviewRequest,
    ToolCall,
    utcnow,
    without_checkpoint,
)
from hitl_dashboard.db.questions_models import ReviewQuestion
from hitl_dashboard.db.rows import get_existing, insert_row, one_of, table_of, write_changes
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.decisions import DecisionInput, validate_decision
from hitl_dashboard.domain.enums import (
    OPEN_REVIEW_STATUSES,
    Action,
    ConversationStatus,
    ReviewKind,
    ReviewStatus,
    SubjectType,
)
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound
from hitl_dashboard.domain.permissions import Actor, check_can_decide
from hitl_dashboard.domain.revise_message import revise_message
from hitl_dashboard.domain.signoff import next_role
from hitl_dashboard.services.external_outcomes.args_schema import validate_external_edit
from hitl_dashboard.services.external_outcomes.outcomes import conversation_settled, end_status, is_external
from hitl_dashboard.services.findings.queries import findings_details
from hitl_dashboard.services.live import live
from hitl_dashboard.services.questions.questions import questions_details
from hitl_dashboard.services.reviews.decision_notes import transcript_note
from hitl_dashboard.services.reviews.edits import authors_of, plan_edit, store_edit, untold_edits
from hitl_dashboard.services.reviews.review_requests import (
    Subject,
    closed_how,
    dismiss_open_requests,
    open_request,
    signoff_approvals,
    touch_queue,
    touched_queues,
)
from hitl_dashboard.services.reviews.suggestion_pins import pin_suggestions, suggestions_details
from hitl_dashboard.services.reviews.tool_decisions import cancel_pending_calls, record_tool_decision
from hitl_dashboard.services.rules.evidence import observe_human_decision
from hitl_dashboard.services.teams import web_policy
from hitl_dashboard.services.teams.versions import pinned
from hitl_dashboard.services.transactions import transaction
from hitl_dashboard.services.webhooks import webhooks


@dataclass(frozen=True)
class DecisionOutcome:
    decision_id: int
    review_request_id: int
    conversation_id: int
    action: str
    conversation_status: str
    next_review_id: int | None
    replayed: bool = False
    # The roles whose queues this decision changed (the decided request's, dismissed and new ones).
    queue_roles: tuple[str, ...] = ()


def decide(actor: Actor, review_id: int, decision: DecisionInput, *,
           conversation_id: int | None = None) -> DecisionOutcome:
    """Decide a review request. With conversation_id (the page the reviewer decided on), a request of
    another conversation is not found: a form never acts on a review it did not show."""
    with transaction() as uow:
        # Held to the commit: the session keeps loaded objects weakly, and the decision metric reads
        # the request's age when the audit event is flushed (at the commit), with no second query.
        request, conversation, read = _request_and_locked_conversation(uow, review_id)
        if conversation_id is not None and request.conversation_id != conversation_id:
            raise NotFound(f"review request {review_id} is not part of this conversation")
        outcome = _record(uow, actor, request, conversation, decision, read=read)
    # Browsers on the conversation and on the queues it changed (a replay changed nothing new).
    live.publish_turn(outcome.conversation_id, outcome.queue_roles)
    return outcome


def record_decision(uow: UnitOfWork, actor: Actor, review_id: int, decision: DecisionInput) -> DecisionOutcome:
    request, conversation, read = _request_and_locked_conversation(uow, review_id)
    return _record(uow, actor, request, conversation, decision, read=read)


# Built once (issue 33: building it cost a third of its run).
_LOCKED_REQUEST = (
    select(ReviewRequest, Conversation,
           exists().where(col(ReviewQuestion.review_request_id) == ReviewRequest.id).label("asked"),
           # A message subject's author (authors_of), in the same round trip.
           select(Message.author_id).where(col(Message.id) == ReviewRequest.subject_id,
                                           ReviewRequest.subject_type == SubjectType.MESSAGE)
           .scalar_subquery().label("message_author"))
    .join(Conversation, col(Conversation.id) == ReviewRequest.conversation_id)
    .where(ReviewRequest.id == bindparam("review_id")).options(*without_checkpoint())
    .with_for_update(of=Conversation).execution_options(populate_existing=True)
)


def _request_and_locked_conversation(uow: UnitOfWork, review_id: int) -> tuple[ReviewRequest, Conversation, Row]:
    """Both in one round trip, and whether anyone asked the agents a question on the review (most
    reviews have none: their decision then needs no read of the questions) and a message subject's
    author (the row's `asked` and `message_author`). Decisions on one
    conversation take turns (PostgreSQL: FOR UPDATE on its row; SQLite: BEGIN IMMEDIATE already
    holds the write lock). Two reviewers deciding the parallel calls of one turn must each see the
    other's decision, or neither would resume the team; and the transcript note takes the
    conversation's next seq. The request may have changed while this waited for the lock: the
    conditional UPDATE in _record finds out."""
    found = uow.session.execute(_LOCKED_REQUEST, {"review_id": review_id}).first()
    if found is None:
        raise NotFound(f"review request {review_id} does not exist")
    return found[0], found[1], found


def _record(uow: UnitOfWork, actor: Actor, request: ReviewRequest, conversation: Conversation,
            decision: DecisionInput, *, read: Row) -> DecisionOutcome:
    """read: the locked read's row (whether a question was asked, a message subject's author)."""
    review_id = request.id
    # The roles held in the request's workspace decide; not a member there: it does not exist.
    actor = actor.within(request.workspace_id, f"review request {review_id} does not exist")
    agents = pinned(conversation).agent_names
    validate_decision(decision, kind=ReviewKind(request.kind), agents=agents)
    authors = (authors_of(uow.session, request, read.message_author) if decision.action in (Action.APPROVE, Action.SKIP)
               else frozenset[int]())
    is_override = check_can_decide(
        actor, required_role=request.required_role, initiator_id=conversation.initiator_id,
        action=decision.action, override_reason=decision.override_reason, author_ids=authors,
    )
    fingerprint = decision.fingerprint(review_id)
    try:
        _check_open(uow, actor, request, decision)
    except Conflict:
        # A replay (after the permission checks: it must not bypass them) finds its request closed
        # or changed by its own first attempt, and gets that attempt's outcome. A replay that finds
        # the request still open (a sign-off skip leaves it pending) is caught by the unique key
        # when its row is inserted, below; so the usual decision needs no lookup of the key first.
        earlier = _earlier(uow, decision.idempotency_key, fingerprint, actor)
        if earlier is not None:
            return earlier
        raise
    decision = replace(decision, line_comments=pin_suggestions(uow.session, conversation.id, decision.line_comments))
    if is_external(conversation) and (decision.edited_files is not None or decision.edited_text is not None):
        # The caller outside gets an outcome, not content: it would go on with its own version.
        raise InvalidInput("an external request's content belongs to its caller: approve it, or ask for a "
                           "revision", "edited_files")
    planned = plan_edit(uow.session, actor.username, request, decision)
    approved_hash = planned.content_hash if planned else request.content_hash  # an edit binds to its own
    edited = None
    if decision.edited_args is not None:
        tool_call = get_existing(uow.session, ToolCall, request.subject_id)
        edited = (validate_external_edit(uow.session, conversation.id, decision.edited_args)
                  if is_external(conversation) else _validated_edit(uow, conversation, tool_call, decision.edited_args))
        edited = None if edited == tool_call.arguments else edited  # unchanged is not an edit
    new_status = ReviewStatus.PENDING if _is_signoff_skip(request, decision) else ReviewStatus.DECIDED
    closed = {"status": new_status, "version": request.version + 1, "assignee_id": None,
              "closed_at": utcnow() if new_status == ReviewStatus.DECIDED else None}
    # A Core UPDATE on the session's connection: the ORM's would also look through the session for
    # the rows it changed (a fifth of this function's CPU). The one it changes is `request`, whose
    # new values are set below as loaded ones (the webhook and the metrics read them).
    result = uow.session.connection().execute(
        CLOSE_REQUEST, {**closed, "request_id": review_id, "seen_version": request.version})
    if result.rowcount == 1:
        for name, value in closed.items():
            set_committed_value(request, name, value)
    else:
        # A retry of the same decision that lost the race to its own first attempt (PostgreSQL: the
        # UPDATE waited for that commit, and this statement-level snapshot now sees its row).
        earlier = _earlier(uow, decision.idempotency_key, fingerprint, actor)
        if earlier is not None:
            return earlier
        uow.session.refresh(request)
        raise Conflict(f"review request {review_id} was closed a moment ago: {closed_how(uow.session, request)}")
    # The rows a decision writes are Core INSERTs and UPDATEs of plain values (issue 33: the ORM's
    # objects and flushes cost more than the statements); what they hold is decided above and below.
    row = dict(
        review_request_id=review_id, conversation_id=conversation.id, action=decision.action,
        reason=decision.reason, instructions=decision.instructions, target_agent=decision.target_agent,
        edited_args=edited, line_comments=[asdict(c) for c in decision.line_comments] or None,
        reviewer_id=actor.user_id, role=request.required_role, is_override=is_override,
        override_reason=decision.override_reason if is_override else None,
        content_hash=approved_hash, idempotency_key=decision.idempotency_key,
        request_fingerprint=fingerprint if decision.idempotency_key else None, created_at=utcnow(),
    )
    try:
        decision_id = insert_row(uow.session, Decision, row)
    except IntegrityError:
        # Same idempotency key raced in from another request: the first one wins.
        uow.rollback()
        earlier = _earlier(uow, decision.idempotency_key, fingerprint, actor)
        if earlier is None:
            raise Conflict("this decision conflicted with another one; reload and try again") from None
        return earlier
    append_audit(
        uow.session, actor=actor.username, actor_role=request.required_role,
        action="decision.override" if is_override else "decision.recorded",
        conversation_id=conversation.id, review_request_id=review_id, content_hash=approved_hash,
        details={"action": decision.action, "reason": decision.reason, "instructions": decision.instructions,
                 **({"edited_from_hash": request.content_hash} if planned else {}),
                 "target_agent": decision.target_agent, "edited_args": edited,
                 "override_reason": row["override_reason"], "decision_id": decision_id,
                 **findings_details(uow.session, request), **suggestions_details(decision.line_comments),
                 **(questions_details(uow.session, request) if read.asked else {})},
    )
    note_id = transcript_note(uow.session, conversation, actor, request, decision, is_override, edited, planned)
    subject = (store_edit(uow.session, actor, conversation, request, planned, note_id) if planned else
               Subject(request.subject_type, request.subject_id, request.subject_label, request.content_hash))
    webhooks.review_decided(uow.session, decision_id, row, request, conversation, actor.username)
    next_review = _apply(uow, actor, conversation, request, decision, edited, subject)
    observe_human_decision(uow.session, conversation, request, decision.action, edited,  # standing rules' evidence
                           content_edited=planned is not None)
    conversation.updated_at = utcnow()
    write_changes(uow.session, conversation)
    touch_queue(uow.session, request.required_role)
    return DecisionOutcome(decision_id, review_id, conversation.id, decision.action, conversation.status,
                           next_review.id if next_review else None, queue_roles=touched_queues(uow.session))


# Built once, as the locked read (issue 33); the SET clause is the columns named in the parameters.
CLOSE_REQUEST = update(table_of(ReviewRequest)).where(
    col(ReviewRequest.id) == bindparam("request_id"), col(ReviewRequest.version) == bindparam("seen_version"),
    one_of(col(ReviewRequest.status), OPEN_REVIEW_STATUSES))


def _earlier(uow: UnitOfWork, key: str | None, fingerprint: str, actor: Actor) -> DecisionOutcome | None:
    """The decision this reviewer already made with this key, if the request is the same one (None
    without a key). Keys are per reviewer: another user's key is none of our business and is never named."""
    if not key:
        return None
    row = uow.session.exec(
        select(Decision).where(Decision.reviewer_id == actor.user_id, Decision.idempotency_key == key)
    ).first()
    if row is None:
        return None
    if row.request_fingerprint is not None and row.request_fingerprint != fingerprint:
        raise InvalidInput(f"Idempotency-Key '{key}' was already used for a different request; "
                           "send a new key for a new decision", "idempotency_key")
    conversation = get_existing(uow.session, Conversation, row.conversation_id, options=without_checkpoint())
    now_open = uow.session.exec(
        select(ReviewRequest.id).where(ReviewRequest.conversation_id == row.conversation_id,
                                       col(ReviewRequest.status).in_(OPEN_REVIEW_STATUSES))
        .order_by(col(ReviewRequest.id)).limit(1)
    ).first()
    return DecisionOutcome(row.id, row.review_request_id, row.conversation_id, row.action, conversation.status,
                           now_open, True)


def _validated_edit(uow: UnitOfWork, conversation: Conversation, tool_call: ToolCall, edited_args: object) -> dict:
    """The edited arguments, checked against the tool's schema: which imports its function, or reads
    an MCP server (starting a stdio one) in this web worker. So first the check the runner makes: a
    version saved from the web that names what the operator no longer allows is refused here, with
    nothing of it imported or started (services/teams/web_policy.py)."""
    team = pinned(conversation)
    web_policy.check_run(uow.session, conversation.team_version_id, team, "edited_args")
    return validate_tool_args(team, tool_call.tool_name, edited_args)


def _check_open(uow: UnitOfWork, actor: Actor, request: ReviewRequest, decision: DecisionInput) -> None:
    if request.status not in OPEN_REVIEW_STATUSES:
        raise Conflict(f"review request {request.id} is closed: {closed_how(uow.session, request)}")
    if decision.expected_content_hash is not None and decision.expected_content_hash != request.content_hash:
        raise Conflict(f"review request {request.id} is about other content than the one you were shown; reload it")
    if decision.expected_version is not None and decision.expected_version != request.version:
        raise Conflict(
            f"review request {request.id} changed (version {request.version}, you saw {decision.expected_version});"
            " reload it"
        )
    if request.status == ReviewStatus.CLAIMED and request.assignee_id != actor.user_id and not actor.is_admin:
        raise Conflict(f"review request {request.id} is claimed by another reviewer")


def _is_signoff_skip(request: ReviewRequest, decision: DecisionInput) -> bool:
    return decision.action == Action.SKIP and request.kind == ReviewKind.SIGNOFF


def _apply(uow, actor: Actor, conversation: Conversation, request: ReviewRequest,
           decision: DecisionInput, edited: dict | None, subject: Subject) -> ReviewRequest | None:
    """subject: what was approved (the reviewer's version after an edit, else the request's)."""
    session = uow.session
    if decision.action == Action.ABORT:
        with session.no_autoflush:  # as for a revision, below
            dismiss_open_requests(session, conversation.id, actor=actor.username, why="conversation aborted")
        cancel_pending_calls(session, conversation.id, why=f"the conversation was aborted by {actor.username}")
        set_conversation_status(session, conversation, ConversationStatus.ABORTED, decision.reason, actor)
        return None
    if request.kind == ReviewKind.TOOL_CALL:
        why = decision.instructions or decision.reason
        record_tool_decision(session, actor, conversation, request, decision.action, why, edited)
        if is_external(conversation):  # no agents to resume: the caller gets the outcome
            set_conversation_status(session, conversation, end_status(decision.action),
                                    f"{decision.action} by {actor.username}" + (f": {why}" if why else ""), actor)
        return None
    if decision.action == Action.REVISE:
        # The only change not yet written is the conversation's (its next seq), which the query of its
        # open requests does not read: no autoflush, so _record writes the conversation once, at its end.
        with session.no_autoflush:
            dismiss_open_requests(session, conversation.id, actor=actor.username, why="revision requested")
        if is_external(conversation):  # the caller revises and asks again
            set_conversation_status(session, conversation, ConversationStatus.ABORTED,
                        f"revision requested by {actor.username}: {decision.instructions or ''}".strip(), actor)
            return None
        target = decision.target_agent or pinned(conversation).producer(conversation.task_type)
        message = revise_message(target=target, instructions=decision.instructions,
                                 line_comments=decision.line_comments, reviewer=actor.username,
                                 role=request.required_role)
        _resume(session, conversation, request.required_role, message)
        return None
    if request.kind == ReviewKind.GATE:  # approve or skip: the agents go on
        verb = "APPROVED" if decision.action == Action.APPROVE else "SKIPPED review"
        _resume(session, conversation, request.required_role, f"{verb} by {actor.username}: continue.")
        return None
    if decision.action == Action.SKIP:  # a sign-off skip put the request back in the queue
        return None
    following = advance_sign_off(session, conversation, request, subject, actor)
    if following is None:
        return None
    # Imported here: the rules' gate records its decisions through this module's steps.
    from hitl_dashboard.services.rules.sign_off_gate import decide_sign_off_by_rules
    return decide_sign_off_by_rules(session, conversation, following)  # the team may let a rule take it


def advance_sign_off(session, conversation: Conversation, request: ReviewRequest, subject: Subject,
                     actor: Actor) -> ReviewRequest | None:
    """A sign-off step was approved (by a person, or by a standing rule the team allows): the chain's
    next role's request opens, bound to the approved content; or, every role having approved it,
    the conversation is approved. The new request, or None."""
    approvals = signoff_approvals(session, conversation.id)
    role = next_role(pinned(conversation).sign_off(conversation.task_type), approvals, subject.content_hash)
    if role is None:
        set_conversation_status(session, conversation, ConversationStatus.APPROVED, "every required role approved",
                                actor)
        return None
    return open_request(
        session, conversation, kind=ReviewKind.SIGNOFF, role=role, rule="signoff",
        reason=f"sign-off after {request.required_role} approved",
        subject=subject, risk_flags=list(request.risk_flags), actor=actor.username,
    )


def _resume(session, conversation: Conversation, source: str, content: str) -> None:
    """The agents go on with `content`, told first what people changed since their last turn."""
    content = "\n\n".join([*untold_edits(session, conversation), content])
    conversation.next_input = {"source": source, "content": content}
    conversation.status, conversation.status_reason = ConversationStatus.RUNNING, None
    conversation.turns_since_review = 0


def set_conversation_status(session, conversation: Conversation, status: str, reason: str | None, actor: Actor) -> None:
    conversation.status, conversation.status_reason = status, reason
    conversation.next_input = None
    append_audit(session, actor=actor.username, action=f"conversation.{status}", conversation_id=conversation.id,
                 details={"reason": reason})
    webhooks.conversation_finished(session, conversation)
    conversation_settled(session, conversation)
