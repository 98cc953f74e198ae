"""POST /api/conversations/{id}/fork and /replay, GET /api/conversations/{id}/forks."""

from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter, status

from hitl_dashboard.api.deps import CurrentActor
from hitl_dashboard.api.errors import COMMON_RESPONSES, CONFLICT, NOT_FOUND
from hitl_dashboard.api.routes.conversations import conversation_public
from hitl_dashboard.api.schemas.common import IdPath
from hitl_dashboard.api.schemas.conversations import ConversationPublic
from hitl_dashboard.api.schemas.forks import BranchPublic, ForkCreate, ForkTreePublic, ReplayCreate
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.services.conversations import forks

router = APIRouter(prefix="/conversations", tags=["conversations"], responses=COMMON_RESPONSES,
                   route_class=StrictJsonRoute)


@router.post("/{conversation_id}/fork", status_code=status.HTTP_201_CREATED, response_model=ConversationPublic,
             responses={**NOT_FOUND, **CONFLICT})
def fork(conversation_id: IdPath, body: ForkCreate, actor: CurrentActor) -> ConversationPublic:
    """Anyone who may start a conversation: a new conversation from the state after `turn`; you are its
    initiator, so you cannot sign it off. 409 if that turn's state cannot be rebuilt."""
    child = forks.fork(actor, conversation_id, body.turn, instructions=body.instructions,
                       target_agent=body.target_agent, edited_message=body.edited_message)
    return conversation_public(actor, child.id)


@router.post("/{conversation_id}/replay", status_code=status.HTTP_201_CREATED, response_model=ConversationPublic,
             responses={**NOT_FOUND, **CONFLICT})
def replay(conversation_id: IdPath, body: ReplayCreate, actor: CurrentActor) -> ConversationPublic:
    """A new conversation that runs again from the state after `turn` with the input the parent's next
    turn had (new model calls). 409 if no turn followed it."""
    child = forks.replay(actor, conversation_id, body.turn)
    return conversation_public(actor, child.id)


@router.get("/{conversation_id}/forks", response_model=ForkTreePublic, responses=NOT_FOUND)
def fork_tree(conversation_id: IdPath, actor: CurrentActor) -> ForkTreePublic:
    tree = forks.fork_tree(actor, conversation_id)
    return ForkTreePublic(parent=BranchPublic(**asdict(tree.parent)) if tree.parent else None,
                          children=[BranchPublic(**asdict(b)) for b in tree.children])
