"""What an audit event was about: for review and decision events, the exact content that was
under review at the event's content hash (code revisions, a message, or tool call arguments).

Answers "who approved this, and what exactly did they see?". The content is re-hashed here, so
the page can say whether what is shown is byte for byte what the hash in the chain covers."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from sqlmodel import Session, col, select

from hitl_dashboard.db.models import AuditEvent, CodeRevision, Message, ReviewRequest, ToolCall
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.enums import Role, SubjectType
from hitl_dashboard.domain.errors import NotFound
from hitl_dashboard.domain.hashing import content_hash
from hitl_dashboard.domain.permissions import Actor, check_can_read_audit
from hitl_dashboard.services.transactions import reading

# A code review covers the revisions one turn produced (one per file); never more than this.
MAX_FILES_PER_REVIEW = 100


@dataclass(frozen=True)
class ContentPart:
    title: str
    language: str
    text: str


@dataclass(frozen=True)
class ReviewedContent:
    review_request_id: int
    subject_type: str
    subject_label: str
    required_role: str
    content_hash: str
    hash_matches: bool
    parts: list[ContentPart] = field(default_factory=list)


@dataclass(frozen=True)
class EventContext:
    event: AuditEvent
    reviewed: ReviewedContent | None


def event_context(actor: Actor, seq: int) -> EventContext:
    check_can_read_audit(actor)
    with reading() as uow:
        event = uow.session.exec(select(AuditEvent).where(AuditEvent.seq == seq)).first()
        managed = None if actor.is_admin else actor.workspaces_with(Role.MANAGER.value)
        if event is None or (managed is not None and event.workspace_id not in managed):
            raise NotFound(f"audit event {seq} does not exist")
        reviewed = None
        if event.review_request_id is not None:
            request = uow.session.get(ReviewRequest, event.review_request_id)
            if request is not None:
                reviewed = _reviewed_content(uow, request, event.details or {})
        return EventContext(event, reviewed)


def _reviewed_content(uow: UnitOfWork, request: ReviewRequest, details: dict) -> ReviewedContent:
    if request.subject_type == SubjectType.CODE_REVISION:
        parts, matches = _revision_parts(uow, request)
    elif request.subject_type == SubjectType.MESSAGE:
        parts, matches = _message_parts(uow, request)
    else:
        parts, matches = _tool_call_parts(uow, request, details)
    if details.get("to_hash") and details.get("subject_id"):  # review.edited: the reviewer's version too
        parts += _edited_parts(uow.session, request, int(details["subject_id"]), str(details["to_hash"]))
    return ReviewedContent(request.id, request.subject_type, request.subject_label, request.required_role,
                           request.content_hash, matches, parts)


def _revision_parts(uow: UnitOfWork, request: ReviewRequest) -> tuple[list[ContentPart], bool]:
    revisions, matches = revisions_under_review(uow.session, request)
    return [_revision_part(r) for r in revisions], matches


def revisions_under_review(session: Session, request: ReviewRequest) -> tuple[list[CodeRevision], bool]:
    """The request names the first revision of its turn and hashes all of them together
    (services/turns._subject_for): take revisions from that one on until the hash matches."""
    return revision_set(session, request.conversation_id, request.subject_id, request.content_hash)


def revision_set(session: Session, conversation_id: int, first_id: int, digest: str) -> tuple[list[CodeRevision], bool]:
    candidates = list(session.exec(
        select(CodeRevision)
        .where(CodeRevision.conversation_id == conversation_id, CodeRevision.id >= first_id)
        .order_by(col(CodeRevision.id)).limit(MAX_FILES_PER_REVIEW)
    ))
    for end in range(1, len(candidates) + 1):
        chosen = candidates[:end]
        if content_hash(sorted([r.key, r.content_hash] for r in chosen)) == digest:
            return chosen, True
    # Not found (should not happen): the named revision, and the hash does not match.
    return candidates[:1], False


def _revision_part(revision: CodeRevision) -> ContentPart:
    return ContentPart(f"{revision.key} (revision {revision.number})", revision.language or "text", revision.content)


def _edited_parts(session: Session, request: ReviewRequest, subject_id: int, digest: str) -> list[ContentPart]:
    """What the reviewer approved instead ("approve with my changes"), found by its own hash."""
    if request.subject_type == SubjectType.CODE_REVISION:
        revisions, found = revision_set(session, request.conversation_id, subject_id, digest)
        return [ContentPart(f"{r.key} (revision {r.number}, as edited by the reviewer)", r.language or "text",
                            r.content) for r in revisions] if found else []
    message = session.get(Message, subject_id)
    if message is None or content_hash(message.content) != digest:
        return []
    return [ContentPart(f"message #{message.seq}, as edited by {message.source}", "markdown", message.content)]


def _message_parts(uow: UnitOfWork, request: ReviewRequest) -> tuple[list[ContentPart], bool]:
    message = uow.session.get(Message, request.subject_id)
    if message is None:
        return [], False
    part = ContentPart(f"message #{message.seq} by {message.source}", "markdown", message.content)
    return [part], content_hash(message.content) == request.content_hash


def _tool_call_parts(uow: UnitOfWork, request: ReviewRequest, details: dict) -> tuple[list[ContentPart], bool]:
    call = uow.session.get(ToolCall, request.subject_id)
    if call is None:
        return [], False
    parts = [ContentPart(f"{call.tool_name}: arguments requested by the agent", "json", _pretty(call.arguments))]
    edited = details.get("edited_args")
    if edited is not None and edited != call.arguments:
        parts.append(ContentPart(f"{call.tool_name}: arguments as edited by the reviewer", "json", _pretty(edited)))
    return parts, content_hash(call.arguments) == request.content_hash


def _pretty(value) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)

