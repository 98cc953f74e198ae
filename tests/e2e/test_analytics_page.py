"""A manager in Chromium: the analytics page shows the figures of rows the test created, a figure
leads to its conversations, and a table downloads as CSV; a reviewer is refused."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, sign_in
from tests.support.analytics_rows import seed


def test_a_manager_reads_follows_and_downloads(app_server: RunningApp, page: Page):
    seeded = seed(app_server.engine)
    manager = make_user(app_server, "manager", prefix="mgr")
    sign_in(page, app_server, manager, lands_on="**/conversations*")
    page.click("#nav-analytics")
    page.wait_for_url("**/analytics")

    row = page.locator("#table-reviewers .figure-row", has_text=seeded.reviewer)
    expect(row).to_have_count(1)
    expect(row.locator("td")).to_have_text([seeded.reviewer, "Product", "3", "2 min", "10 min", "3"])
    # (Overdue now is checked in tests/test_review_analytics.py: the app's runner escalates at once.)

    row.locator(".figure-link").click()
    expect(page.locator("#drill-title")).to_contain_text(seeded.reviewer)
    links = page.locator("#drill .drill-conversation")
    expect(links).to_have_count(3)
    expect(links.first).to_have_attribute("href", f"/conversations/{seeded.conversations[0]}")
    links.first.click()
    page.wait_for_url(f"**/conversations/{seeded.conversations[0]}")
    expect(page.locator("#conversation-title")).to_contain_text("Tagline")

    page.go_back()
    page.wait_for_url("**/analytics")
    with page.expect_download() as download:
        page.click("#csv-reviewers")
    assert download.value.suggested_filename.startswith("analytics-reviewers-")
    lines = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert lines[0] == "Reviewer,Role,Decisions,Median,p90,Conversation ids"
    assert f"{seeded.reviewer},Product,3,2 min,10 min,{' '.join(map(str, seeded.conversations))}" in lines

    # The team filter narrows it: no copy rows under "code".
    page.click("#analytics-team")
    page.get_by_role("option", name="code", exact=True).click()
    expect(page.locator("#table-reviewers .figure-row", has_text=seeded.reviewer)).to_have_count(0)


def test_a_reviewer_is_refused_analytics(app_server: RunningApp, page: Page):
    reviewer = make_user(app_server, "security_reviewer", prefix="sec")
    sign_in(page, app_server, reviewer)
    expect(page.locator("#nav-analytics")).to_have_count(0)
    page.goto(app_server.base_url + "/analytics")
    expect(page.locator("#access-denied")).to_contain_text("manager or admin role")
    expect(page.locator("#table-reviewers")).to_have_count(0)
