"""Slack buttons (docs/slack.md): Slack's interactivity requests, and the admins' Slack user links."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request, Response, status
from fastapi.responses import JSONResponse
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from hitl_dashboard.api.deps import CurrentActor, client_address
from hitl_dashboard.api.errors import COMMON_RESPONSES, CONFLICT, NOT_FOUND, ErrorBody
from hitl_dashboard.api.rate_limits import get_rate_limiter
from hitl_dashboard.api.schemas.common import IdPath
from hitl_dashboard.api.schemas.slack import SlackAnswerPublic, SlackLinkCreate, SlackLinkPublic
from hitl_dashboard.api.strict_json import StrictJsonRoute
from hitl_dashboard.services.slack import links
from hitl_dashboard.services.slack.interactions import handle_interaction
from hitl_dashboard.services.slack.replies import post_reply

router = APIRouter(prefix="/slack", tags=["slack"], route_class=StrictJsonRoute)


def _answer(description: str) -> dict:
    return {"model": SlackAnswerPublic, "description": description}


FORM_BODY = {"requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": {
    "type": "object", "required": ["payload"],
    "properties": {"payload": {"type": "string", "description": "Slack's block_actions payload (JSON)"}}}}}}}


@router.post(
    "/interactions", response_model=SlackAnswerPublic, openapi_extra=FORM_BODY,
    responses={
        200: _answer("Applied, or refused by the decision's own checks (the text says which); "
                     "the channel's message is updated through the request's response_url"),
        400: _answer("Not a review button's block_actions payload, or a response_url that is not Slack's"),
        401: _answer("Missing or wrong X-Slack-Signature, or a timestamp more than 5 minutes away"),
        404: _answer("SLACK_SIGNING_SECRET is not set: Slack buttons are off"),
        409: _answer("The same signed request again: replays are refused"),
        413: {"model": ErrorBody, "description": "Larger than a Slack interaction"},
        429: {"model": ErrorBody, "description": "Rate limit exceeded; see Retry-After"},
    },
)
async def interactions(
    request: Request,
    x_slack_request_timestamp: Annotated[str | None, Header(include_in_schema=False)] = None,
    x_slack_signature: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> Response:
    """Slack's Interactivity Request URL: the Approve and Deny buttons of review messages. Signed by
    Slack (no API token); the Slack user acts as the dashboard user an admin linked it to."""
    get_rate_limiter().check_address(client_address(request))
    body = await request.body()
    # The use case is synchronous (database work): off the event loop, as FastAPI runs sync routes.
    answer = await run_in_threadpool(handle_interaction, body, x_slack_request_timestamp, x_slack_signature)
    follow_up = (BackgroundTask(post_reply, answer.response_url, answer.follow_up)
                 if answer.response_url and answer.follow_up else None)
    return JSONResponse(answer.body, status_code=answer.status, background=follow_up)


@router.get("/user-links", response_model=list[SlackLinkPublic], responses=COMMON_RESPONSES)
def list_user_links(actor: CurrentActor) -> list[SlackLinkPublic]:
    """Workspace admins: the Slack users linked to dashboard users in the workspaces they administer
    (the instance admin: every workspace)."""
    return [SlackLinkPublic.model_validate(link) for link in links.list_links(actor)]


@router.post("/user-links", status_code=status.HTTP_201_CREATED, response_model=SlackLinkPublic,
             responses={**COMMON_RESPONSES, **NOT_FOUND, **CONFLICT})
def create_user_link(body: SlackLinkCreate, actor: CurrentActor) -> SlackLinkPublic:
    """Workspace admins: let a Slack user decide this workspace's reviews from Slack as this dashboard
    user (a member; with the roles that user holds in the workspace)."""
    link = links.link_user(actor, slack_team_id=body.slack_team_id, slack_user_id=body.slack_user_id,
                           username=body.username, workspace=body.workspace)
    return SlackLinkPublic.model_validate(link)


@router.delete("/user-links/{link_id}", status_code=status.HTTP_204_NO_CONTENT,
               responses={**COMMON_RESPONSES, **NOT_FOUND})
def delete_user_link(link_id: IdPath, actor: CurrentActor) -> Response:
    """Workspace admins: the Slack user can no longer decide this workspace's reviews from Slack."""
    links.unlink_user(actor, link_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
