"""`slack link TEAM_ID USER_ID USERNAME`, `slack unlink LINK_ID`, `slack links` (docs/slack.md)."""

from __future__ import annotations

from typing import Any

from hitl_dashboard.cli.output import emit, table
from hitl_dashboard.cli.registry import command, group, leaf
from hitl_dashboard.services.slack import links


def register(sub: Any) -> None:
    commands = group(sub, "slack", "Slack buttons: which dashboard user each Slack user acts as")
    p = leaf(commands, "link", "let a Slack user decide from Slack as a dashboard user", handler="slack link")
    p.add_argument("slack_team_id", help="the Slack workspace id, e.g. T0123ABCD")
    p.add_argument("slack_user_id", help="the Slack user id, e.g. U0123ABCD")
    p.add_argument("username", help="the dashboard user (a member of the workspace)")
    p.add_argument("--workspace", help="the workspace whose reviews the link decides (default: default)")
    p = leaf(commands, "unlink", "remove a Slack user's link", handler="slack unlink")
    p.add_argument("link_id", type=int)
    leaf(commands, "links", "list the Slack user links", handler="slack links")


def _row(link: links.SlackLink) -> dict[str, Any]:
    return {"id": link.id, "slack_team_id": link.slack_team_id, "slack_user_id": link.slack_user_id,
            "username": link.username, "workspace": link.workspace, "created_at": link.created_at.isoformat()}


@command("slack link")
def _slack_link(args) -> int:
    link = links.link_user(None, slack_team_id=args.slack_team_id, slack_user_id=args.slack_user_id,
                           username=args.username, workspace=args.workspace)
    emit(args, _row(link), f"Slack user {link.slack_team_id}/{link.slack_user_id} now acts as {link.username} "
                           f"in workspace {link.workspace} (link {link.id})")
    return 0


@command("slack unlink")
def _slack_unlink(args) -> int:
    links.unlink_user(None, args.link_id)
    emit(args, {"id": args.link_id, "unlinked": True}, f"link {args.link_id} removed")
    return 0


@command("slack links")
def _slack_links(args) -> int:
    data = [_row(link) for link in links.list_links(None)]
    emit(args, data, table([[d["id"], d["slack_team_id"], d["slack_user_id"], d["username"], d["workspace"]]
                            for d in data],
                           ["id", "slack team", "slack user", "user", "workspace"]) if data else "no Slack user links")
    return 0
