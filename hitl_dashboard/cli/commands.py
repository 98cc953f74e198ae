"""The CLI's subcommands; each is a thin call into a service inside a unit of work."""

from __future__ import annotations

import argparse
import dataclasses
import asyncio
import json
from typing import Callable

from hitl_dashboard.cli.output import emit, table
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.services.reviews.acting_reviewer import acting_reviewer
from hitl_dashboard.services.reviews import claims, queues
from hitl_dashboard.services.live import live
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.conversations.conversations import StartCommand, retry_conversation, start_conversation
from hitl_dashboard.services.reviews.decide import decide

COMMANDS: dict[str, Callable] = {}


def command(name: str):
    def register(fn):
        COMMANDS[name] = fn
        return fn
    return register


def register_all(sub) -> None:
    def add(name, handler, help_text):
        parser = sub.add_parser(name, help=help_text)
        parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
        parser.set_defaults(handler=handler)
        return parser

    db = sub.add_parser("db", help="database").add_subparsers(dest="db_command", required=True)
    d = db.add_parser("upgrade", help="apply Alembic migrations to DATABASE_URL")
    d.set_defaults(handler="db upgrade")

    u = sub.add_parser("users", help="users and roles").add_subparsers(dest="users_command", required=True)
    p = u.add_parser("add", help="create a user")
    p.add_argument("name")
    p.add_argument("--role", action="append", required=True)
    p.add_argument("--password")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    p.set_defaults(handler="users add")
    p = u.add_parser("list", help="list users")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    p.set_defaults(handler="users list")

    p = add("start", "start", "start a conversation")
    p.add_argument("--type", dest="task_type", default="code", help="code|copy|ops|auto")
    p.add_argument("--task", required=True)
    p.add_argument("--title")
    p.add_argument("--as", dest="as_user", required=True)
    p.add_argument("--policy", help="gate policy as JSON")
    p.add_argument("--models", help='model routing as JSON, e.g. {"coder": {"provider": "openai"}}')

    p = add("queue", "queue", "a role's review queue")
    p.add_argument("--role", required=True)
    p.add_argument("--as", dest="as_user", help="defaults to the first user holding the role")
    p.add_argument("--search")

    for name in ("claim", "release"):
        p = add(name, name, f"{name} a review request")
        p.add_argument("review_id", type=int)
        p.add_argument("--as", dest="as_user", required=True)

    p = add("decide", "decide", "decide a review request")
    p.add_argument("review_id", type=int)
    p.add_argument("--as", dest="as_user", required=True)
    p.add_argument("--action", required=True, choices=[a.value for a in Action])
    p.add_argument("--instructions")
    p.add_argument("--target")
    p.add_argument("--reason")
    p.add_argument("--args", help="edited tool arguments as a JSON object")
    p.add_argument("--key", help="idempotency key")
    p.add_argument("--expected-version", type=int)
    p.add_argument("--override-reason")

    p = add("show", "show", "a conversation: status, sign-offs, open reviews, transcript")
    p.add_argument("conversation_id", type=int)

    p = add("retry", "retry", "retry a failed conversation from its last checkpoint (admin)")
    p.add_argument("conversation_id", type=int)
    p.add_argument("--as", dest="as_user", required=True)

    p = add("worker", "worker", "run the agents (and SLA escalation)")
    p.add_argument("--until-idle", action="store_true", help="return when nothing is runnable")

    add("check", "check", "refuse to serve with demo credentials outside demo mode (run before serving)")

    demo = sub.add_parser("demo", help="demo data").add_subparsers(dest="demo_command", required=True)
    p = demo.add_parser("seed", help="seed demo users and conversations (first run only)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    p.set_defaults(handler="demo seed")

    from hitl_dashboard.cli.api_commands import register as register_api_commands  # tokens, webhooks
    from hitl_dashboard.cli.audit_commands import register as register_audit_commands  # verify, export
    register_api_commands(sub)
    register_audit_commands(sub)
    from hitl_dashboard.cli.admin_commands import register as register_admin_commands  # abort
    register_admin_commands(sub)


def _json_arg(text: str | None, field: str):
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"--{field} is not valid JSON: {exc}", field) from exc


@command("db upgrade")
def _db_upgrade(args) -> int:
    from hitl_dashboard.services.schema import upgrade_database

    revision = upgrade_database()
    emit(args, {"revision": revision}, f"database at revision {revision}")
    return 0


@command("users add")
def _users_add(args) -> int:
    import secrets

    password = args.password or secrets.token_urlsafe(12)
    user = users.create_user(username=args.name, password=password, roles=args.role)
    shown = "" if args.password else f" (password: {password})"
    emit(args, {"id": user.id, "username": user.username, "roles": user.roles,
                "password": None if args.password else password},
         f"created {user.username} with roles {', '.join(user.roles)}{shown}")
    return 0


