"""Every event handler of every State, called by a forged websocket frame from a user without the
rights it needs: no handler may change another user's view, any row, or any decision.

The handlers come from Reflex's own registry (forged_frames.event_handlers), so a handler added
later is swept too. The attacker, mallory (product reviewer), is linked to the same live feeds as
the victim: the conversation alice is reviewing and the product-review queue alice watches.
alice (security + product reviewer) may decide every open review; mallory may decide none."""

from __future__ import annotations

import logging
import os
import re
import time
import uuid

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import text

from tests.e2e.app_process import RunningApp
from tests.e2e.forged_frames import Handler, Targets, WireTap, event_handlers, forged_calls, round_trip_all
from tests.e2e.support import make_user, open_reviews, sign_in, start, wait_for

MARKER = "toggle_split"  # a harmless handler whose reply is always a delta (it flips this browser's split view)
MARKER_VAR = "split_view"
QUEUE = "product_reviewer"
# Business tables, and the columns that change without anybody deciding anything.
TABLES = {"conversations": {"lease_owner", "lease_expires_at", "updated_at"}, "messages": set(),
          "review_requests": set(), "decisions": set(), "tool_calls": set(), "code_revisions": set(),
          "users": set(), "webhooks": set(), "api_tokens": {"last_used_at"}}
PER_CONVERSATION = {"conversations", "messages", "review_requests", "decisions", "tool_calls", "code_revisions"}
log = logging.getLogger(__name__)


def _marker(handlers: list[Handler]) -> str:
    found = [h for h in handlers if h.name == MARKER and h.fn.__code__.co_argcount == 1]  # (self) only
    assert found, f"no {MARKER}() handler left to use as the round-trip marker: pick another harmless one"
    return found[0].event_name


def business_rows(app: RunningApp, skip_conversations: set[int], own_tokens_of: int) -> dict[str, list]:
    """Every business row, minus volatile columns, other tests' conversations and mallory's own
    sessions (signing herself in or out is her right), and conversations she started herself: anyone
    signed in may start one, or fork one (ForkState.submit_fork), and the fork is hers."""
    snapshot = {}
    with app.engine.connect() as db:
        own = {r[0] for r in db.execute(text("SELECT id FROM conversations WHERE initiator_id = :u"),
                                         {"u": own_tokens_of})}
        skip_conversations = set(skip_conversations) | own
        for table, volatile in TABLES.items():
            rows = []
            for row in db.execute(text(f"SELECT * FROM {table} ORDER BY id")).mappings():
                cid = row["id"] if table == "conversations" else row.get("conversation_id")
                if table in PER_CONVERSATION and cid in skip_conversations:
                    continue
                if table == "api_tokens" and row["user_id"] == own_tokens_of:
                    continue
                rows.append({k: str(v) for k, v in row.items() if k not in volatile})
            snapshot[table] = rows
    return snapshot


# What a victim sees, read in one call per page (the sweep reads both views after every handler):
# each entry is the inner texts of the elements a selector finds, or (with "@attr") that attribute.
READ_VIEW = """(parts) => Object.fromEntries(Object.entries(parts).map(([key, selector]) => {
    const [css, attribute] = selector.split("@");
    const found = [...document.querySelectorAll(css)];
    return [key, found.map((el) => attribute ? el.getAttribute(attribute) : el.innerText)];
}))"""
CONVERSATION_PARTS = {"title": "#conversation-title", "banner": "#status-banner", "transcript": "#transcript",
                      "signoff": ".signoff-step", "cards": ".review-card", "card_ids": ".review-card@data-review-id"}
QUEUE_PARTS = {"rows": ".queue-row", "row_ids": ".queue-row@data-review-id", "empty": "#queue-empty",
               "tabs": "#role-tabs"}


def conversation_view(page: Page) -> dict:
    return page.evaluate(READ_VIEW, CONVERSATION_PARTS)


def queue_view(page: Page) -> dict:
    view = page.evaluate(READ_VIEW, QUEUE_PARTS)
    # The tabs without their counts: a count is over every conversation, those mallory may start
    # herself included (a fork is hers), so it changes whenever alice's 10 s poll lands after one.
    # A forged change to a count would need a changed row, which business_rows finds.
    view["tabs"] = [re.sub(r"\n\d+\+?(?=\n|$)", "", tabs) for tabs in view["tabs"]]
    return view


