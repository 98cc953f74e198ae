"""Every event handler of every State, called by a forged websocket frame from a user without the
rights it needs: no handler may change another user's view, any row, or any decision, and none may
show a page of one workspace to somebody outside it (issue 41).

The handlers come from Reflex's own registry (forged_frames.event_handlers), so a handler added
later is swept too. Everything the victim sees belongs to workspace beta. alice (security + product
reviewer in beta) may decide every open review there. Two attackers forge every handler:
- mallory, a product reviewer of beta, linked to the same live feeds as alice (the conversation
  alice is reviewing and the product-review queue alice watches), may decide none of them;
- eve holds every workspace role in alpha (reviewer, manager, workspace admin) and was a member of
  beta until just before: a role held in another workspace, or a membership removed, must open
  nothing of beta. Every forged workspace argument names beta, and no frame eve receives may carry
  beta's conversation titles."""

from __future__ import annotations

import logging
import os
import re
import time
import uuid

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import text
from sqlmodel import select

from hitl_dashboard.db.models import User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.users import actor_of
from hitl_dashboard.services.rules.rules import RuleCommand, add_rule
from tests.e2e.app_process import RunningApp
from tests.e2e.forged_frames import Handler, Targets, WireTap, event_handlers, forged_calls, round_trip_all
from tests.e2e.support import make_user, make_workspace, open_reviews, set_member, sign_in, start, wait_for

MARKER = "toggle_split"  # a harmless handler whose reply is always a delta (it flips this browser's split view)
MARKER_VAR = "split_view"
QUEUE = "product_reviewer"
EVERY_WORKSPACE_ROLE = ("security_reviewer", "product_reviewer", "final_approver", "manager", "workspace_admin")
# Business tables, and the columns that change without anybody deciding anything.
TABLES = {"conversations": {"lease_owner", "lease_expires_at", "updated_at"}, "messages": set(),
          "review_requests": set(), "decisions": set(), "tool_calls": set(), "code_revisions": set(),
          "users": set(), "webhooks": set(), "api_tokens": {"last_used_at"}, "workspaces": set(),
          "workspace_members": set(), "slack_user_links": set(), "standing_rules": set(),
          "standing_rule_observations": set(), "workspace_rule_settings": set()}
PER_CONVERSATION = {"conversations", "messages", "review_requests", "decisions", "tool_calls", "code_revisions"}
log = logging.getLogger(__name__)


def _marker(handlers: list[Handler]) -> str:
    found = [h for h in handlers if h.name == MARKER and h.fn.__code__.co_argcount == 1]  # (self) only
    assert found, f"no {MARKER}() handler left to use as the round-trip marker: pick another harmless one"
    return found[0].event_name


def business_rows(app: RunningApp, skip_conversations: set[int], attackers: set[int],
                  attackers_workspace: int) -> dict[str, list]:
    """Every business row, minus volatile columns, other tests' conversations, the attackers' own
    sessions (signing oneself in or out is one's right), conversations they started themselves
    (anyone signed in may start one, or fork one: ForkState.submit_fork, and the fork is theirs),
    and the workspace eve administers (managing its members is her right)."""
    snapshot = {}
    with app.engine.connect() as db:
        own = {r[0] for r in db.execute(text("SELECT id, initiator_id FROM conversations")) if r[1] in attackers}
        skip_conversations = set(skip_conversations) | own
        for table, volatile in TABLES.items():
            rows = []
            key = "workspace_id" if table == "workspace_rule_settings" else "id"  # one row per workspace
            for row in db.execute(text(f"SELECT * FROM {table} ORDER BY {key}")).mappings():
                cid = row["id"] if table == "conversations" else row.get("conversation_id")
                if table in PER_CONVERSATION and cid in skip_conversations:
                    continue
                if table == "api_tokens" and row["user_id"] in attackers:
                    continue
                if attackers_workspace in (row.get("workspace_id"), row.get("id") if table == "workspaces" else None):
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


def alices_rule(app: RunningApp, alice: str, workspace_id: int) -> int:
    """A standing rule of beta in shadow, made by alice: forged promotions, pauses and revocations aim at it."""
    with UnitOfWork(app.engine) as uow:
        user = uow.session.exec(select(User).where(User.username == alice)).one()
        command = RuleCommand(team="ops", tool="deploy_to_prod", when={"argument": "environment", "equals": "staging"})
        rule = add_rule(uow.session, actor_of(user), workspace_id, command)
        uow.commit()
        return rule.id


def victim_taps(victims: list[tuple[Page, WireTap, object]]) -> list[WireTap]:
    return [tap for _, tap, _ in victims]


