"""Approve with my changes: the reviewer's version of what is under review becomes a new code
revision (or message) written by that reviewer, with its own content hash. The approval and the
sign-offs after it bind to that hash; the reviewer counts as its author (they cannot approve it
again); the agents are told exactly what changed (a unified diff) when they next resume.

Steps inside decide's transaction (services/reviews/decide.py): plan_edit checks the reviewer's
version against the request, store_edit writes it once the transcript note exists (the new
revisions belong to that note's message, whose source is the reviewer)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, func
from sqlmodel import Session, col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.code_revisions import add_revisions
from hitl_dashboard.db.models import Conversation, Message, ReviewRequest, TurnCheckpoint
from hitl_dashboard.db.rows import get_existing
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.edits import (
    MESSAGE_KEY,
    Change,
    edits_section,
    normalized_file,
    normalized_message,
    unified_diff,
)
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, MessageKind, SubjectType
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound
from hitl_dashboard.domain.hashing import content_hash, sha256_text
from hitl_dashboard.domain.permissions import Actor, check_can_claim
from hitl_dashboard.domain.revisions import ProposedCode
from hitl_dashboard.services.audit.audit_context import revisions_under_review
from hitl_dashboard.services.reviews.review_requests import Subject, closed_how
from hitl_dashboard.services.transactions import reading

UNCHANGED = "your version is the same as the proposal: approve it as it is"


@dataclass(frozen=True)
class EditableContent:
    """What the editor opens with: the content under review as the request hashed it."""

    review_id: int
    version: int
    content_hash: str
    subject_type: str
    files: tuple[tuple[str, str, str], ...]  # (key, language, text)


def editable_content(actor: Actor, review_id: int, conversation_id: int) -> EditableContent:
    """For a reviewer who may decide the open review `review_id` of this conversation."""
    with reading() as uow:
        request = uow.session.get(ReviewRequest, review_id)
        if request is None or request.conversation_id != conversation_id or not actor.sees(request.workspace_id):
            raise NotFound(f"review request {review_id} is not part of this conversation")
        check_can_claim(actor.within(request.workspace_id, ""), request.required_role)
        if request.status not in OPEN_REVIEW_STATUSES:
            raise Conflict(f"review request {review_id} is closed: {closed_how(uow.session, request)}")
        if request.subject_type == SubjectType.CODE_REVISION:
            files = tuple((r.key, r.language, r.content) for r in revisions_under_review(uow.session, request)[0])
        elif request.subject_type == SubjectType.MESSAGE:
            message = get_existing(uow.session, Message, request.subject_id)
            files = ((MESSAGE_KEY, "markdown", message.content),)
        else:
            raise InvalidInput("a tool call is edited through its arguments", "edited_files")
        return EditableContent(request.id, request.version, request.content_hash, request.subject_type, files)


@dataclass(frozen=True)
class PlannedEdit:
    subject_type: str  # code_revision | message
    files: tuple[tuple[str, str, str], ...]  # (key, language, text), in the order under review
    changes: tuple[Change, ...]
    content_hash: str  # of the reviewer's version, as a review request's subject hashes it


def plan_edit(session: Session, reviewer: str, request: ReviewRequest, decision: DecisionInput) -> PlannedEdit | None:
    """None for a decision without an edit. Refuses a file the review does not cover, an unchanged
    version (a plain approve), and content that no longer matches the request's hash (fail closed)."""
    if decision.edited_files is None and decision.edited_text is None:
        return None
    if request.subject_type == SubjectType.CODE_REVISION:
        return _plan_files(session, reviewer, request, decision)
    if request.subject_type == SubjectType.MESSAGE:
        return _plan_message(session, reviewer, request, decision)
    raise InvalidInput("a tool call is edited through its arguments (edited_args)", "edited_files")


def _plan_files(session: Session, reviewer: str, request: ReviewRequest, decision: DecisionInput) -> PlannedEdit:
    if decision.edited_files is None:
        raise InvalidInput("this review is about files: send your version as edited_files", "edited_text")
    revisions, matches = revisions_under_review(session, request)
    if not matches:
        raise Conflict(f"the files of review request {request.id} no longer match what it was opened on; "
                       "they cannot be edited")
    by_key = {r.key: r for r in revisions}
    unknown = sorted(set(decision.edited_files) - set(by_key))
    if unknown:
        raise InvalidInput(f"{unknown[0][:255]} is not a file of this revision (it has {', '.join(by_key)})",
                           "edited_files")
    files, changes = [], []
    for r in revisions:
        text = normalized_file(decision.edited_files[r.key]) if r.key in decision.edited_files else r.content
        files.append((r.key, r.language, text))
        if text != r.content:
            changes.append(Change(r.key, unified_diff(r.content, text, f"{r.key} r{r.number}",
                                                      f"{r.key} (edited by {reviewer})")))
    if not changes:
        raise InvalidInput(UNCHANGED, "edited_files")
    digest = content_hash(sorted([key, sha256_text(text)] for key, _, text in files))
    return PlannedEdit(SubjectType.CODE_REVISION, tuple(files), tuple(changes), digest)


