"""A conversation's transcript (paged, or streamed as JSONL), its code revisions and their diff."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from hitl_dashboard.api.deps import CurrentActor
from hitl_dashboard.api.errors import COMMON_RESPONSES, NOT_FOUND, Responses
from hitl_dashboard.api.schemas.common import MAX_ID, IdPath, Limit, Seq
from hitl_dashboard.api.schemas.conversations import (
    MessagePublic,
    RevisionDiffPublic,
    RevisionPublic,
    RevisionWithContentPublic,
    TranscriptPage,
)
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.conversations import conversation_queries, revisions

router = APIRouter(prefix="/conversations/{conversation_id}", tags=["transcripts"],
                   responses={**COMMON_RESPONSES, **NOT_FOUND}, route_class=StrictJsonRoute)
JSONL_DOC: Responses = {
    200: {"content": {"application/x-ndjson": {}}, "description": "with format=jsonl: one message per line"}}


@router.get("/transcript", response_model=TranscriptPage, responses=JSONL_DOC)
def transcript(
    conversation_id: IdPath, actor: CurrentActor, after_seq: Seq = 0, limit: Limit = 100,
    format: Annotated[Literal["json", "jsonl"], Query()] = "json",
):
    """Messages after `after_seq`, oldest first. format=jsonl streams every remaining message."""
    page = conversation_queries.transcript(actor, conversation_id, after_seq=after_seq, limit=limit)  # 404 first
    if format == "jsonl":
        return StreamingResponse(_jsonl(actor, conversation_id, after_seq), media_type="application/x-ndjson")
    items = [MessagePublic.model_validate(m) for m in page]
    return TranscriptPage(items=items, next_after_seq=items[-1].seq if len(items) == limit else None)


def _jsonl(actor: Actor, conversation_id: int, after_seq: int) -> Iterator[str]:
    for page in conversation_queries.transcript_pages(actor, conversation_id, after_seq=after_seq):
        for message in page:
            yield MessagePublic.model_validate(message).model_dump_json() + "\n"


@router.get("/revisions", response_model=list[RevisionPublic])
def list_revisions(conversation_id: IdPath, actor: CurrentActor) -> list[RevisionPublic]:
    """Every proposed file version, by key then number (content via /diff)."""
    return [RevisionPublic.model_validate(r) for r in revisions.list_revisions(actor, conversation_id)]


@router.get("/diff", response_model=RevisionDiffPublic)
def diff(
    conversation_id: IdPath, actor: CurrentActor,
    from_id: Annotated[int, Query(alias="from", ge=1, le=MAX_ID, description="revision id (see /revisions)")],
    to_id: Annotated[int, Query(alias="to", ge=1, le=MAX_ID, description="revision id (see /revisions)")],
) -> RevisionDiffPublic:
    """Unified diff between two revisions of this conversation, named by revision id, with both contents."""
    found = revisions.revision_diff(actor, conversation_id, from_id, to_id)
    return RevisionDiffPublic(
        before=RevisionWithContentPublic.model_validate(found.before),
        after=RevisionWithContentPublic.model_validate(found.after),
        unified_diff=found.unified_diff,
    )