@command("users list")
def _users_list(args) -> int:
    rows = users.list_users(None)
    data = [{"id": u.id, "username": u.username, "roles": u.roles, "active": u.is_active} for u in rows]
    emit(args, data, table([[u["id"], u["username"], ", ".join(u["roles"])] for u in data], ["id", "user", "roles"]))
    return 0


@command("start")
def _start(args) -> int:
    actor = users.find_actor(args.as_user)
    conversation = start_conversation(actor, StartCommand(
        task=args.task, task_type=args.task_type, title=args.title,
        gate_policy=_json_arg(args.policy, "policy"), model_routing=_json_arg(args.models, "models") or {},
    ))
    emit(args, {"conversation_id": conversation.id, "status": conversation.status},
         f"started conversation {conversation.id} ({conversation.task_type}); run `worker` to let the agents work")
    return 0


@command("queue")
def _queue(args) -> int:
    actor = acting_reviewer(args.as_user, role=args.role)
    items = queues.role_queue(actor, args.role, search=args.search)
    rows = [[i.id, i.conversation_id, i.title[:40], i.kind, i.subject_label, i.rule, i.status,
             i.assignee or "", f"{i.due_at:%Y-%m-%d %H:%M}"] for i in items]
    data = [{"review_id": i.id, **{k: v for k, v in dataclasses.asdict(i).items() if k != "id"}} for i in items]
    emit(args, data, table(rows, ["review", "conv", "title", "kind", "subject", "rule", "status", "assignee", "due"])
         if items else f"the {args.role} queue is empty")
    return 0


@command("claim")
def _claim(args) -> int:
    return _claim_or_release(args, claims.claim, "claimed")


@command("release")
def _release(args) -> int:
    return _claim_or_release(args, claims.release, "released")


def _claim_or_release(args, operation, verb: str) -> int:
    request = operation(acting_reviewer(args.as_user), args.review_id)
    emit(args, {"review_id": request.id, "status": request.status, "version": request.version},
         f"{verb} review request {request.id}")
    return 0


@command("decide")
def _decide(args) -> int:
    edited = _json_arg(args.args, "args")
    decision = DecisionInput(
        action=Action(args.action), reason=args.reason, instructions=args.instructions,
        target_agent=args.target, edited_args=edited, idempotency_key=args.key,
        expected_version=args.expected_version, override_reason=args.override_reason,
    )
    outcome = decide(acting_reviewer(args.as_user), args.review_id, decision)
    note = " (already recorded earlier; nothing applied twice)" if outcome.replayed else ""
    emit(args, outcome, f"{outcome.action} recorded on review {outcome.review_request_id}; conversation "
                        f"{outcome.conversation_id} is {outcome.conversation_status}{note}")
    return 0


@command("show")
def _show(args) -> int:
    from hitl_dashboard.cli.show import render_page
    from hitl_dashboard.services.conversations.conversation_page import conversation_page

    data, text = render_page(conversation_page(None, args.conversation_id))  # None: the operator
    emit(args, data, text)
    return 0


@command("retry")
def _retry(args) -> int:
    conversation = retry_conversation(users.find_actor(args.as_user), args.conversation_id)
    emit(args, {"conversation_id": conversation.id, "status": conversation.status},
         f"conversation {conversation.id} will resume from its last checkpoint")
    return 0


@command("worker")
def _worker(args) -> int:
    from hitl_dashboard.services.runner.runner import run_until_idle
    from hitl_dashboard.services.webhooks.webhook_delivery import deliver_due
    from hitl_dashboard.services.reviews.escalation import escalate_overdue
    from hitl_dashboard.services.runner.loop import run_runner_forever

    from hitl_dashboard.services.auth.preflight import check_hosted_ready

    check_hosted_ready()
    if args.until_idle:
        escalated = escalate_overdue()
        runs = asyncio.run(run_until_idle())
        asyncio.run(deliver_due(limit=100))
        emit(args, {"runs": runs, "escalated": escalated}, f"idle after {runs} run(s); escalated {len(escalated)}")
        return 0
    try:
        asyncio.run(run_runner_forever())
    except KeyboardInterrupt:
        pass
    return 0


@command("check")
def _check(args) -> int:
    from hitl_dashboard.services.auth.preflight import check_hosted_ready
    from hitl_dashboard.settings import get_settings

    check_hosted_ready()
    mode = "demo" if get_settings().demo_mode else "hosted"
    emit(args, {"ok": True, "mode": mode}, f"configuration OK ({mode} mode)")
    return 0


@command("demo seed")
def _demo_seed(args) -> int:
    from hitl_dashboard.services.conversations.demo import seed_demo

    result = seed_demo()
    emit(args, result, result["message"])
    return 0
