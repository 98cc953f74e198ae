"""Live feeds: one update computed once and sent to every browser tab watching the feed.

A feed (one conversation, one role's queue) has two kinds of copies. Each tab keeps its own, filled
when it opens the page (for a reload, a reconnect, the tab's own events). The server keeps one more
under the feed's token (`conv-42`, `queue-security-reviewer`), the baseline: a refresh writes the
fresh view into it, resolves the delta of what changed there once, and sends that delta alone to
the socket of every tab watching the feed (through Redis to the worker holding it when there are
several). A second worker refreshing the same change finds nothing changed and sends nothing.

Why not Reflex's shared states (rx.SharedState, what the feeds were until stop 21): in 0.10.1 a
change to a shared state is fanned out with one `modify_state` of each linked tab's whole state
(load, lock, patch, resolve, save), about 8 ms of CPU per tab, and with the embedded state manager
every event of any linked tab, even one that changes nothing (the 10-s queue-summary poll, a
keystroke in the decision form), is fanned out to all the others: the server's cost grew with the
square of the watchers. Here a tab's events touch its own state only, which also means no browser
can write what another one sees."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

import reflex as rx
from reflex import constants
from reflex.state import StateUpdate

from hitl_dashboard.services.live.streams import streams_store

log = logging.getLogger(__name__)
Feed = TypeVar("Feed", bound=rx.State)


def queue_token(role: str, workspace_id: int) -> str:
    """A role's queue in one workspace (issue 41): a tab watches its workspace's only."""
    return f"queue-w{workspace_id}-" + role.replace("_", "-")


def conversation_token(conversation_id: int) -> str:
    return f"conv-{conversation_id}"


def summary_token(roles: tuple[str, ...], workspace_id: int) -> str:
    """The queue summary of one role set in one workspace (ui/states/queue_summary.py): one feed per
    set of roles held there."""
    return f"summary-w{workspace_id}-" + "+".join(role.replace("_", "-") for role in roles)


def watchers_store(slot: str = ""):
    from hitl_dashboard.settings import get_settings

    return streams_store(get_settings().redis_url, slot)


SUMMARY = "summary"  # the store slot of the queue summaries: a tab watches its page's feed and one summary


async def _register_tab(user_id: int, tab: str) -> None:
    """The tab under its user, with the token it watches with: a membership removed or a sign-in
    ended then reaches it (ui/states/session_watch.py end_sessions). SessionWatch.register does this
    on mount, but a tab's token can change after it: Reflex hands a reloaded tab a new token when its
    old socket is still on record in Redis (a reload under load, the new socket on another worker),
    and a tab missing from its user's set kept the feeds of a workspace its user had left."""
    from hitl_dashboard.services.live.user_tabs import user_tabs_store
    from hitl_dashboard.settings import get_settings

    await user_tabs_store(get_settings().redis_url).add(user_id, tab)


async def watch_summary(state: rx.State, feed: str, user_id: int) -> None:
    tab = state.router.session.client_token
    await watchers_store(SUMMARY).watch(feed, tab)
    await _register_tab(user_id, tab)


async def unwatch_summary(state: rx.State) -> None:
    await watchers_store(SUMMARY).forget_tab(state.router.session.client_token)


async def forget_every_watch(tab: str) -> None:
    """The tab's sign-in is gone (ended, deactivated): its page's feed and its queue summary push
    it nothing more (a page it opens again watches again, after its own check)."""
    await watchers_store().forget_tab(tab)
    await watchers_store(SUMMARY).forget_tab(tab)


async def forget_summary_watches(tabs: Iterable[str]) -> None:
    """These tabs get no queue summary any more until they ask again (their user's rights changed)."""
    store = watchers_store(SUMMARY)
    for tab in tabs:
        await store.forget_tab(tab)


async def watch(state: rx.State, feed: str, user_id: int) -> None:
    """From the tab's own event, once its user may see the feed: push the feed's changes to it from
    now on (and stop pushing the feed it showed before)."""
    tab = state.router.session.client_token
    await watchers_store().watch(feed, tab)
    await _register_tab(user_id, tab)


async def unwatch(state: rx.State, feed: str) -> None:
    """The tab may not see the feed after all (its read was refused): push it nothing more."""
    await watchers_store().forget(feed, state.router.session.client_token)


async def resync_on_next_refresh(feed: str, cls: type[rx.State]) -> None:
    """From a tab that has just filled its own copy from the database: that copy may be newer than
    the baseline (the baseline is only written by refreshes, and survives a restart on disk), so a
    field that changed and changed back since would never be in a delta. The next refresh sends
    every field of the feed instead (the feed's `_fill` reads `_resync`)."""
    from reflex.istate.manager import get_state_manager

    async with get_state_manager().modify_state(rx.BaseStateToken(ident=feed, cls=cls)) as root:
        (await root.get_state(cls))._resync = True


async def watched(feeds: list[str], slot: str = "") -> set[str]:
    """Of these feeds, the ones some tab watches: one lookup for them all."""
    return await watchers_store(slot).watched(feeds)


