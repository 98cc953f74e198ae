"""The reviewer's queues seen from every page (issue 15): each queue tab shows its count, equal to
what the tab lists; new requests raise an unread count in the tab title, cleared on the queue page;
with notifications granted and switched on, a desktop notification per new request.

Notifications: the page's Notification constructor is replaced by an init script that records
each call (title and body), so the test reads what the app created without an OS notification."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, sign_in, wait_for, waiting_for_security_review

ROLES = ("security_reviewer", "product_reviewer", "final_approver")
CAPTURE_NOTIFICATIONS = """
window.__notes = [];
(() => {
  const Real = window.Notification;
  class Recorded {
    constructor(title, options) { window.__notes.push({title: title, body: (options || {}).body}); }
    static get permission() { return Real.permission; }
    static requestPermission() { return Real.requestPermission(); }
  }
  window.Notification = Recorded;
})();
"""


def _tab_matches_rows(page: Page, role: str) -> bool:
    tab = page.locator(f"#tab-{role}")
    if "rt-variant-solid" not in (tab.get_attribute("class") or ""):
        return False  # that tab's rows have not come yet
    shown = tab.locator(".tab-count").inner_text()
    return shown == str(page.locator(".queue-row").count())


def test_every_queue_tab_shows_its_count(app_server: RunningApp, browser: Browser):
    reviewer = make_user(app_server, *ROLES, prefix="qcount")
    waiting_for_security_review(app_server, "Add retry with exponential backoff to the report mailer")

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    sign_in(page, app_server, reviewer)
    expect(page.locator("#role-tabs .tab-count")).to_have_count(len(ROLES))  # not only the active tab
    for role in ROLES:
        page.click(f"#tab-{role}")
        wait_for(lambda role=role: _tab_matches_rows(page, role), what=f"the {role} tab's count to match its rows")
    assert int(page.locator("#tab-security_reviewer .tab-count").inner_text()) >= 1


def test_unread_title_count_and_desktop_notification(app_server: RunningApp, full_browser: Browser):
    reviewer = make_user(app_server, "security_reviewer", prefix="qunread")
    starter = make_user(app_server, "product_reviewer", prefix="qudev")
    context = full_browser.new_context(viewport={"width": 1400, "height": 900})
    context.grant_permissions(["notifications"], origin=app_server.base_url)
    context.add_init_script(CAPTURE_NOTIFICATIONS)
    page = context.new_page()
    sign_in(page, app_server, reviewer)  # on the queue: what already waits is seen
    expect(page).to_have_title(re.compile(r"^Review queue"))
    page.click("#enable-notifications")
    expect(page.locator("#enable-notifications .notify-on")).to_be_visible()

    page.click("#nav-conversations")
    page.wait_for_url("**/conversations")
    expect(page).to_have_title(re.compile(r"^Conversations · "))
    title = "Add retry with exponential backoff to the unread-count mailer"
    waiting_for_security_review(app_server, title, starter=starter)

    # The count rises in the title of a page that is not the queue, and a notification says what came.
    expect(page).to_have_title(re.compile(r"^\(\d+\+?\) Conversations · "), timeout=20_000)
    notes = wait_for(lambda: [n for n in page.evaluate("window.__notes") if title in (n["body"] or "")],
                     what="the desktop notification")
    assert notes[0]["title"] == "New review request: Security"
    assert page.evaluate("document.title").startswith("(")

    # Looking at the queue clears it; coming back elsewhere, it stays cleared.
    page.click("#nav-queue")
    expect(page).to_have_title(re.compile(r"^Review queue"))
    page.click("#nav-conversations")
    expect(page).to_have_title(re.compile(r"^Conversations · "))
    context.close()
