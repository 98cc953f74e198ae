"""Batch decisions in the browser (issue 42): a reviewer selects 20 queue rows with the keyboard (j,
x), approves them with A after the confirmation; one of them was decided by someone else after the
queue was loaded. 19 are decided, the stale one is refused with its reason on the page, and sending
the same batch again decides nothing twice."""

from __future__ import annotations

from playwright.sync_api import Page, expect
from sqlmodel import col, select

from hitl_dashboard.db.models import Decision
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import decide_as, make_user, make_workspace, open_reviews, sign_in, start, wait_for

ROWS = 20


def decisions_on(app: RunningApp, review_ids: list[int]) -> list[tuple[int, int]]:
    """(review, reviewer) of every decision on these reviews."""
    with UnitOfWork(app.engine) as uow:
        rows = uow.session.exec(select(Decision).where(col(Decision.review_request_id).in_(review_ids)))
        return sorted((d.review_request_id, d.reviewer_id) for d in rows)


def test_twenty_rows_approved_in_one_batch_one_refused_and_nothing_twice(app_server: RunningApp, page: Page) -> None:
    # A workspace of its own: the queue holds this test's rows only.
    workspace_id, slug = make_workspace(app_server, "batch")
    starter = make_user(app_server, "product_reviewer", prefix="dev", workspace_id=workspace_id)
    reviewer = make_user(app_server, "security_reviewer", prefix="batch", workspace_id=workspace_id)
    other = make_user(app_server, "security_reviewer", prefix="other", workspace_id=workspace_id)
    cids = [start(app_server, starter, f"Add rate limiting to endpoint {i}", workspace=slug,
                  title=f"Batch row {i:02d}") for i in range(ROWS)]

    def security_reviews():
        found = [r for cid in cids for r in open_reviews(app_server, cid) if r.required_role == "security_reviewer"]
        return found if len(found) == ROWS else None

    reviews = wait_for(security_reviews, timeout=180, what=f"{ROWS} security reviews")
    ids = [r.id for r in reviews]
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, app_server, reviewer)
    rows = page.locator(".queue-row")
    expect(rows).to_have_count(ROWS, timeout=20_000)

    # Loaded: now someone else decides one of them (in the database, so this tab still shows it).
    stale = reviews[7]
    decide_as(app_server, other, stale, "approve")

    for _ in range(ROWS):
        page.keyboard.press("j")
        page.keyboard.press("x")
    expect(page.locator("#batch-count")).to_have_text(f"{ROWS} selected")
    expect(page.locator(".batch-check[data-state='checked']")).to_have_count(ROWS)

    page.keyboard.press("A")
    dialog = page.locator("[role='alertdialog']")
    expect(dialog).to_contain_text(f"Approve {ROWS} reviews?")
    page.keyboard.press("x")  # no shortcut acts while the confirmation is open
    expect(page.locator("#batch-count")).to_have_text(f"{ROWS} selected")
    page.click("#batch-confirm-approve")

    summary = page.locator("#batch-summary")
    expect(summary).to_have_text(f"{ROWS - 1} approved, 1 refused", timeout=60_000)
    refused = page.locator(f".batch-refused-row[data-review-id='{stale.id}']")
    expect(refused).to_contain_text("is closed")
    expect(refused).to_contain_text(other)
    expect(page.locator(".batch-refused-row")).to_have_count(1)
    by_reviewer = decisions_on(app_server, ids)
    assert len(by_reviewer) == ROWS
    assert [r for r, _ in by_reviewer] == sorted(ids)  # one decision each: 19 in the batch, 1 by the other
    # The batch's live pushes refresh the queue from the database: every row has left it (the stale
    # one was decided by the other reviewer); the result and the selection stay.
    expect(rows).to_have_count(0, timeout=20_000)

    # The same batch again (a second press, as a retry would): nothing is decided twice.
    page.keyboard.press("A")
    page.click("#batch-confirm-approve")
    expect(summary).to_have_text(
        f"0 approved, {ROWS - 1} already approved by this batch (nothing applied twice), 1 refused")
    assert decisions_on(app_server, ids) == by_reviewer


def test_on_a_phone_all_shown_selects_what_the_filter_shows_and_each_box_is_a_thumbs_width(
        app_server: RunningApp, page: Page) -> None:
    """At 390 px the queue is cards with no header row (no header checkbox): "All shown" selects the
    reviews the filter shows, and each card's box is a 40 px target around its 16 px square."""
    workspace_id, slug = make_workspace(app_server, "batchphone")
    starter = make_user(app_server, "product_reviewer", prefix="dev", workspace_id=workspace_id)
    reviewer = make_user(app_server, "security_reviewer", prefix="thumb", workspace_id=workspace_id)
    cids = [start(app_server, starter, task, workspace=slug, title=title) for task, title in (
        ("Add rate limiting to the login endpoint", "Limit logins"),
        ("Add rate limiting to the search endpoint", "Limit searches"),
        ("Add retry with exponential backoff to the mailer", "Retry mail"))]
    wait_for(lambda: all(open_reviews(app_server, cid) for cid in cids), timeout=180, what="three security reviews")
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, app_server, reviewer)
    expect(page.locator(".queue-row")).to_have_count(3, timeout=20_000)
    page.fill("#queue-search", "Limit")
    expect(page.locator(".queue-row:visible")).to_have_count(2)
    page.click("#batch-select-shown-phone")
    expect(page.locator("#batch-count")).to_have_text("2 selected")
    boxes = page.locator(".batch-check:visible")
    expect(boxes).to_have_count(2)
    for index in range(2):
        found = boxes.nth(index).bounding_box()
        assert found and found["width"] >= 40 and found["height"] >= 40, found
    page.click("#batch-select-shown-phone")  # all of them selected already: none
    expect(page.locator("#batch-count")).to_have_text("0 selected")
