"""The queue summary is pushed per role set (issue 33): a change of a queue refreshes the summary of
every watched role set holding that role, once, whatever the number of tabs; the summary watches
are a slot of their own beside the page's feed; a user's rights changing drops their tabs' summary
watches and asks each tab to check again."""

from __future__ import annotations

import asyncio

import pytest

from hitl_dashboard.domain.enums import QUEUE_ROLES
from hitl_dashboard.services.live.streams import LocalStreams, RedisStreams
from hitl_dashboard.services.reviews.queue_summary import role_sets_touching
from hitl_dashboard.ui import live as live_ui
from hitl_dashboard.ui.fanout import SUMMARY, summary_token, watchers_store
from hitl_dashboard.ui.states import session_watch
from hitl_dashboard.ui.states.queue_summary import QueueSummary
from tests.support.redis_check import redis_or_skip

REDIS_URL = "redis://127.0.0.1:6379/13"  # as tests/test_live_refresh_lookup.py: emptied by these tests
pytestmark = pytest.mark.xdist_group("redis-db-13")


@pytest.fixture(params=["memory", "redis"])
def stores(request):
    if request.param == "memory":
        return LocalStreams(), LocalStreams()
    redis_or_skip(REDIS_URL).flushdb()
    return RedisStreams(REDIS_URL), RedisStreams(REDIS_URL, SUMMARY)


def test_a_tab_watches_its_page_and_its_summary_apart_and_forgetting_the_summary_keeps_the_page(stores):
    feeds, summaries = stores

    async def scenario():
        await feeds.watch("conv-1", "tab-a")
        await summaries.watch("summary-security-reviewer", "tab-a")
        await summaries.watch("summary-security-reviewer", "tab-b")
        await summaries.forget_tab("tab-a")
        await summaries.forget_tab("tab-nobody")  # watches nothing: nothing to do
        assert await feeds.watchers("conv-1") == ["tab-a"]
        assert await summaries.watchers("summary-security-reviewer") == ["tab-b"]
        await summaries.watch("summary-product-reviewer", "tab-b")  # one summary per tab: it left the other
        assert await summaries.watched(["summary-security-reviewer", "summary-product-reviewer"]) == {
            "summary-product-reviewer"}

    asyncio.run(scenario())


def test_the_role_sets_a_change_touches():
    sets = role_sets_touching(("final_approver",), QUEUE_ROLES)
    assert all("final_approver" in s for s in sets) and len(sets) == 2 ** (len(QUEUE_ROLES) - 1)
    assert tuple(QUEUE_ROLES) in sets and ("final_approver",) in sets
    assert role_sets_touching((), QUEUE_ROLES) == []
    assert summary_token(("security_reviewer", "admin"), 3) == "summary-w3-security-reviewer+admin"


def test_a_pass_refreshes_each_watched_role_set_once(monkeypatch):
    sent: list = []

    async def summary(_app, roles, workspace_id, outbox=None):
        sent.append((roles, workspace_id))

    async def nothing(*_args, **_kwargs):
        return None

    monkeypatch.setattr(live_ui, "refresh_summary", summary)
    monkeypatch.setattr(live_ui, "refresh_queue", nothing)
    monkeypatch.setattr(live_ui, "workspace_ids", lambda: [1, 2, 3])

    async def scenario():
        store = watchers_store(SUMMARY)
        for tab in ("tab-1", "tab-2", "tab-3"):
            await store.watch(summary_token(("security_reviewer",), 1), tab)
        await store.watch(summary_token(("product_reviewer",), 1), "tab-4")
        await store.watch(summary_token(tuple(QUEUE_ROLES), 1), "tab-5")
        await store.watch(summary_token(("security_reviewer",), 2), "tab-6")  # another workspace's security
        await live_ui.refresh(object(), [], ("security_reviewer",))

    asyncio.run(scenario())
    # The product reviewers' summary holds no security request: not read. Each workspace's summary is
    # its own read (a tab of workspace 1 never gets workspace 2's counts); nobody watches workspace 3.
    assert sorted(sent) == sorted([(("security_reviewer",), 1), (("security_reviewer",), 2),
                                   (tuple(QUEUE_ROLES), 1)])


