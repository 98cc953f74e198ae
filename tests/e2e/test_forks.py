"""Time travel in the browser: a reviewer forks a conversation from the coder's turn with new
instructions, lands on the fork, watches it run live, and compares the fork's new revision with the
parent's; the parent's page lists the fork."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect
from sqlmodel import select

from hitl_dashboard.db.models import Conversation
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, open_reviews, sign_in, start, wait_for


def test_fork_from_a_turn_with_instructions_and_watch_it_run(app_server: RunningApp, browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="sec")
    starter = make_user(app_server, "product_reviewer", prefix="dev")
    cid = start(app_server, starter, "Add retry with exponential backoff to the payments client")
    wait_for(lambda: open_reviews(app_server, cid), what="the security review")

    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    sign_in(page, app_server, reviewer)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    coder = page.locator('.message[data-source="coder"]')
    expect(coder).to_have_count(1)
    expect(page.locator("#fork-tree")).to_have_count(0)  # neither forked nor a fork

    coder.locator(".fork-from-here").click()
    page.fill("#fork-instructions", "add a timeout to every call")
    page.locator("#fork-target").click()
    page.get_by_role("option", name="coder", exact=True).click()
    page.click("#fork-submit")

    expect(page.locator("#fork-error")).to_have_count(0)
    page.wait_for_url(re.compile(rf"/conversations/(?!{cid}/?$)\d+/?$"), timeout=20_000)
    fork_id = int(page.url.rstrip("/").rsplit("/", 1)[-1])
    expect(page.locator("#fork-tree")).to_contain_text("Forked from")
    expect(page.locator("#fork-tree")).to_contain_text(f"#{cid}")
    # The fork runs live: its instructions, then the coder's new turn, without a reload.
    expect(page.locator('.message[data-source="coder"]')).to_have_count(2, timeout=30_000)
    expect(page.locator(".message").filter(has_text="FORK of")).to_have_count(1)
    # r1 came from the parent (same content, same hash); r2 is the fork's own.
    expect(page.locator("#diff")).to_contain_text("app/retry.py r2", timeout=20_000)
    expect(page.locator("#diff")).to_contain_text("timeout")

    # The fork's r2 against the parent's r1, picked from the parent's revisions.
    page.locator("#fork-compare-parent").click()
    page.get_by_role("option", name=f"#{cid} app/retry.py r1", exact=True).click()
    page.locator("#fork-compare-own").click()
    page.get_by_role("option", name="app/retry.py r2", exact=True).click()
    expect(page.locator("#fork-compare-diff")).to_contain_text("parent: app/retry.py r1")
    expect(page.locator("#fork-compare-diff")).to_contain_text("this fork: app/retry.py r2")
    expect(page.locator("#fork-compare-diff")).to_contain_text("timeout")

    with UnitOfWork(app_server.engine) as uow:
        fork = uow.session.get(Conversation, fork_id)
        forks = list(uow.session.exec(select(Conversation).where(Conversation.parent_id == cid)))
    assert (fork.parent_id, fork.parent_turn, fork.origin) == (cid, 2, "fork")
    assert [f.id for f in forks] == [fork_id]
    wait_for(lambda: open_reviews(app_server, fork_id), what="the fork's own security review")
    assert [r.required_role for r in open_reviews(app_server, cid)] == ["security_reviewer"]  # parent untouched

    page.goto(f"{app_server.base_url}/conversations/{cid}")
    expect(page.locator("#fork-tree")).to_contain_text(f"#{fork_id} fork after turn 2")
