"""One conversation taken out of the app: its transcript, code revisions, review requests,
decisions, tool calls and the audit events that concern it, as one JSON-ready document (read in
one transaction, so the parts agree) and as Markdown (transcript_markdown.py).

Every signed-in user may read every conversation, so everyone may export one; the audit events
are included only for those who may read the audit trail (managers, admins, the operator at the
CLI), as on the audit page."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from hitl_dashboard.db.lookups import load_conversation
from hitl_dashboard.db.models import AuditEvent, CodeRevision, Decision, Message, ReviewRequest, ToolCall, User
from hitl_dashboard.domain.errors import NotFound, PermissionDenied
from hitl_dashboard.domain.permissions import Actor, check_can_read_audit
from hitl_dashboard.services.conversations.conversation_page import WHOLE_TRANSCRIPT
from hitl_dashboard.services.conversations.conversation_queries import load_messages, transcript_pages
from hitl_dashboard.services.transactions import reading

EXPORT_VERSION = 1


def message_anchor(seq: int) -> str:
    """The fragment that names one message on the conversation page and in the Markdown export."""
    return f"message-{seq}"


def export_conversation(actor: Actor | None, conversation_id: int, *, public_url: str = "",
                        stream_messages: bool = False) -> dict[str, Any]:
    """NotFound for an unknown conversation. `public_url` makes the message links absolute.
    stream_messages: "messages" is an iterator that reads the transcript a page at a time, each page
    its own short read, up to the last message stored when the rest was read (memory does not grow
    with the transcript: the Markdown download streams it, api/routes/exports.py)."""
    with reading() as uow:
        session = uow.session
        c = load_conversation(session, conversation_id, actor)
        with_audit = _may_read_audit(actor, c.workspace_id)
        page = f"{public_url.rstrip('/')}/conversations/{conversation_id}"
        if stream_messages:
            last_seq = session.exec(select(func.max(Message.seq))
                                    .where(Message.conversation_id == conversation_id)).one()
            messages: Iterable[dict] = _streamed(actor, conversation_id, int(last_seq or 0), page)
            seq_of = _revision_message_seqs(session, conversation_id)
        else:
            rows = load_messages(session, conversation_id, actor, limit=WHOLE_TRANSCRIPT)
            messages, seq_of = [_message(m, page) for m in rows], {m.id: m.seq for m in rows}
        names = _usernames(session)
        document = {
            "export_version": EXPORT_VERSION,
            "conversation": {
                "id": c.id, "title": c.title, "task": c.task, "task_type": c.task_type, "template": c.template,
                "status": c.status, "status_reason": c.status_reason, "initiator": names.get(c.initiator_id),
                "prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens,
                "created_at": _at(c.created_at), "updated_at": _at(c.updated_at), "url": page,
            },
            "messages": messages,
            "revisions": _revisions(session, conversation_id, seq_of),
            "reviews": _reviews(session, conversation_id, names),
            "decisions": _decisions(session, conversation_id, names),
            "tool_calls": _tool_calls(session, conversation_id),
            "audit_events": _audit_events(session, conversation_id) if with_audit else None,
        }
    return document


def _message(m: Message, page: str) -> dict:
    return {"seq": m.seq, "source": m.source, "kind": m.kind, "content": m.content,
            "prompt_tokens": m.prompt_tokens, "completion_tokens": m.completion_tokens, "model": m.model,
            "created_at": _at(m.created_at), "anchor": message_anchor(m.seq), "url": f"{page}#{message_anchor(m.seq)}"}


def _streamed(actor: Actor | None, conversation_id: int, last_seq: int, page: str) -> Iterator[dict]:
    for rows in transcript_pages(actor, conversation_id):
        for m in rows:
            if m.seq > last_seq:  # stored after the rest of the export was read
                return
            yield _message(m, page)


def _revision_message_seqs(session: Session, conversation_id: int) -> dict[int, int]:
    """The seq of each message a revision came from (its message id -> seq), without the transcript."""
    rows = session.exec(select(Message.id, Message.seq).join(CodeRevision, col(CodeRevision.message_id) == Message.id)
                        .where(CodeRevision.conversation_id == conversation_id))
    return dict(rows.all())


def _may_read_audit(actor: Actor | None, workspace_id: int) -> bool:
    """A manager of the conversation's workspace (or the instance admin) reads its audit events."""
    if actor is None:
        return True
    try:
        check_can_read_audit(actor.within(workspace_id, ""))
    except (PermissionDenied, NotFound):
        return False
    return True


def _at(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _usernames(session: Session) -> dict[int, str]:
    return {user_id: name for user_id, name in session.exec(select(User.id, User.username))}


def _revisions(session: Session, conversation_id: int, seq_of: dict[int, int]) -> list[dict]:
    rows = session.exec(select(CodeRevision).where(CodeRevision.conversation_id == conversation_id)
                        .order_by(CodeRevision.key, col(CodeRevision.number)))
    return [{"id": r.id, "key": r.key, "number": r.number, "language": r.language, "content": r.content,
             "content_hash": r.content_hash, "message_seq": seq_of.get(r.message_id), "created_at": _at(r.created_at)}
            for r in rows]


def _reviews(session: Session, conversation_id: int, names: dict[int, str]) -> list[dict]:
    rows = session.exec(select(ReviewRequest).where(ReviewRequest.conversation_id == conversation_id)
                        .order_by(col(ReviewRequest.id)))
    return [{"id": r.id, "kind": r.kind, "required_role": r.required_role, "rule": r.rule, "reason": r.reason,
             "risk_flags": r.risk_flags, "subject": r.subject_label, "content_hash": r.content_hash,
             "status": r.status, "assignee": names.get(r.assignee_id) if r.assignee_id else None,
             "due_at": _at(r.due_at), "created_at": _at(r.created_at), "closed_at": _at(r.closed_at),
             "escalated_from_id": r.escalated_from_id}
            for r in rows]


def _decisions(session: Session, conversation_id: int, names: dict[int, str]) -> list[dict]:
    rows = session.exec(select(Decision).where(Decision.conversation_id == conversation_id).order_by(col(Decision.id)))
    return [{"id": d.id, "review_id": d.review_request_id, "action": d.action, "reviewer": _decided_by(d, names),
             "role": d.role, "reason": d.reason, "instructions": d.instructions, "target_agent": d.target_agent,
             "edited_args": d.edited_args, "line_comments": d.line_comments, "is_override": d.is_override,
             "override_reason": d.override_reason, "content_hash": d.content_hash, "created_at": _at(d.created_at)}
            for d in rows]


def _tool_calls(session: Session, conversation_id: int) -> list[dict]:
    rows = session.exec(select(ToolCall).where(ToolCall.conversation_id == conversation_id).order_by(col(ToolCall.id)))
    return [{"id": t.id, "tool": t.tool_name, "arguments": t.arguments, "approved_arguments": t.approved_arguments,
             "status": t.status, "result": t.result, "executed_at": _at(t.executed_at), "created_at": _at(t.created_at)}
            for t in rows]


def _audit_events(session: Session, conversation_id: int) -> list[dict]:
    rows = session.exec(select(AuditEvent).where(AuditEvent.conversation_id == conversation_id)
                        .order_by(col(AuditEvent.seq)))
    return [{**e.payload(), "hash": e.hash} for e in rows]


def _decided_by(decision: Decision, names: dict[int, str]) -> str | None:
    """A standing rule's decision has no reviewer: it is named as the rule (domain/standing_rules)."""
    if decision.reviewer_id is None:
        return f"rule:{decision.rule_id}"
    return names.get(decision.reviewer_id)