def differences(before: dict, after: dict) -> list[str]:
    return [f"{key}: {before.get(key)!r} -> {after.get(key)!r}"[:400]
            for key in sorted(set(before) | set(after)) if before.get(key) != after.get(key)]


def row_differences(before: dict, after: dict) -> list[str]:
    out = []
    for table in TABLES:
        old = {r["id"]: r for r in before[table]}
        new = {r["id"]: r for r in after[table]}
        for row_id in sorted(set(old) | set(new), key=int):
            if old.get(row_id) != new.get(row_id):
                out.append(f"{table} #{row_id}: {old.get(row_id)} -> {new.get(row_id)}"[:400])
    return out


def victim_taps(victims: list[tuple[Page, WireTap, object]]) -> list[WireTap]:
    return [tap for _, tap, _ in victims]


def open_tapped(browser: Browser, app: RunningApp, username: str, *paths: str) -> tuple[Page, WireTap]:
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    tap = WireTap(page)
    sign_in(page, app, username)
    for path in paths:  # each page opened links this browser to that page's live feed
        page.goto(app.base_url + path)
        expect(page.locator(".review-card, #queue-table, #queue-empty").first).to_be_visible(timeout=20_000)
    tap.ready()
    return page, tap


@pytest.mark.slow  # two to three minutes: the longest test of the suite
@pytest.mark.timeout(900)  # about 80 handlers at ~1 s each on a busy 2-core machine, plus the app start
def test_no_forged_frame_changes_another_users_view_or_any_row(app_server: RunningApp, browser: Browser):
    handlers = event_handlers()
    marker = _marker(handlers)
    # FORGED_ONLY=Feed: sweep only the handlers whose "State.handler" label contains that text (debugging).
    handlers = [h for h in handlers if os.environ.get("FORGED_ONLY", "") in h.label]
    with app_server.engine.connect() as db:
        foreign = {r[0] for r in db.execute(text("SELECT id FROM conversations"))}

    alice = make_user(app_server, "security_reviewer", "product_reviewer", prefix="alice")
    mallory = make_user(app_server, "product_reviewer", prefix="mallory")
    starter = make_user(app_server, "final_approver", prefix="dev")
    cid = start(app_server, starter, "Add audit logging to the billing export")
    other = start(app_server, starter, "Add rate limiting to the login endpoint")
    ops = start(app_server, starter, "Deploy billing-api v1.2.3 to production", task_type="ops")
    [victim_review] = wait_for(lambda: open_reviews(app_server, cid), what="the security review")
    [other_review] = wait_for(lambda: open_reviews(app_server, other), what="the other conversation's review")
    [tool_review] = wait_for(lambda: open_reviews(app_server, ops), what="the deploy_to_prod approval")
    assert tool_review.kind == "tool_call" and mallory  # mallory holds none of the roles these need
    assert {r.required_role for r in (victim_review, other_review, tool_review)} == {"security_reviewer"}
    with app_server.engine.connect() as db:
        mallory_id = db.execute(text("SELECT id FROM users WHERE username = :u"), {"u": mallory}).scalar_one()

    targets = Targets(canary=f"FORGED{uuid.uuid4().hex[:8]}", victim_review=(victim_review.id, victim_review.version),
                      other_review=(other_review.id, other_review.version),
                      tool_review=(tool_review.id, tool_review.version), other_conversation=other,
                      victim_username=alice)
    conversation_path, queue_path = f"/conversations/{cid}", f"/queue?role={QUEUE}"

    def victim() -> list[tuple[Page, WireTap, object]]:
        """alice in a fresh browser: the conversation in one tab, her product queue in another."""
        conversation, conversation_tap = open_tapped(browser, app_server, alice, conversation_path)
        queue = conversation.context.new_page()  # same sign-in, its own browser tab and feed links
        queue_tap = WireTap(queue)
        queue.goto(app_server.base_url + queue_path)
        expect(queue.locator("#queue-table, #queue-empty").first).to_be_visible(timeout=20_000)
        queue_tap.ready()
        return [(conversation, conversation_tap, conversation_view), (queue, queue_tap, queue_view)]

    victims = victim()

    def attacker() -> tuple[Page, WireTap]:
        return open_tapped(browser, app_server, mallory, queue_path, conversation_path)

    def settle(*taps: WireTap) -> list[str]:
        # Twice: events a forged handler chained run before the second marker (same ordered queue);
        # two flips also leave the view as it was.
        try:
            round_trip_all(list(taps), marker, MARKER_VAR)
            round_trip_all(list(taps), marker, MARKER_VAR)
        except AssertionError as exc:
            return [f"pages {[tap.page.url for tap in taps]} stopped answering events: {exc}"]
        return []

    def snapshot() -> tuple[dict, list[dict]]:
        return (business_rows(app_server, foreign, mallory_id),
                [view(page) for page, _, view in victims])

    mallory_page, mallory_tap = attacker()
    settle(mallory_tap)
    settle(*victim_taps(victims))
    rows_before, views_before = snapshot()
    assert victim_review.id and [str(victim_review.id)] == views_before[0]["card_ids"]

    offenders: dict[str, list[str]] = {}
    for handler in handlers:
        began = time.monotonic()
        marks = [len(tap.received) for _, tap, _ in victims]
        for payload in forged_calls(handler, targets):
            mallory_tap.send(handler.event_name, payload)
        found = [f"mallory's {d}" for d in settle(mallory_tap)]
        # After mallory's: the feeds' fan-out reaches alice before her own marker's reply.
        found += [f"alice's {d}" for d in settle(*victim_taps(victims))]
        rows_after, views_after = snapshot()
        found += row_differences(rows_before, rows_after)
        for (page, tap, _view), before, after, mark in zip(victims, views_before, views_after, marks, strict=True):
            where = "conversation page" if "/conversations/" in page.url else "queue page"
            found += [f"alice's {where}: {d}" for d in differences(before, after)]
            if any(targets.canary in frame for frame in tap.frames_since(mark)):
                found.append(f"alice's {where} was sent the forged content")
        log.info("%s: %d frames, %.2f s%s", handler.label, len(forged_calls(handler, targets)),
                 time.monotonic() - began, " FLAGGED" if found else "")
        if found:
            offenders[handler.label] = found
            # Fresh browsers refill the feeds from the database: the next handler starts from the truth.
            victims[0][0].context.close()
            victims = victim()
            settle(*victim_taps(victims))
            mallory_page.context.close()
            mallory_page, mallory_tap = attacker()
            settle(mallory_tap)
            rows_before, views_before = snapshot()
            continue
        # A handler that sent mallory elsewhere: start her again, so every handler is forged by a
        # signed-in user holding the same (insufficient) rights. (No handler can sign her out: that
        # is an HTTP route now, with her HttpOnly cookie.)
        if not mallory_page.url.endswith(conversation_path):
            mallory_page.context.close()
            mallory_page, mallory_tap = attacker()
            settle(mallory_tap)

    report = "\n".join(f"{name}:\n    " + "\n    ".join(found) for name, found in offenders.items())
    assert not offenders, f"{len(offenders)} of {len(handlers)} handlers let a forged frame through:\n{report}"

    # Control: alice approves the review card she sees, through the UI. The decision lands on that
    # review, in her name, and on nothing else: what she was shown is what she decided.
    card = victims[0][0].locator(f".review-card[data-review-id='{victim_review.id}']")
    card.get_by_role("button", name="Approve", exact=True).click()
    query = text("SELECT review_request_id, action, reviewer_id FROM decisions WHERE conversation_id IN (:a, :b, :c)")

    def decided() -> list[tuple]:
        with app_server.engine.connect() as db:
            return [tuple(row) for row in db.execute(query, {"a": cid, "b": other, "c": ops})]

    wait_for(decided, what="alice's approval")
    with app_server.engine.connect() as db:
        alice_id = db.execute(text("SELECT id FROM users WHERE username = :u"), {"u": alice}).scalar_one()
    assert decided() == [(victim_review.id, "approve", alice_id)]
    assert [r.id for r in open_reviews(app_server, other)] == [other_review.id]