def _plan_message(session: Session, reviewer: str, request: ReviewRequest, decision: DecisionInput) -> PlannedEdit:
    if decision.edited_text is None:
        raise InvalidInput("this review is about a message: send your version as edited_text", "edited_files")
    message = get_existing(session, Message, request.subject_id)
    if content_hash(message.content) != request.content_hash:
        raise Conflict(f"the message of review request {request.id} no longer matches what it was opened on; "
                       "it cannot be edited")
    text = normalized_message(decision.edited_text)
    if not text:
        raise InvalidInput("the edited message is empty", "edited_text")
    before = normalized_message(message.content)
    if text == before:
        raise InvalidInput(UNCHANGED, "edited_text")
    change = Change(MESSAGE_KEY, unified_diff(before + "\n", text + "\n", f"{MESSAGE_KEY} #{message.seq} by "
                                              f"{message.source}", f"{MESSAGE_KEY} (edited by {reviewer})"))
    return PlannedEdit(SubjectType.MESSAGE, ((MESSAGE_KEY, "markdown", text),), (change,), content_hash(text))


def store_edit(session: Session, actor: Actor, conversation: Conversation, request: ReviewRequest,
               planned: PlannedEdit, note_id: int) -> Subject:
    """The reviewer's version as rows they wrote, audited with both hashes; returns what the next
    sign-off reviews."""
    if planned.subject_type == SubjectType.CODE_REVISION:
        revisions = add_revisions(session, conversation.id, note_id,
                                  [ProposedCode(key, language, text) for key, language, text in planned.files],
                                  author_id=actor.user_id)
        session.flush()
        first = revisions[0]
        label = f"{first.key} r{first.number}" + (f" +{len(revisions) - 1} files" if len(revisions) > 1 else "")
        subject = Subject(SubjectType.CODE_REVISION, first.id, f"{label}, edited by {actor.username}",
                          content_hash(sorted([r.key, r.content_hash] for r in revisions)))
    else:
        edited = Message(conversation_id=conversation.id, workspace_id=conversation.workspace_id,
                     seq=conversation.next_seq, source=actor.username,
                         kind=MessageKind.TEXT, content=planned.files[0][2], author_id=actor.user_id)
        conversation.next_seq += 1
        session.add(edited)
        session.flush()
        subject = Subject(SubjectType.MESSAGE, edited.id, f"message #{edited.seq} by {actor.username} (edited)",
                          content_hash(edited.content))
    assert subject.content_hash == planned.content_hash  # what the approval bound to is what was stored
    append_audit(session, actor=actor.username, actor_role=request.required_role, action="review.edited",
                 conversation_id=conversation.id, review_request_id=request.id, content_hash=subject.content_hash,
                 details={"from_hash": request.content_hash, "to_hash": subject.content_hash,
                          "changed": [c.key for c in planned.changes], "subject": subject.label,
                          "subject_id": subject.id})
    return subject


def authors_of(session: Session, request: ReviewRequest, message_author: int | None) -> frozenset[int]:
    """The people who wrote the content under review (none for an agent's). message_author: a message
    subject's author_id, which decide's locked read brings along (issue 33: one round trip less)."""
    if request.subject_type == SubjectType.CODE_REVISION:
        return frozenset(r.author_id for r in revisions_under_review(session, request)[0] if r.author_id)
    if request.subject_type == SubjectType.MESSAGE:
        return frozenset((message_author,)) if message_author else frozenset()
    return frozenset()


def untold_edits(session: Session, conversation: Conversation) -> list[str]:
    """What people changed since the agents' last turn, oldest first: the edit sections of the
    transcript notes written after it (each says who changed what, as unified diffs). One Core read
    on the session's connection (issue 33): no autoflush of the conversation's pending changes, which
    it does not read (the decision writes them once, at its end)."""
    notes = session.connection().execute(
        _UNTOLD, {"conversation_id": conversation.id, "turn": conversation.checkpoint_version}).scalars().all()
    return [section for section in map(edits_section, notes) if section]


# Built once (issue 33). The transcript after the checkpoint of the conversation's current turn.
_UNTOLD = (
    select(Message.content).where(
        Message.conversation_id == bindparam("conversation_id"), Message.kind == MessageKind.DECISION,
        Message.seq > func.coalesce(
            select(TurnCheckpoint.last_seq).where(TurnCheckpoint.conversation_id == bindparam("conversation_id"),
                                                  TurnCheckpoint.turn == bindparam("turn")).scalar_subquery(), 0))
    .order_by(col(Message.seq))
)
