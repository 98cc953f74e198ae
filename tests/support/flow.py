"""Helpers that drive the services in-process, the way the CLI and the UI do."""

from __future__ import annotations

import asyncio

from hitl_dashboard.db.models import Conversation, Message
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.conversations import conversation_queries
from hitl_dashboard.services.conversations.conversations import StartCommand, start_conversation
from hitl_dashboard.services.reviews import queues
from hitl_dashboard.services.reviews.decide import decide
from hitl_dashboard.services.runner.runner import run_turns_until_idle

PEOPLE = {
    "alice": ["security_reviewer"],
    "bob": ["product_reviewer"],
    "carol": ["final_approver"],
    "dave": ["manager"],
    "erin": ["admin"],
    "frank": ["security_reviewer", "product_reviewer", "final_approver"],  # initiator in most tests
}


def make_people() -> None:
    for name, roles in PEOPLE.items():
        users.create_user(username=name, password="pw-" + name, roles=roles)


def actor(name: str):
    return users.find_actor(name)


def start(task: str, task_type: str = "code", as_user: str = "frank", **kw) -> int:
    return start_conversation(actor(as_user), StartCommand(task=task, task_type=task_type, **kw)).id


def work() -> int:
    return asyncio.run(run_turns_until_idle())


def open_reviews(conversation_id: int):
    return detail(conversation_id).open_requests


def only_open_review(conversation_id: int):
    reviews = open_reviews(conversation_id)
    assert len(reviews) == 1, f"expected one open review, got {[(r.id, r.kind, r.required_role) for r in reviews]}"
    return reviews[0]


def decide_as(name: str, review_id: int, action: str, **kw):
    return decide(actor(name), review_id, DecisionInput(Action(action), **kw))


def conversation(conversation_id: int) -> Conversation:
    return detail(conversation_id).conversation


def messages(conversation_id: int) -> list[Message]:
    return conversation_queries.transcript(None, conversation_id, limit=100_000)


def detail(conversation_id: int):
    return conversation_queries.conversation_detail(None, conversation_id)


def queue(name: str, role: str):
    return queues.role_queue(actor(name), role)
