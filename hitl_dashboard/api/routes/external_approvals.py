"""External approval requests: a process outside the product asks for a decision, waits for it
and reports what it ran. Tokens of scope 'approvals' reach these routes only."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response, status

from hitl_dashboard.api.deps import ApprovalCaller
from hitl_dashboard.api.errors import COMMON_RESPONSES, CONFLICT, NOT_FOUND
from hitl_dashboard.api.schemas.common import IdPath
from hitl_dashboard.api.schemas.external import ApprovalCreate, ApprovalPublic, ResultReport
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.services.external import follow
from hitl_dashboard.services.external.requests import ApprovalCommand, request_approval
from hitl_dashboard.services.external.views import ApprovalView

router = APIRouter(prefix="/external/approvals", tags=["external approvals"], responses=COMMON_RESPONSES,
                   route_class=StrictJsonRoute)


def _public(view: ApprovalView, waited: float = 0) -> ApprovalPublic:
    outcome = view.outcome
    message = {"approved": "approved: run it with `arguments`, then report the result",
               "denied": "denied: do not run it", "revise": "revise: change it as instructed and ask again",
               }.get(outcome.status, f"still pending after {waited:g} s; ask again" if waited else "pending")
    return ApprovalPublic(
        id=view.id, request_id=view.request_id, conversation_id=view.conversation_id, review_id=view.review_id,
        kind=view.kind, title=view.title, status=outcome.status,
        arguments=outcome.arguments, reason=outcome.reason, instructions=outcome.instructions,
        decided_by=outcome.decided_by, created=view.created, url=view.url, callback_secret=view.callback_secret,
        result_status=view.result_status, message=message,
    )


@router.post("", response_model=ApprovalPublic, status_code=status.HTTP_201_CREATED,
             responses={**CONFLICT, 200: {"model": ApprovalPublic, "description": "Asked before: the same review"}})
def create(body: ApprovalCreate, actor: ApprovalCaller, response: Response) -> ApprovalPublic:
    """Ask for a decision. 201: a new review; 200: this request_id was asked before (the same review);
    409: this request_id was used for a different request."""
    tool, content = body.tool_call, body.content
    view = request_approval(actor, ApprovalCommand(
        request_id=body.request_id, team=body.team, title=body.title, task_type=body.task_type,
        tool=tool.name if tool else None, arguments=tool.arguments if tool else None,
        args_schema=tool.args_schema if tool else None, content=content.text if content else None,
        file_name=content.file_name if content else None, link=body.link, context=body.context,
        callback_url=body.callback_url, on_overdue=body.on_overdue,
    ))
    if not view.created:
        response.status_code = status.HTTP_200_OK
    return _public(view)


@router.get("/{approval_id}", response_model=ApprovalPublic, responses=NOT_FOUND)
async def outcome(approval_id: IdPath, actor: ApprovalCaller,
                  wait: Annotated[float, Query(ge=0, le=600, description=(
                      "Long poll: answer as soon as it is decided, or after this many seconds (capped by "
                      "EXTERNAL_MAX_WAIT_S) with status pending. Ask again to keep waiting."))] = 0) -> ApprovalPublic:
    """Your request's outcome: pending, approved (with the arguments that may run), denied (with the
    reason) or revise (with the instructions). Only the caller that asked sees it."""
    view = await follow.wait_for_outcome(actor, approval_id, wait)
    return _public(view, waited=wait)


@router.post("/{approval_id}/result", response_model=ApprovalPublic, responses={**NOT_FOUND, **CONFLICT})
def report(approval_id: IdPath, body: ResultReport, actor: ApprovalCaller) -> ApprovalPublic:
    """What ran (the result, or the error with ok=false), once; it shows in the transcript and the
    audit trail. The same report again is answered as the first; a different one is a 409."""
    return _public(follow.report_result(actor, approval_id, ok=body.ok, text=body.result))
