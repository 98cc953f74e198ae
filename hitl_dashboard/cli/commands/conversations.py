"""`start`, `show`, `retry`, `abort` and `demo seed`: a conversation's life from the command line."""

from __future__ import annotations

from typing import Any

from hitl_dashboard.cli.output import emit
from hitl_dashboard.cli.registry import command, group, json_arg, leaf
from hitl_dashboard.cli.show import render_page
from hitl_dashboard.services.auth.users import find_actor
from hitl_dashboard.services.conversations.conversation_page import conversation_page
from hitl_dashboard.services.conversations.conversations import (
    StartCommand,
    abort_conversation,
    retry_conversation,
    start_conversation,
)


def register(sub: Any) -> None:
    p = leaf(sub, "start", "start a conversation")
    p.add_argument("--type", dest="task_type", default="code", help="code|copy|ops|auto")
    p.add_argument("--team", dest="template", help="the team (`teams list`); default: the one named like the type")
    p.add_argument("--task", required=True)
    p.add_argument("--title")
    p.add_argument("--as", dest="as_user", required=True)
    p.add_argument("--policy", help="gate policy as JSON")
    p.add_argument("--models", help='model routing as JSON, e.g. {"coder": {"provider": "openai"}}')

    p = leaf(sub, "show", "a conversation: status, sign-offs, open reviews, transcript")
    p.add_argument("conversation_id", type=int)

    p = leaf(sub, "retry", "retry a failed conversation from its last checkpoint (admin)")
    p.add_argument("conversation_id", type=int)
    p.add_argument("--as", dest="as_user", required=True)

    p = leaf(sub, "abort", "abort a conversation in any state: running, awaiting review, failed (admin)")
    p.add_argument("conversation_id", type=int)
    p.add_argument("--reason", required=True, help="why; recorded in the audit trail")
    p.add_argument("--as", dest="as_user", required=True)

    leaf(group(sub, "demo", "demo data"), "seed", "seed demo users and conversations (first run only)",
         handler="demo seed")


@command("start")
def _start(args) -> int:
    conversation = start_conversation(find_actor(args.as_user), StartCommand(
        task=args.task, task_type=args.task_type, title=args.title, template=args.template,
        gate_policy=json_arg(args.policy, "policy"), model_routing=json_arg(args.models, "models") or {},
    ))
    emit(args, {"conversation_id": conversation.id, "status": conversation.status},
         f"started conversation {conversation.id} ({conversation.task_type}); run `runner` to let the agents work")
    return 0


@command("show")
def _show(args) -> int:
    data, text = render_page(conversation_page(None, args.conversation_id))  # None: the operator
    emit(args, data, text)
    return 0


@command("retry")
def _retry(args) -> int:
    conversation = retry_conversation(find_actor(args.as_user), args.conversation_id)
    emit(args, {"conversation_id": conversation.id, "status": conversation.status},
         f"conversation {conversation.id} will resume from its last checkpoint")
    return 0


@command("abort")
def _abort(args) -> int:
    conversation = abort_conversation(find_actor(args.as_user), args.conversation_id, args.reason)
    emit(args, {"conversation_id": conversation.id, "status": conversation.status,
                "status_reason": conversation.status_reason},
         f"conversation {conversation.id} is aborted; its open reviews were dismissed")
    return 0


@command("demo seed")
def _demo_seed(args) -> int:
    from hitl_dashboard.services.conversations.demo import seed_demo  # it runs the agents: AutoGen loads here

    result = seed_demo()
    emit(args, result, result["message"])
    return 0
