"""The audit trail: browse with filters, export (streamed), verify the hash chain.
Managers and admins only (the services check)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from hitl_dashboard.api.deps import CurrentActor
from hitl_dashboard.api.errors import COMMON_RESPONSES
from hitl_dashboard.api.schemas.audit import AuditEventPublic, AuditPage, ChainReportPublic
from hitl_dashboard.api.schemas.common import MAX_ID, Limit, UtcDatetime, text_rules
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.services.audit import audit, audit_queries, audit_verification

router = APIRouter(prefix="/audit", tags=["audit"], responses=COMMON_RESPONSES, route_class=StrictJsonRoute)
MEDIA_TYPES = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson"}
Name = Annotated[str, *text_rules(64)]


@router.get("", response_model=AuditPage)
def list_events(
    actor: CurrentActor,
    user: Annotated[Name | None, Query(description="who acted")] = None,
    role: Annotated[Name | None, Query(description="the role they acted in")] = None,
    action: Annotated[Name | None, Query(description="e.g. decision.recorded")] = None,
    conversation_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    since: Annotated[UtcDatetime | None, Query(description="inclusive; without a zone: UTC")] = None,
    until: Annotated[UtcDatetime | None, Query(description="exclusive; without a zone: UTC")] = None,
    before_seq: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    limit: Limit = 100,
) -> AuditPage:
    """Newest first. Page on with before_seq=next_before_seq."""
    events = audit_queries.list_events(actor, user=user, role=role, action=action,
                                       conversation_id=conversation_id, since=since, until=until,
                                       before_seq=before_seq, limit=limit)
    items = [AuditEventPublic.model_validate(e) for e in events]
    return AuditPage(items=items, next_before_seq=items[-1].seq if len(items) == limit else None)


@router.get("/export", responses={200: {"content": {t: {} for t in MEDIA_TYPES.values()},
                                        "description": "The whole trail, oldest first, streamed"}})
def export(actor: CurrentActor,
           format: Annotated[Literal["csv", "jsonl"], Query()] = "jsonl") -> StreamingResponse:
    """Streamed in constant memory, whatever the trail's length."""
    lines = audit.export_lines(actor, format)  # checks now, before the status line goes out; reads as it streams
    return StreamingResponse(lines, media_type=MEDIA_TYPES[format],
                             headers={"Content-Disposition": f'attachment; filename="audit.{format}"'})


@router.get("/verify", response_model=ChainReportPublic)
def verify(actor: CurrentActor,
           full: Annotated[bool, Query(description="re-read the whole chain from event 1")] = False,
           ) -> ChainReportPublic:
    """Verify the hash chain from where the last verification stopped (the events after it, and that
    the last verified event still has its hash), or with full=true the whole chain: ok, or the first
    event that was altered or removed. The answer is remembered; the audit page shows it."""
    report = audit_verification.verify_now(actor, full=full)
    return ChainReportPublic(ok=report.ok, checked=report.checked, first_bad_seq=report.first_bad_seq,
                             problem=report.problem, verified_up_to=report.last_seq,
                             full=report.checked == report.last_seq)  # it started at event 1
