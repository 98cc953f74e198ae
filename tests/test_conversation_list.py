"""Finding a conversation: keyset pages through the whole list, search by words of the title or task,
filters by status, task type, initiator and day; on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hitl_dashboard.services.conversations.conversation_list import (
    ConversationFilter,
    conversation_page,
    list_conversations,
)
from hitl_dashboard.services.conversations.conversations import abort_conversation
from tests.support import flow

COUNT = 120


def _seed() -> list[int]:
    flow.make_people()
    ids = []
    for i in range(COUNT):
        task_type = "copy" if i % 3 == 0 else "code"
        who = "bob" if i % 4 == 0 else "frank"
        task = f"Write the changelog entry {i}" if task_type == "copy" else f"Refactor module number {i}"
        if i == 77:
            task = "Add exponential backoff to the Zanzibar client"
        if i == 88:  # the title is the first line: the second is in the task only
            task = "Refactor module number 88\nAlso rename the Quokka helper it exports"
        ids.append(flow.start(task, task_type=task_type, as_user=who))
    return ids


def _all_pages(filters: ConversationFilter, size: int) -> tuple[list[int], list[int]]:
    """Follow 'older' from the newest page to the end, then 'newer' back: the ids seen each way."""
    seen, positions = [], []
    page = conversation_page(None, filters, size=size)
    while True:
        seen += [row.id for row in page.rows]
        positions.append(page.first_position)
        if page.older_cursor is None:
            break
        page = conversation_page(None, filters, before=page.older_cursor, size=size)
    back = [row.id for row in page.rows]
    while page.newer_cursor is not None:
        page = conversation_page(None, filters, after=page.newer_cursor, size=size)
        back = [row.id for row in page.rows] + back
    return seen, back


def test_pages_cover_every_conversation_once_newest_first_and_back(db_url) -> None:
    ids = _seed()
    seen, back = _all_pages(ConversationFilter(), size=50)
    assert seen == sorted(ids, reverse=True)
    assert back == seen
    first = conversation_page(None, ConversationFilter(), size=50)
    assert (first.total, first.first_position, first.newer_cursor) == (COUNT, 1, None)
    second = conversation_page(None, ConversationFilter(), before=first.older_cursor, size=50)
    assert second.first_position == 51 and second.rows[0].id == first.rows[-1].id - 1
    last = conversation_page(None, ConversationFilter(), before=second.older_cursor, size=50)
    assert (last.first_position, len(last.rows), last.older_cursor) == (101, 20, None)


def test_search_and_filters(db_url) -> None:
    ids = _seed()
    [hit] = conversation_page(None, ConversationFilter(text="zanzibar BACKOFF")).rows
    assert hit.id == ids[77] and hit.initiator == "frank"
    assert conversation_page(None, ConversationFilter(text="zanzibar changelog")).rows == []  # every word must match
    # A word of the task that is not in the title, next to one that is in both.
    [hit] = conversation_page(None, ConversationFilter(text="quokka")).rows
    assert hit.id == ids[88] and hit.title == "Refactor module number 88" and "quokka" not in hit.title.lower()
    assert [r.id for r in conversation_page(None, ConversationFilter(text="QUOKKA module")).rows] == [ids[88]]
    # LIKE wildcards in a search are plain characters, not patterns.
    assert conversation_page(None, ConversationFilter(text="%")).total == 0
    assert conversation_page(None, ConversationFilter(text="_")).total == 0

    copies = conversation_page(None, ConversationFilter(task_type="copy"), size=500)
    assert copies.total == len(range(0, COUNT, 3)) and {r.task_type for r in copies.rows} == {"copy"}
    by_bob = conversation_page(None, ConversationFilter(initiator="bob"), size=500)
    assert by_bob.total == COUNT // 4 and {r.initiator for r in by_bob.rows} == {"bob"}
    both = conversation_page(None, ConversationFilter(initiator="bob", task_type="copy"), size=500)
    assert {r.id for r in both.rows} == {ids[i] for i in range(COUNT) if i % 4 == 0 and i % 3 == 0}

    abort_conversation(flow.actor("erin"), ids[5], "not needed")
    [aborted] = conversation_page(None, ConversationFilter(status="aborted")).rows
    assert aborted.id == ids[5]

    today = datetime.now(UTC).date()
    assert conversation_page(None, ConversationFilter(created_from=today, created_to=today)).total == COUNT
    yesterday = today - timedelta(days=1)
    assert conversation_page(None, ConversationFilter(created_to=yesterday)).total == 0

    # The API's offset pages use the same filters.
    assert [r.id for r in list_conversations(None, ConversationFilter(initiator="bob"), limit=5, offset=5)] == \
        [r.id for r in by_bob.rows[5:10]]


def test_a_stale_cursor_shows_the_newest_page(db_url) -> None:
    ids = _seed()
    page = conversation_page(None, ConversationFilter(), before=1, size=50)  # nothing is older than #1
    assert page.rows[0].id == max(ids) and page.first_position == 1
    page = conversation_page(None, ConversationFilter(), after=max(ids), size=50)  # nothing is newer
    assert page.rows[0].id == max(ids) and page.newer_cursor is None


def test_a_member_of_several_workspaces_pages_through_theirs_merged_newest_first(db_url) -> None:
    """Issue 41: a reader in three workspaces (of four) gets their conversations, newest first, in
    pages that meet end to end both ways and with offsets, filtered too, exactly as the whole list
    filtered by hand; a fourth workspace's conversations never show."""
    from hitl_dashboard.services.auth.users import create_user, find_actor
    from hitl_dashboard.services.workspaces import workspaces

    flow.make_people()
    places = [workspaces.create_workspace(None, slug=f"place-{n}", name=f"Place {n}") for n in range(4)]
    create_user(username="wendy", password="pw-wendy", roles=["product_reviewer"], workspace_id=places[0].id)
    for place in places:
        workspaces.set_member(None, place.slug, username="frank", roles=["product_reviewer"])
    for place in places[1:3]:
        workspaces.set_member(None, place.slug, username="wendy", roles=["manager"])
    for i in range(23):  # interleaved over the four, so each page mixes workspaces
        flow.start(f"Refactor module number {i}", task_type="copy" if i % 3 == 0 else "code",
                   workspace=places[i % 4].slug)
    wendy = find_actor("wendy")
    everything = list_conversations(None, limit=500)
    theirs = [row.id for row in everything if row.title.startswith("Refactor") and
              (row.id - everything[-1].id) % 4 != 3]
    assert len(theirs) == 18
    # Pages of 4 (and a filter), each way, as the list page and the API read them.
    for filters, expected in ((ConversationFilter(), theirs),
                              (ConversationFilter(task_type="copy"),
                               [r.id for r in everything if r.id in theirs and r.task_type == "copy"])):
        seen, page = [], conversation_page(wendy, filters, size=4)
        assert page.total == len(expected)
        while True:
            seen += [row.id for row in page.rows]
            if page.older_cursor is None:
                break
            page = conversation_page(wendy, filters, before=page.older_cursor, size=4)
        back = [row.id for row in page.rows]
        while page.newer_cursor is not None:
            page = conversation_page(wendy, filters, after=page.newer_cursor, size=4)
            back = [row.id for row in page.rows] + back
        assert seen == back == expected
        offsets = [row.id for offset in range(0, len(expected), 5)
                   for row in list_conversations(wendy, filters, limit=5, offset=offset)]
        assert offsets == expected
