"""`fork` and `replay`: a new conversation from any earlier turn of another."""

from __future__ import annotations

from typing import Any

from hitl_dashboard.cli.output import emit
from hitl_dashboard.cli.registry import command, leaf
from hitl_dashboard.services.auth.users import find_actor
from hitl_dashboard.services.conversations import forks


def register(sub: Any) -> None:
    p = leaf(sub, "fork", "a new conversation from the state after a turn, optionally with new instructions")
    p.add_argument("conversation_id", type=int)
    p.add_argument("--turn", type=int, required=True, help="the turn to start after (1 = the first agent turn)")
    p.add_argument("--instructions", help="what the agents are told when the fork resumes")
    p.add_argument("--target", dest="target_agent", help="the agent the instructions are for (default: the producer)")
    p.add_argument("--edited-message", help="replaces the agent message of that turn")
    p.add_argument("--as", dest="as_user", required=True)

    p = leaf(sub, "replay", "run a conversation again from a turn, with the same input (new model calls)")
    p.add_argument("conversation_id", type=int)
    p.add_argument("--turn", type=int, required=True, help="the turn to start after (0 = from the start)")
    p.add_argument("--as", dest="as_user", required=True)


@command("fork")
def _fork(args) -> int:
    child = forks.fork(find_actor(args.as_user), args.conversation_id, args.turn, instructions=args.instructions,
                       target_agent=args.target_agent, edited_message=args.edited_message)
    return _emit(args, child)


@command("replay")
def _replay(args) -> int:
    return _emit(args, forks.replay(find_actor(args.as_user), args.conversation_id, args.turn))


def _emit(args, child) -> int:
    emit(args, {"conversation_id": child.id, "status": child.status, "parent_id": child.parent_id,
                "parent_turn": child.parent_turn, "origin": child.origin},
         f"conversation {child.id} is a {child.origin} of {child.parent_id} after turn {child.parent_turn}; "
         f"run `runner` to let the agents work")
    return 0
