"""CLI subcommands for the HTTP API's credentials and webhooks (run by the operator):
`tokens create USER [--name N] [--ttl-hours H]`, `tokens revoke TOKEN_ID`, `tokens list [--user U]`,
`webhooks add URL --event E [--event E] [--format json|slack]`, `webhooks list`."""

from __future__ import annotations

import argparse

from hitl_dashboard.cli.commands import command
from hitl_dashboard.cli.output import emit, table
from hitl_dashboard.services.auth import tokens
from hitl_dashboard.services.webhooks import webhooks
def register(sub) -> None:
    def leaf(group, name: str, handler: str, help_text: str):
        parser = group.add_parser(name, help=help_text)
        parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
        parser.set_defaults(handler=handler)
        return parser

    t = sub.add_parser("tokens", help="API tokens").add_subparsers(dest="tokens_command", required=True)
    p = leaf(t, "create", "tokens create", "create an API token for a user (shown once)")
    p.add_argument("user")
    p.add_argument("--name", default="")
    p.add_argument("--ttl-hours", type=float, help="expire after this many hours (default: never)")
    p = leaf(t, "revoke", "tokens revoke", "revoke a token by its id")
    p.add_argument("token_id", type=int)
    p = leaf(t, "list", "tokens list", "list tokens (never their secret)")
    p.add_argument("--user")

    w = sub.add_parser("webhooks", help="webhooks").add_subparsers(dest="webhooks_command", required=True)
    p = leaf(w, "add", "webhooks add", "register a URL for events (the signing secret is shown once)")
    p.add_argument("url")
    p.add_argument("--event", action="append", required=True, choices=webhooks.EVENTS)
    p.add_argument("--format", default="json", choices=webhooks.FORMATS)
    leaf(w, "list", "webhooks list", "list webhooks and their delivery counts")


@command("tokens create")
def _tokens_create(args) -> int:
    row, plaintext = tokens.create_token_for(args.user, name=args.name, ttl_hours=args.ttl_hours)
    emit(args, {"id": row.id, "user": args.user, "name": row.name, "token": plaintext,
                "expires_at": row.expires_at},
         f"token {row.id} for {args.user}: {plaintext}\n"
         "Store it now: it is not kept and cannot be shown again. Send it as 'Authorization: Bearer <token>'.")
    return 0


@command("tokens revoke")
def _tokens_revoke(args) -> int:
    row = tokens.revoke_token(None, args.token_id)
    emit(args, {"id": row.id, "revoked_at": row.revoked_at}, f"token {row.id} ({row.prefix}...) is revoked")
    return 0


@command("tokens list")
def _tokens_list(args) -> int:
    rows = tokens.list_tokens(username=args.user)
    data = [{"id": t.id, "user": who, "name": t.name, "kind": t.kind, "prefix": t.prefix,
             "created_at": t.created_at, "last_used_at": t.last_used_at, "expires_at": t.expires_at,
             "revoked": t.revoked_at is not None} for t, who in rows]
    emit(args, data, table([[d["id"], d["user"], d["name"], d["kind"], d["prefix"] + "...",
                             "revoked" if d["revoked"] else "active"] for d in data],
                           ["id", "user", "name", "kind", "prefix", "state"]) if data else "no tokens")
    return 0


@command("webhooks add")
def _webhooks_add(args) -> int:
    hook = webhooks.add_webhook(None, url=args.url, events=args.event, fmt=args.format)
    emit(args, {"id": hook.id, "url": hook.url, "events": hook.events, "format": hook.format, "secret": hook.secret},
         f"webhook {hook.id} for {', '.join(hook.events)} -> {hook.url}\n"
         f"signing secret (shown once): {hook.secret}\n"
         "Deliveries carry X-HITL-Signature: sha256=<HMAC-SHA256 of the raw body with this secret>.")
    return 0


@command("webhooks list")
def _webhooks_list(args) -> int:
    rows = webhooks.list_webhooks(None)
    data = [{"id": h.id, "url": h.url, "events": h.events, "format": h.format, "active": h.active} for h in rows]
    emit(args, data, table([[d["id"], d["url"], ", ".join(d["events"]), d["format"],
                             "active" if d["active"] else "off"] for d in data],
                           ["id", "url", "events", "format", "state"]) if data else "no webhooks")
    return 0
