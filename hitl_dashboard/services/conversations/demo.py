"""Demo data for `make run`: users with known passwords and conversations in several states.
Runs once: a second call sees the users and does nothing."""

from __future__ import annotations

import asyncio

from hitl_dashboard.agents.model_clients import full_speed
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.conversations.conversations import StartCommand, add_conversation
from hitl_dashboard.services.reviews import queues
from hitl_dashboard.services.reviews.decide import decide
from hitl_dashboard.services.runner.until_idle import run_until_idle
from hitl_dashboard.services.transactions import transaction
from hitl_dashboard.services.workspaces import workspaces
from hitl_dashboard.settings import get_settings

DEMO_PASSWORD = "demo"
DEMO_USERS = [
    ("alice", ["security_reviewer"]),
    ("bob", ["product_reviewer"]),
    ("carol", ["final_approver"]),
    ("dave", ["manager"]),
    ("erin", ["admin", "security_reviewer", "product_reviewer", "final_approver"]),
    ("frank", ["product_reviewer", "security_reviewer"]),
]
# A second group in its own workspace (issue 41), so a newcomer sees the separation: grace and heidi
# see and decide only marketing's work; alice, bob, carol, dave and frank only the default one's;
# erin is the instance admin and switches between both in the header.
MARKETING = ("marketing", "Marketing")
MARKETING_USERS = [
    ("grace", ["product_reviewer", "manager"]),
    ("heidi", ["security_reviewer", "final_approver", "workspace_admin"]),
]
MARKETING_TASKS = [("copy", "Write the spring campaign email for the analytics launch")]
DEMO_TASKS = [
    ("code", "Add retry with exponential backoff to the payments webhook handler"),
    ("copy", "Write launch announcement copy for the new team analytics page"),
    ("ops", "Deploy billing-api v2.4.1 to production"),
    ("code", "Add input validation to the user signup endpoint"),
]


def seed_demo() -> dict:
    if not get_settings().demo_mode:
        raise PermissionDenied("demo data is only seeded in demo mode (DEMO_MODE=true)")
    with transaction() as uow:
        if users.any_users(uow):
            return {"seeded": False, "message": "demo data already present; logins: " + _logins()}
    marketing = workspaces.create_workspace(None, slug=MARKETING[0], name=MARKETING[1])
    with transaction() as uow:
        for name, roles in DEMO_USERS:
            users.insert_user(uow, username=name, password=DEMO_PASSWORD, roles=roles, is_demo=True)
        for name, roles in MARKETING_USERS:
            users.insert_user(uow, username=name, password=DEMO_PASSWORD, roles=roles, is_demo=True,
                              workspace_id=marketing.id)
        uow.session.flush()
        frank, grace = users.get_actor(uow, "frank"), users.get_actor(uow, "grace")
        for task_type, task in DEMO_TASKS:
            add_conversation(uow.session, frank, StartCommand(task=task, task_type=task_type))
        for task_type, task in MARKETING_TASKS:
            add_conversation(uow.session, grace, StartCommand(task=task, task_type=task_type))
    with full_speed():  # nobody watches the seed: the demo's readable pace starts with the server
        asyncio.run(run_until_idle())
    _advance_one_past_security()
    return {"seeded": True, "message": "seeded demo data; logins: " + _logins()}


def _advance_one_past_security() -> None:
    """So the final approver's queue is not empty either."""
    alice = users.find_actor("alice")
    items = queues.role_queue(alice, "security_reviewer")
    code_items = [i for i in items if i.task_type == "code" and i.kind == "signoff"]
    if code_items:
        decide(alice, code_items[-1].id, DecisionInput(Action.APPROVE, reason="looks safe"))


def _logins() -> str:
    default = ", ".join(f"{name}/{DEMO_PASSWORD} ({'+'.join(roles)})" for name, roles in DEMO_USERS)
    marketing = ", ".join(f"{name}/{DEMO_PASSWORD} ({'+'.join(roles)})" for name, roles in MARKETING_USERS)
    return f"{default}; in workspace {MARKETING[0]}: {marketing}"
