"""Ages and SLA countdowns keep moving in the browser between refreshes (assets/ticking.js), with no
server round trip: the test moves the page's clock and checks the words and colours of a queue row, and of
the conversation page's status banner and decision card."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, sign_in, waiting_for_security_review

HOUR_MS = 3600 * 1000


def move_clock(page: Page, hours: float) -> None:
    """Date.now() runs `hours` ahead from here on, then one tick (the interval would do it within 5 s)."""
    page.evaluate("""(ms) => {
        const realNow = Date.now.bind(Date);
        Date.now = () => realNow() + ms;
        window.hitlTick();
    }""", hours * HOUR_MS)


def test_queue_ages_and_countdowns_tick_in_the_browser(app_server: RunningApp, page: Page) -> None:
    reviewer = make_user(app_server, "security_reviewer", prefix="tick")
    title = "Rotate the signing keys of the webhook relay"
    waiting_for_security_review(app_server, title)
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, app_server, reviewer)
    row = page.locator(".queue-row").filter(has_text=title)
    expect(row.locator(".due-badge")).to_have_text(re.compile(r"due in 2[34] h"))  # security's SLA: 24 h
    expect(row.locator(".due-badge")).to_have_class(re.compile(r"\bdue-ok\b"))
    expect(row.locator(".age-text")).to_have_text(re.compile(r"^\d+ (s|min) ago$"))

    move_clock(page, 19.5)  # under 6 h left: "soon", amber
    expect(row.locator(".due-badge")).to_have_text(re.compile(r"due in 4 h \d+ min"))
    expect(row.locator(".due-badge")).to_have_class(re.compile(r"\bdue-soon\b"))
    expect(row.locator(".due-badge")).to_have_attribute("data-accent-color", "amber")
    expect(row.locator(".age-text")).to_have_text("19 h ago")  # minutes are left out from 10 h on

    move_clock(page, 5.0)  # 24.5 h after it opened: overdue, red
    expect(row.locator(".due-badge")).to_have_text(re.compile(r"overdue by (2\d|3\d) min"))
    expect(row.locator(".due-badge")).to_have_attribute("data-accent-color", "red")
    expect(row.locator(".age-text")).to_have_text(re.compile(r"^1 d 0 h ago$"))


def test_conversation_banner_and_card_count_down_in_the_browser(app_server: RunningApp, page: Page) -> None:
    """The status banner's "due in ..." moves with the decision card's SLA badge; the server's clock
    is not moved, so a changed text can only come from the browser."""
    reviewer = make_user(app_server, "security_reviewer", prefix="tickc")
    cid = waiting_for_security_review(app_server, "Sign the export files with the new release key").cid
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, app_server, reviewer)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    banner, badge = page.locator("#status-banner"), page.locator(".review-card .due-badge")
    expect(banner).to_have_text(re.compile(r"Waiting for security review, due in 2[34] h"))
    expect(badge).to_have_text(re.compile(r"due in 2[34] h"))

    move_clock(page, 19.5)
    expect(banner).to_have_text(re.compile(r"Waiting for security review, due in 4 h \d+ min$"))
    expect(badge).to_have_text(re.compile(r"due in 4 h \d+ min"))
    expect(banner).to_have_attribute("data-accent-color", "amber")  # the banner keeps its own colour

    move_clock(page, 5.0)
    expect(banner).to_have_text(re.compile(r"Waiting for security review, overdue by (2\d|3\d) min$"))
    expect(badge).to_have_attribute("data-accent-color", "red")
