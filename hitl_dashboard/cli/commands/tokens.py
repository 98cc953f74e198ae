"""`tokens create USER [--name N] [--ttl-hours H] [--scope full|approvals]`, `tokens revoke TOKEN_ID`,
`tokens list [--user U]`:
the HTTP API's credentials, managed by the operator."""

from __future__ import annotations

from typing import Any

from hitl_dashboard.cli.output import emit, table
from hitl_dashboard.cli.registry import command, group, leaf
from hitl_dashboard.domain.permissions import FULL_SCOPE, TOKEN_SCOPES
from hitl_dashboard.services.auth import tokens


def register(sub: Any) -> None:
    commands = group(sub, "tokens", "API tokens")
    p = leaf(commands, "create", "create an API token for a user (shown once)", handler="tokens create")
    p.add_argument("user")
    p.add_argument("--name", default="")
    p.add_argument("--ttl-hours", type=float, help="expire after this many hours (default: never)")
    p.add_argument("--scope", choices=TOKEN_SCOPES, default=FULL_SCOPE,
                   help="approvals: the token may only request approvals (docs/external-approvals.md)")
    p = leaf(commands, "revoke", "revoke a token by its id", handler="tokens revoke")
    p.add_argument("token_id", type=int)
    p = leaf(commands, "list", "list tokens (never their secret)", handler="tokens list")
    p.add_argument("--user")


@command("tokens create")
def _tokens_create(args) -> int:
    row, plaintext = tokens.create_token_for(args.user, name=args.name, ttl_hours=args.ttl_hours, scope=args.scope)
    emit(args, {"id": row.id, "user": args.user, "name": row.name, "scope": row.scope, "token": plaintext,
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
    data: list[dict[str, Any]] = [
        {"id": t.id, "user": who, "name": t.name, "kind": t.kind, "scope": t.scope, "prefix": t.prefix,
         "created_at": t.created_at, "last_used_at": t.last_used_at, "expires_at": t.expires_at,
         "revoked": t.revoked_at is not None} for t, who in rows]
    emit(args, data, table([[d["id"], d["user"], d["name"], d["kind"], d["scope"], d["prefix"] + "...",
                             "revoked" if d["revoked"] else "active"] for d in data],
                           ["id", "user", "name", "kind", "scope", "prefix", "state"]) if data else "no tokens")
    return 0
