"""CLI subcommands for admins stopping conversations: `abort CONVERSATION --reason TEXT --as ADMIN`."""

from __future__ import annotations

import argparse

from hitl_dashboard.cli.commands import command
from hitl_dashboard.cli.output import emit
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.conversations.conversations import abort_conversation


def register(sub) -> None:
    p = sub.add_parser("abort", help="abort a conversation in any state: running, awaiting review, failed (admin)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    p.add_argument("conversation_id", type=int)
    p.add_argument("--reason", required=True, help="why; recorded in the audit trail")
    p.add_argument("--as", dest="as_user", required=True)
    p.set_defaults(handler="abort")


@command("abort")
def _abort(args) -> int:
    conversation = abort_conversation(users.find_actor(args.as_user), args.conversation_id, args.reason)
    emit(args, {"conversation_id": conversation.id, "status": conversation.status,
                "status_reason": conversation.status_reason},
         f"conversation {conversation.id} is aborted; its open reviews were dismissed")
    return 0
