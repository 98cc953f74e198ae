"""A stored message refreshes only the newest part of the transcript: the feed keeps a settled part
that changes every SETTLED_EVERY messages, so a refresh does not send the whole, growing transcript
to every watching tab (issue 12: the app's work per decision grew with the conversation). The feed
holds the newest window alone (issue 33): what came before is counted, and each tab reads it itself."""

from __future__ import annotations

from hitl_dashboard.services.conversations.transcript_window import WINDOW_BLOCKS
from hitl_dashboard.ui.states.feeds import SETTLED_EVERY, ConversationFeed
from hitl_dashboard.ui.views.conversation_view import ConversationView, MessageRow


def _view(count: int) -> ConversationView:
    rows = [MessageRow(seq=seq, source="coder", content=f"message {seq}") for seq in range(1, count + 1)]
    return ConversationView(id=7, title="t", messages=rows, found=True)


def _filled(count: int) -> ConversationFeed:
    feed = ConversationFeed(_reflex_internal_init=True)
    feed._fill(_view(count), everything=True)
    feed._clean()
    return feed


def _shown(feed: ConversationFeed) -> list[int]:
    return [row.seq for row in [*feed.settled_messages, *feed.messages]]


def test_the_feed_holds_the_newest_window_once_in_order_and_counts_the_rest():
    for count in (0, 1, SETTLED_EVERY - 1, SETTLED_EVERY, SETTLED_EVERY + 1, 3 * SETTLED_EVERY,
                  3 * SETTLED_EVERY + 1, 100, 500):
        feed = _filled(count)
        shown = _shown(feed)
        # The newest messages, without a gap up to the last; never more than WINDOW_BLOCKS + 1 blocks.
        assert shown == list(range(count - len(shown) + 1, count + 1)), count
        assert len(shown) <= (WINDOW_BLOCKS + 1) * SETTLED_EVERY, count
        assert len(shown) == count or len(shown) > WINDOW_BLOCKS * SETTLED_EVERY, count
        assert feed.older_messages == count - len(shown), count
        assert feed.first_seq == (shown[0] if shown else 0), count


def test_a_window_move_sends_the_same_rows_whatever_the_length():
    for count in (3 * SETTLED_EVERY, 30 * SETTLED_EVERY):
        feed = _filled(count)
        feed._fill(_view(count + 1))
        assert len(feed.settled_messages) == WINDOW_BLOCKS * SETTLED_EVERY and len(feed.messages) == 1, count


def test_a_new_message_changes_the_newest_rows_alone():
    feed = _filled(2 * SETTLED_EVERY + 3)
    feed._fill(_view(2 * SETTLED_EVERY + 4))
    assert "messages" in feed.dirty_vars and "settled_messages" not in feed.dirty_vars
    assert len(feed.messages) == 4 and _shown(feed)[-1] == 2 * SETTLED_EVERY + 4


def test_the_head_moves_once_every_settled_every_messages():
    feed = _filled(2 * SETTLED_EVERY)
    feed._fill(_view(2 * SETTLED_EVERY + 1))
    assert {"messages", "settled_messages"} <= feed.dirty_vars
    assert len(feed.settled_messages) == WINDOW_BLOCKS * SETTLED_EVERY
    assert [r.seq for r in feed.messages] == [2 * SETTLED_EVERY + 1]
    feed._clean()
    for extra in range(2, SETTLED_EVERY + 1):  # the next SETTLED_EVERY - 1 messages leave the head alone
        feed._fill(_view(2 * SETTLED_EVERY + extra))
        assert "settled_messages" not in feed.dirty_vars, extra
        feed._clean()
