"""An external request as reviewers see it on its conversation's page: who asked (the token's
user and the token's name), the link back to their run, the context (markdown, untrusted: the
page renders it sanitized) and what the caller reported as run."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, select

from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.models import User
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.transactions import reading


@dataclass(frozen=True)
class ExternalDetails:
    caller: str
    token_name: str
    request_id: str
    kind: str
    link: str | None
    context: str | None
    result_status: str | None


def external_details(actor: Actor | None, conversation_id: int) -> ExternalDetails | None:
    """None for a conversation that is not an external request. Every signed-in user may read
    every conversation (as conversation_page); the edges check the user is signed in."""
    with reading() as uow:
        assert uow.session is not None
        found = uow.session.exec(
            select(ExternalRequest, User.username).join(User, col(User.id) == col(ExternalRequest.caller_id))
            .where(ExternalRequest.conversation_id == conversation_id)
        ).first()
    if found is None:
        return None
    row, caller = found
    return ExternalDetails(caller, row.token_name, row.caller_request_id, row.kind, row.link, row.context,
                           row.result_status)
