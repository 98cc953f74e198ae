"""`webhooks add URL --event E [--event E] [--format json|slack]`, `webhooks list`."""

from __future__ import annotations

from typing import Any

from hitl_dashboard.cli.output import emit, table
from hitl_dashboard.cli.registry import command, group, leaf
from hitl_dashboard.services.webhooks import webhooks


def register(sub: Any) -> None:
    commands = group(sub, "webhooks", "webhooks")
    p = leaf(commands, "add", "register a URL for events (the signing secret is shown once)", handler="webhooks add")
    p.add_argument("url")
    p.add_argument("--event", action="append", required=True, choices=webhooks.EVENTS)
    p.add_argument("--format", default="json", choices=webhooks.FORMATS)
    leaf(commands, "list", "list webhooks and their delivery counts", handler="webhooks list")


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
