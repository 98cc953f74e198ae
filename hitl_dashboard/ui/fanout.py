"""One update computed once and sent to every tab linked to a shared feed.

Why not `app.modify_state` on the feed's token: Reflex 0.10.1 then fans the change out with one
`modify_state` of each linked tab's own state (load and lock the tab's whole state, patch the feed
into it, mark the root's router data dirty, resolve a delta, save it back), so the server's cost
per stored message grew by about 8 ms of CPU per watching tab, and every frame re-sent about 2 KB of
router data. Here the feed's shared copy is written under its own token (what a tab that opens or
reloads the page reads), its delta is resolved once, and that delta alone goes to each linked tab's
socket (through Redis to the worker holding it when there are several), as ui/stream.py does for
streamed text. A tab's own state is not touched: no state of a tab reads a feed's vars, so there is
nothing in it to recompute (a feed's own computed vars are resolved in the shared copy's delta)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

import reflex as rx
from reflex.state import StateUpdate

log = logging.getLogger(__name__)
Feed = TypeVar("Feed", bound=rx.State)


async def linked_tabs(app: rx.App, token: str, cls: type[rx.State]) -> set[str]:
    """The tabs linked to the shared feed (a read of its state, no lock and no database)."""
    root = await app.state_manager.get_state(rx.BaseStateToken(ident=token, cls=cls))
    feed = await root.get_state(cls)
    return set(feed._linked_from)


async def fill_and_fan_out(app: rx.App, token: str, cls: type[Feed], fill: Callable[[Feed], None]) -> int:
    """Applies `fill` to the shared copy of the feed and sends what changed to every linked tab.
    Returns how many tabs it was sent to."""
    async with app.state_manager.modify_state(rx.BaseStateToken(ident=token, cls=cls)) as root:
        feed = await root.get_state(cls)
        fill(feed)
        delta = await root._get_resolved_delta()
        root._clean()
        tabs = set(feed._linked_from)
    # Only the feed's own vars: a tab must never receive another state's values from here.
    delta = {name: values for name, values in delta.items() if name == cls.get_full_name() and values}
    if not delta or not tabs:
        return 0
    await send_to_tabs(app, tabs, StateUpdate(delta=delta))
    return len(tabs)


async def send_to_tabs(app: rx.App, tabs: Iterable[str], update: StateUpdate,
                       on_gone: Callable[[str], Awaitable[None]] | None = None) -> None:
    namespace = app.event_namespace
    if namespace is None:
        return
    await asyncio.gather(*(_send(namespace, tab, update, on_gone) for tab in tabs))


async def _send(namespace, tab: str, update: StateUpdate, on_gone) -> None:
    try:
        # Reflex's own shared-state fan-out asks the same of its token manager before each update.
        if not await namespace._token_manager.is_token_connected(tab):
            if on_gone is not None:
                await on_gone(tab)
            return
        await namespace.emit_update(update, tab)
    except Exception:  # noqa: BLE001 - one tab's socket must not stop the others
        log.exception("pushing a live update to a browser failed")