class Outbox:
    """The updates of one refresh pass, sent together: each tab gets one frame with the deltas of
    every feed of the pass it watches (its page's feed and its queue summary: a decision changes
    both), and the tabs that get the same feeds get the same encoded packet."""

    def __init__(self) -> None:
        self._feeds: dict[str, tuple[list[str], dict]] = {}

    def add(self, feed: str, tabs: list[str], delta: dict) -> None:
        self._feeds[feed] = (tabs, delta)

    def groups(self) -> list[tuple[list[str], dict]]:
        """(tabs, merged delta) per set of feeds: one per distinct combination some tab watches."""
        by_feeds: dict[tuple[str, ...], list[str]] = {}
        per_tab: dict[str, list[str]] = {}
        for feed, (tabs, _delta) in self._feeds.items():
            for tab in tabs:
                per_tab.setdefault(tab, []).append(feed)
        for tab, feeds in per_tab.items():
            by_feeds.setdefault(tuple(feeds), []).append(tab)
        return [(tabs, {name: values for feed in feeds for name, values in self._feeds[feed][1].items()})
                for feeds, tabs in by_feeds.items()]

    async def send(self, app: rx.App) -> None:
        for tabs, delta in self.groups():
            await send_to_tabs(app, tabs, StateUpdate(delta=delta), forget_every_watch)
        self._feeds.clear()


async def fill_and_fan_out(app: rx.App, feed: str, cls: type[Feed], fill: Callable[[Feed], None],
                           slot: str = "", outbox: Outbox | None = None) -> int:
    """Applies `fill` to the server's baseline of the feed and sends what changed to every tab
    watching it (or leaves it in `outbox`, which sends it with the pass's other feeds). Returns how
    many tabs it was for."""
    # Asked again here, after the caller read the fresh view: a tab that began watching while it
    # read gets this change too.
    store = watchers_store(slot)
    tabs = await store.watchers(feed)
    if not tabs:
        return 0
    async with app.state_manager.modify_state(rx.BaseStateToken(ident=feed, cls=cls)) as root:
        baseline = await root.get_state(cls)
        fill(baseline)
        delta = await root._get_resolved_delta()
        root._clean()
    # Only the feed's own vars (its computed vars included): nothing else of the baseline's tree.
    delta = {name: values for name, values in delta.items() if name == cls.get_full_name() and values}
    if not delta:
        return 0
    if outbox is not None:
        outbox.add(feed, tabs, delta)
        return len(tabs)

    async def forget(tab: str) -> None:
        await store.forget(feed, tab)

    await send_to_tabs(app, tabs, StateUpdate(delta=delta), forget)
    return len(tabs)


async def send_to_tabs(app: rx.App, tabs: Iterable[str], update: StateUpdate,
                       on_gone: Callable[[str], Awaitable[None]] | None = None) -> None:
    """The update to every tab: one emit, encoded once, to all the tabs whose socket this worker
    holds (a stream update to 50 tabs was 50 JSON encodings, 15 times a second); one by one to the
    others (another worker's, through Redis, or gone)."""
    namespace = app.event_namespace
    if namespace is None:
        return
    sockets = namespace._token_manager
    local_sids, elsewhere = [], []
    for tab in tabs:
        record = sockets.token_to_socket.get(tab)
        if record is not None and record.instance_id == sockets.instance_id:
            local_sids.append(record.sid)
        else:
            elsewhere.append(tab)
    if local_sids:
        try:
            await _emit_once(namespace, update, local_sids)
        except Exception:  # noqa: BLE001 - a broken socket must not stop the runner's refresh
            log.exception("pushing a live update to the browsers of this worker failed")
    await asyncio.gather(*(_send(namespace, tab, update, on_gone) for tab in elsewhere))


async def _emit_once(namespace, update: StateUpdate, sids: list[str]) -> None:
    """One Socket.IO packet, encoded once, queued on each socket in turn. python-socketio's own
    emit to a list of sids also encodes once, but makes a task per socket and waits for them all;
    queueing a packet never blocks (the socket's writer task sends it), so here it is a plain
    loop. A packet with binary parts (never a state update) goes through the ordinary emit."""
    from engineio import packet as eio_packet  # type: ignore[import-untyped]
    from socketio import packet as sio_packet  # type: ignore[import-untyped]

    server, name = namespace.server, namespace.namespace
    encoded = server.packet_class(sio_packet.EVENT, namespace=name,
                                  data=[str(constants.SocketEvent.EVENT), update]).encode()
    if not isinstance(encoded, str):
        await namespace.emit(str(constants.SocketEvent.EVENT), update, to=sids)
        return
    frame = eio_packet.Packet(eio_packet.MESSAGE, encoded)
    for sid in sids:
        eio_sid = server.manager.eio_sid_from_sid(sid, name)
        if eio_sid is not None:  # disconnected since the lookup
            await server.eio.send_packet(eio_sid, frame)


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