def test_rights_changed_drop_the_summary_watches_and_ask_the_tabs_again(monkeypatch):
    pushed: list = []

    async def send(_app, tabs, update, _on_gone=None):
        pushed.append((sorted(tabs), [event.name for event in update.events]))

    monkeypatch.setattr(session_watch, "send_to_tabs", send)

    async def scenario():
        await session_watch._store().add(77, "tab-x")
        summaries, feeds = watchers_store(SUMMARY), watchers_store()
        await summaries.watch("summary-security-reviewer", "tab-x")
        await summaries.watch("summary-security-reviewer", "tab-y")  # another user's tab
        await feeds.watch("conv-9", "tab-x")  # a conversation of a workspace the user may just have left
        await feeds.watch("conv-9", "tab-y")
        await session_watch.end_sessions(object(), 77)
        return await summaries.watchers("summary-security-reviewer"), await feeds.watchers("conv-9")

    # Nothing is pushed to the user's tabs until each page has opened its feeds again, checked.
    assert asyncio.run(scenario()) == (["tab-y"], ["tab-y"])
    assert pushed == [(["tab-x"], [session_watch.RECHECK.name, f"{QueueSummary.get_full_name()}.refresh",
                                   session_watch.REOPEN.name])]


def test_a_tab_whose_token_changed_after_it_registered_is_still_told(monkeypatch):
    """Reflex hands a reloaded tab a new token when its old socket is still on record in Redis (the
    new socket on another worker, under load): SessionWatch.register had stored the old one. Opening
    a feed registers the token it watches with, so a membership removal reaches that tab and stops
    the feed of the workspace its user left (a likely cause of the one failure of the hosted
    two-workspace test: the tab kept beta's rows)."""
    from types import SimpleNamespace

    from hitl_dashboard.ui.fanout import watch, watch_summary

    pushed: list = []

    async def send(_app, tabs, update, _on_gone=None):
        pushed.append(sorted(tabs))

    monkeypatch.setattr(session_watch, "send_to_tabs", send)
    reloaded = SimpleNamespace(router=SimpleNamespace(session=SimpleNamespace(client_token="tab-new")))

    async def scenario():
        await session_watch._store().add(78, "tab-old")  # on mount, before the token changed
        await watch(reloaded, "queue-w2-security-reviewer", 78)  # the page's feed, under the new token
        await watch_summary(reloaded, "summary-w2-security-reviewer", 78)
        await session_watch.end_sessions(object(), 78)
        return (await watchers_store().watchers("queue-w2-security-reviewer"),
                await watchers_store(SUMMARY).watchers("summary-w2-security-reviewer"))

    assert asyncio.run(scenario()) == ([], [])
    assert pushed == [["tab-new", "tab-old"]]


def test_a_signed_out_tab_is_forgotten_by_its_page_feed_and_its_summary():
    from hitl_dashboard.ui.fanout import forget_every_watch

    async def scenario():
        feeds, summaries = watchers_store(), watchers_store(SUMMARY)
        await feeds.watch("conv-8", "tab-gone")
        await feeds.watch("conv-8", "tab-kept")
        await summaries.watch("summary-admin", "tab-gone")
        await forget_every_watch("tab-gone")
        return await feeds.watchers("conv-8"), await summaries.watchers("summary-admin")

    assert asyncio.run(scenario()) == (["tab-kept"], [])


def test_a_pass_sends_each_tab_one_frame_with_every_feed_it_watches():
    from hitl_dashboard.ui.fanout import Outbox

    outbox = Outbox()
    outbox.add("conv-1", ["tab-a", "tab-b", "tab-c"], {"state.conversation_feed": {"status": "paused"}})
    outbox.add("summary-security-reviewer", ["tab-a", "tab-b", "tab-q"], {"state.queue_summary": {"loaded": True}})
    groups = sorted((sorted(tabs), sorted(delta)) for tabs, delta in outbox.groups())
    assert groups == [
        (["tab-a", "tab-b"], ["state.conversation_feed", "state.queue_summary"]),  # one packet for both
        (["tab-c"], ["state.conversation_feed"]),
        (["tab-q"], ["state.queue_summary"]),
    ]
