"""GET /api/conversations/{id}/export: one conversation as a Markdown or JSON download."""

from __future__ import annotations

import json
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import Response, StreamingResponse

from hitl_dashboard.api.deps import CurrentActor
from hitl_dashboard.api.errors import COMMON_RESPONSES, NOT_FOUND
from hitl_dashboard.api.schemas.common import IdPath
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.services.conversations.transcript_export import export_conversation
from hitl_dashboard.services.conversations.transcript_markdown import markdown_chunks
from hitl_dashboard.settings import get_settings

router = APIRouter(prefix="/conversations/{conversation_id}", tags=["transcripts"],
                   responses={**COMMON_RESPONSES, **NOT_FOUND}, route_class=StrictJsonRoute)
MEDIA_TYPES = {"markdown": "text/markdown; charset=utf-8", "json": "application/json"}
SUFFIXES = {"markdown": "md", "json": "json"}


@router.get("/export", responses={200: {"content": {t: {} for t in MEDIA_TYPES.values()},
                                        "description": "The whole conversation, as an attachment"}})
def export(conversation_id: IdPath, actor: CurrentActor,
           format: Annotated[Literal["markdown", "json"], Query()] = "markdown") -> Response:
    """Transcript, code revisions, review requests, decisions, tool calls and (for managers and
    admins) the audit events of this conversation. Agent text in the Markdown is fenced or
    escaped: it renders as text, never as HTML. Each message links to its anchor on the page."""
    filename = f"conversation-{conversation_id}.{SUFFIXES[format]}"
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
    public_url = get_settings().public_url
    if format == "markdown":  # streamed: the transcript is read a page at a time as it is sent
        doc = export_conversation(actor, conversation_id, public_url=public_url, stream_messages=True)  # 404 first
        return StreamingResponse(markdown_chunks(doc), media_type=MEDIA_TYPES[format], headers=headers)
    doc = export_conversation(actor, conversation_id, public_url=public_url)
    return Response(json.dumps(doc, ensure_ascii=False, indent=2), media_type=MEDIA_TYPES[format], headers=headers)
