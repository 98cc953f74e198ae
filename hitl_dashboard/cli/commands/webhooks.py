"""`webhooks add URL --event E [--event E] [--format json|slack]`, `webhooks list`, `webhooks test ID`,
`webhooks rotate-secret ID`, `webhooks remove ID`, `webhooks deliveries`: what the /webhooks page does."""

from __future__ import annotations

import asyncio
from typing import Any

from hitl_dashboard.cli.output import emit, table
from hitl_dashboard.cli.registry import command, group, leaf
from hitl_dashboard.services.webhooks import webhook_admin, webhooks


def register(sub: Any) -> None:
    commands = group(sub, "webhooks", "webhooks")
    p = leaf(commands, "add", "register a URL for events (the signing secret is shown once)", handler="webhooks add")
    p.add_argument("url")
    p.add_argument("--event", action="append", required=True, choices=webhooks.EVENTS)
    p.add_argument("--format", default="json", choices=webhooks.FORMATS)
    leaf(commands, "list", "list webhooks and their delivery counts", handler="webhooks list")
    for name, about in (("test", "send a test delivery now (tried once) and show how it went"),
                        ("rotate-secret", "give a webhook a new signing secret (shown once)"),
                        ("remove", "stop sending to a webhook; its pending deliveries are cancelled")):
        p = leaf(commands, name, about, handler=f"webhooks {name}")
        p.add_argument("webhook_id", type=int)
    leaf(commands, "deliveries", "the most recent deliveries to the active webhooks", handler="webhooks deliveries")


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
    data: list[dict[str, Any]] = [{"id": h.id, "url": h.url, "events": h.events, "format": h.format,
                                   "active": h.active} for h in rows]
    emit(args, data, table([[d["id"], d["url"], ", ".join(d["events"]), d["format"],
                             "active" if d["active"] else "off"] for d in data],
                           ["id", "url", "events", "format", "state"]) if data else "no webhooks")
    return 0


@command("webhooks test")
def _webhooks_test(args) -> int:
    sent = asyncio.run(webhook_admin.send_test(None, args.webhook_id))
    code = sent.status_code if sent.status_code is not None else "-"
    emit(args, _delivery(sent), f"test delivery {sent.id} to webhook {sent.webhook_id}: {sent.status} (HTTP {code})"
         + (f": {sent.error}" if sent.error else ""))
    return 0 if sent.status == "delivered" else 1


@command("webhooks rotate-secret")
def _webhooks_rotate(args) -> int:
    hook = webhook_admin.rotate_secret(None, args.webhook_id)
    emit(args, {"id": hook.id, "secret": hook.secret},
         f"webhook {hook.id}: new signing secret (shown once): {hook.secret}")
    return 0


@command("webhooks remove")
def _webhooks_remove(args) -> int:
    cancelled = webhook_admin.remove_webhook(None, args.webhook_id)
    emit(args, {"id": args.webhook_id, "deliveries_cancelled": cancelled},
         f"webhook {args.webhook_id} removed ({cancelled} pending deliveries cancelled)")
    return 0


@command("webhooks deliveries")
def _webhooks_deliveries(args) -> int:
    data = [_delivery(d) for d in webhook_admin.recent_deliveries(None)]
    emit(args, data, table([[d["id"], d["webhook_id"], d["event"], d["status"], d["status_code"] or "-", d["attempts"]]
                            for d in data], ["id", "webhook", "event", "status", "code", "attempts"])
         if data else "no deliveries")
    return 0


def _delivery(line: webhook_admin.DeliveryLine) -> dict[str, Any]:
    return {"id": line.id, "webhook_id": line.webhook_id, "event": line.event, "status": line.status,
            "status_code": line.status_code, "attempts": line.attempts, "error": line.error,
            "created_at": line.created_at}