def open_tapped(browser: Browser, app: RunningApp, username: str, *paths: str) -> tuple[Page, WireTap]:
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    tap = WireTap(page)
    sign_in(page, app, username)
    for path in paths:  # each page opened links this browser to that page's live feed (if it may see it)
        page.goto(app.base_url + path)
        expect(page.locator(".review-card, #queue-table, #queue-empty, #conversation-error").first).to_be_visible(
            timeout=20_000)
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

    alpha, _ = make_workspace(app_server, "alpha")
    beta, beta_slug = make_workspace(app_server, "beta")
    alice = make_user(app_server, "security_reviewer", "product_reviewer", prefix="alice", workspace_id=beta)
    mallory = make_user(app_server, "product_reviewer", prefix="mallory", workspace_id=beta)
    eve = make_user(app_server, *EVERY_WORKSPACE_ROLE, prefix="eve", workspace_id=alpha)
    set_member(app_server, beta, eve, ["security_reviewer"])
    set_member(app_server, beta, eve, [])  # removed
    starter = make_user(app_server, "final_approver", prefix="dev", workspace_id=beta)
    secret = f"BETAONLY{uuid.uuid4().hex[:8]}"  # in the titles of beta's conversations: eve may never receive it

    def begin(task: str, task_type: str = "code") -> int:
        return start(app_server, starter, task, task_type, workspace=beta_slug, title=f"{task} {secret}")

    cid = begin("Add audit logging to the billing export")
    other = begin("Add rate limiting to the login endpoint")
    ops = begin("Deploy billing-api v1.2.3 to production", task_type="ops")
    [victim_review] = wait_for(lambda: open_reviews(app_server, cid), what="the security review")
    [other_review] = wait_for(lambda: open_reviews(app_server, other), what="the other conversation's review")
    [tool_review] = wait_for(lambda: open_reviews(app_server, ops), what="the deploy_to_prod approval")
    assert tool_review.kind == "tool_call" and mallory  # mallory holds none of the roles these need
    assert {r.required_role for r in (victim_review, other_review, tool_review)} == {"security_reviewer"}
    with app_server.engine.connect() as db:
        attackers = {db.execute(text("SELECT id FROM users WHERE username = :u"), {"u": name}).scalar_one()
                     for name in (mallory, eve)}

    targets = Targets(canary=f"FORGED{uuid.uuid4().hex[:8]}", victim_review=(victim_review.id, victim_review.version),
                      other_review=(other_review.id, other_review.version),
                      tool_review=(tool_review.id, tool_review.version), other_conversation=other,
                      victim_username=alice, victim_workspace=beta_slug, rule=alices_rule(app_server, alice, beta))
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

    def attacker(name: str) -> tuple[Page, WireTap]:
        # eve's own queue (in alpha, where she holds the role), then beta's conversation: not found.
        first = queue_path if name == mallory else "/queue?role=security_reviewer"
        return open_tapped(browser, app_server, name, first, conversation_path)

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
        return (business_rows(app_server, foreign, attackers, alpha),
                [view(page) for page, _, view in victims])

    forgers = {name: attacker(name) for name in (mallory, eve)}
    settle(*[tap for _, tap in forgers.values()])
    settle(*victim_taps(victims))
    rows_before, views_before = snapshot()
    assert victim_review.id and [str(victim_review.id)] == views_before[0]["card_ids"]
    assert secret in "".join(views_before[0]["title"])  # the marker eve must never receive is on alice's page
    eve_page, eve_tap = forgers[eve]
    expect(eve_page.locator("#conversation-error")).to_contain_text("not")
    assert not [frame for frame in eve_tap.received if secret in frame]

    offenders: dict[str, list[str]] = {}
    for handler in handlers:
        began = time.monotonic()
        marks = [len(tap.received) for _, tap, _ in victims]
        eve_mark = len(forgers[eve][1].received)
        for _page, tap in forgers.values():
            for payload in forged_calls(handler, targets):
                tap.send(handler.event_name, payload)
        found = [f"an attacker's {d}" for d in settle(*[tap for _, tap in forgers.values()])]
        if any(secret in frame for frame in forgers[eve][1].frames_since(eve_mark)):
            found.append("eve (alpha only, removed from beta) was sent a frame with beta's conversation title")
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
            for name, (page, _tap) in list(forgers.items()):
                page.context.close()
                forgers[name] = attacker(name)
            settle(*[tap for _, tap in forgers.values()])
            rows_before, views_before = snapshot()
            continue
        # A handler that sent an attacker elsewhere: start them again, so every handler is forged by
        # a signed-in user holding the same (insufficient) rights. (No handler can sign them out: that
        # is an HTTP route now, with their HttpOnly cookie.)
        for name, (page, _tap) in list(forgers.items()):
            if not page.url.endswith(conversation_path):
                page.context.close()
                forgers[name] = attacker(name)
                settle(forgers[name][1])

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
