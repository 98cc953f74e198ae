"""Rows by id for the steps of every service group: the row, or NotFound with the id. Here, below
services/, so that a group reads a conversation or a review request without importing the group
that owns its use cases (services/ is a stack: pyproject.toml's "services groups form a stack")."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import Session, col, select

from hitl_dashboard.db.models import Conversation, ReviewRequest, ToolCall, without_checkpoint
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import NotFound
from hitl_dashboard.domain.permissions import Actor


def load_conversation(session: Session, conversation_id: int, actor: Actor | None) -> Conversation:
    """Step: the conversation without its checkpoint, or NotFound: also when it is in a workspace
    `actor` is not in (issue 41: as if it did not exist). actor None: the system (runner, CLI)."""
    conversation = session.get(Conversation, conversation_id, options=without_checkpoint())
    if conversation is None or (actor is not None and not actor.sees(conversation.workspace_id)):
        raise NotFound(f"conversation {conversation_id} does not exist")
    return conversation


def get_request(uow: UnitOfWork, review_id: int, actor: Actor) -> tuple[ReviewRequest, Actor]:
    """The review request and `actor` bound to its workspace (the roles that count on it), or
    NotFound, also when it is in a workspace the actor is not in."""
    assert uow.session is not None  # called inside the unit of work's block
    request = uow.session.get(ReviewRequest, review_id)
    missing = f"review request {review_id} does not exist"
    if request is None:
        raise NotFound(missing)
    return request, actor.within(request.workspace_id, missing)


def tool_call_label(session: Session, call: ToolCall) -> str:
    """How a reviewer names a stored tool call: "deploy_to_prod (call 1)" for the conversation's first,
    counted within the conversation (the row's id counts every conversation's calls)."""
    number = session.exec(select(func.count()).select_from(ToolCall).where(
        col(ToolCall.conversation_id) == call.conversation_id, col(ToolCall.id) <= call.id)).one()
    return f"{call.tool_name} (call {number})"
