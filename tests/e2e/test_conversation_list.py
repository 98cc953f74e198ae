"""Finding a conversation in Chromium: page through 120 of them, come back, search by a word of the
title and task and by a word of the task alone, and keep the filters in the URL across a reload."""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Page, expect
from sqlmodel import select

from hitl_dashboard.db.models import User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.users import actor_of
from hitl_dashboard.services.conversations.conversations import StartCommand, add_conversation
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, sign_in

COUNT = 120


def seed_finished(app: RunningApp, username: str, needle: str, task_only: str) -> list[str]:
    """COUNT conversations by `username`, already aborted (so no runner picks them up); titles returned.
    `needle` is in the title (and task) of #42, `task_only` in the task of #17 only (its second line)."""
    titles = []
    with UnitOfWork(app.engine) as uow:
        user = uow.session.exec(select(User).where(User.username == username)).one()
        for i in range(COUNT):
            task = f"Tidy the {needle} importer" if i == 42 else f"Routine cleanup task {i:03d}"
            if i == 17:
                task += f"\nAlso drop the {task_only} column"
            conversation = add_conversation(uow.session, actor_of(user), StartCommand(task=task, task_type="code"))
            conversation.status, conversation.status_reason = "aborted", "seeded for the list test"
            titles.append(conversation.title)
        uow.commit()
    return titles


def visible_titles(page: Page) -> list[str]:
    return page.locator(".conversation-row .conversation-title").all_inner_texts()


def test_page_through_120_conversations_and_find_one_by_a_word(page: Page, app_server: RunningApp) -> None:
    starter = make_user(app_server, "product_reviewer", prefix="lister")
    needle, task_only = f"zq{uuid.uuid4().hex[:6]}", f"zt{uuid.uuid4().hex[:6]}"
    titles = seed_finished(app_server, starter, needle, task_only)
    assert task_only not in "".join(titles)
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, app_server, starter, lands_on="**/queue*")

    page.goto(f"{app_server.base_url}/conversations?initiator={starter}")
    expect(page.locator("#conversation-range-top")).to_have_text(f"1–50 of {COUNT}")
    seen = visible_titles(page)
    for expected_range in (f"51–100 of {COUNT}", f"101–120 of {COUNT}"):
        page.click("#conversations-older-top")
        expect(page.locator("#conversation-range-top")).to_have_text(expected_range)
        seen += visible_titles(page)
    assert seen == list(reversed(titles))  # every one exactly once, newest first
    expect(page.locator("#conversations-older-top")).to_have_count(0)  # the last page

    page.reload()  # the page and the filter are in the URL
    expect(page.locator("#conversation-range-top")).to_have_text(f"101–120 of {COUNT}")
    page.click("#conversations-newer-bottom")
    expect(page.locator("#conversation-range-top")).to_have_text(f"51–100 of {COUNT}")

    page.fill("#conversation-q", needle.upper())  # any case
    page.click("#conversation-search-submit")
    page.wait_for_url(re.compile(r".*q=" + needle.upper()))
    expect(page.locator("#conversation-range-top")).to_have_text("1–1 of 1")
    expect(page.locator(".conversation-row .conversation-title")).to_have_text([f"Tidy the {needle} importer"])
    expect(page.locator("#conversation-initiator")).to_have_value(starter)  # the other filter is kept

    page.click(".conversation-row .conversation-title")
    page.wait_for_url("**/conversations/*")
    expect(page.get_by_text(f"Tidy the {needle} importer").first).to_be_visible()
    page.go_back()
    expect(page.locator("#conversation-q")).to_have_value(needle.upper())

    # A word only the task has (its second line; the title is the first).
    page.fill("#conversation-q", task_only)
    page.click("#conversation-search-submit")
    page.wait_for_url(re.compile(r".*q=" + task_only))
    expect(page.locator("#conversation-range-top")).to_have_text("1–1 of 1")
    expect(page.locator(".conversation-row .conversation-title")).to_have_text(["Routine cleanup task 017"])

    page.click("#conversation-clear-filters")
    page.wait_for_url(re.compile(r".*/conversations$"))
    expect(page.locator("#conversation-q")).to_have_value("")
