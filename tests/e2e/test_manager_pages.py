"""Managers and admins in Chromium: the audit page (events, context, chain, CSV, charts), the access
refusal, the users page, and starting a conversation from the new-conversation page."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from hitl_dashboard.db.models import CodeRevision, ReviewRequest
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import decide_as, make_user, open_reviews, sign_in, wait_for, waiting_for_security_review

VIEWPORT = {"width": 1280, "height": 800}
CODE_TASK = "Add rate limiting to the password reset endpoint"


def approved_code(app: RunningApp, review: ReviewRequest) -> str:
    with UnitOfWork(app.engine) as uow:
        return uow.session.get(CodeRevision, review.subject_id).content


@pytest.fixture(scope="module")
def signed_off(app_server: RunningApp) -> dict:
    """A code conversation the security reviewer approved and the final approver signed off."""
    people = {
        "security": make_user(app_server, "security_reviewer", prefix="sec"),
        "final": make_user(app_server, "final_approver", prefix="fin"),
        "starter": make_user(app_server, "product_reviewer", prefix="dev"),
        "manager": make_user(app_server, "manager", prefix="mgr"),
    }
    waiting = waiting_for_security_review(app_server, CODE_TASK, starter=people["starter"])
    cid, security_review = waiting.cid, waiting.review
    decide_as(app_server, people["security"], security_review, "approve", reason="limits look right")
    [final_review] = wait_for(lambda: open_reviews(app_server, cid), what="the final sign-off")
    decide_as(app_server, people["final"], final_review, "approve")
    return {**people, "cid": cid, "code": approved_code(app_server, security_review)}


def _open_audit(page: Page, app: RunningApp, manager: str, lands_on: str = "**/conversations*") -> None:
    page.set_viewport_size(VIEWPORT)
    sign_in(page, app, manager, lands_on=lands_on)
    page.click("#nav-audit")
    page.wait_for_url("**/audit")
    expect(page.locator("#audit-table")).to_be_visible()


def test_manager_reads_decisions_their_context_chain_and_charts(app_server: RunningApp, page: Page,
                                                                signed_off: dict, screenshot_dir: Path):
    _open_audit(page, app_server, signed_off["manager"])
    # Loading the page verifies nothing (it shows the remembered answer); "Verify now" does. Another
    # test may have verified the shared app's chain before (a manager may), but never up to this
    # manager's own sign-in, a newer event.
    chain = page.locator("#chain-status")
    expect(chain).to_have_attribute("data-state", re.compile(r"^(unverified|ok)$"))
    if chain.get_attribute("data-state") == "ok":
        expect(chain).to_contain_text("newer not verified yet")
    # Nothing re-hashed up to the newest head, so the published head is not said to match (issue 32).
    expect(page.locator("#anchor-status")).to_have_attribute("data-state", "unverified")
    expect(page.locator("#anchor-status")).not_to_contain_text("Matches")
    page.click("#verify-chain")
    expect(page.locator("#chain-status")).to_contain_text("Audit chain verified up to event")
    expect(page.locator("#chain-status")).to_have_attribute("data-state", "ok")
    # Compared with the newest head published to the anchor file (beside the app's SQLite database).
    expect(page.locator("#anchor-status")).to_have_attribute("data-state", "ok")
    expect(page.locator("#anchor-status")).to_contain_text("Matches the head published at")

    # Charts: one svg per card (recharts renders client-side, bundled: no network).
    for chart in ("decisions", "medians", "breaches", "tokens"):
        expect(page.locator(f"#chart-{chart} svg.recharts-surface").first).to_be_visible()
    expect(page.locator("#chart-decisions .recharts-bar-rectangle").first).to_be_attached()
    # The medians name the unit they read in (which one depends on every decision this shared app
    # has seen; tests/test_audit_stats.py checks how it is chosen).
    expect(page.locator("#chart-medians")).to_contain_text(re.compile(r"(seconds|minutes|hours), per role"))

    # Everything about this conversation (the README picture), then only its decisions.
    page.fill("#filter-conversation", str(signed_off["cid"]))
    page.click("#apply-filters")
    expect(page.locator(".audit-row").first).to_contain_text("conversation.approved")
    expect(page.locator(".audit-row").last).to_contain_text("conversation.started")
    page.screenshot(path=str(screenshot_dir / "audit.png"))
    page.click("#filter-action")
    page.get_by_role("option", name="decision.recorded", exact=True).click()
    page.click("#apply-filters")
    rows = page.locator(".audit-row")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).locator(".audit-actor")).to_have_text(signed_off["final"])
    expect(rows.nth(1).locator(".audit-actor")).to_have_text(signed_off["security"])
    expect(rows.nth(1)).to_contain_text("action: approve")
    expect(rows.nth(1)).to_contain_text("limits look right")

    # The security approval's context: the exact code that was approved, as text.
    rows.nth(1).locator(".open-event").click()
    dialog = page.locator("#event-dialog")
    expect(dialog.locator("#event-actor")).to_have_text(signed_off["security"])
    expect(dialog.locator("#hash-check")).to_have_text("matches the hash")
    first_line = signed_off["code"].strip().splitlines()[0]
    expect(dialog.locator("#reviewed-content")).to_contain_text(first_line)
    expect(dialog.locator("#reviewed-content")).to_contain_text("def ")
    dialog.locator("#close-event").click()
    expect(dialog).to_have_count(0)


def test_manager_downloads_the_trail_as_csv(app_server: RunningApp, page: Page, signed_off: dict):
    _open_audit(page, app_server, signed_off["manager"])
    with page.expect_download() as download:
        page.click("#download-csv")
    assert download.value.suggested_filename.endswith(".csv")
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert text.startswith("seq,at,actor,actor_role,action,conversation_id")
    # Its own conversation's decisions, by the conversation_id column (the CSV holds other tests' too,
    # and their other columns, a review id say, may hold the same number).
    decisions = [line for line in text.splitlines()[1:] if line.split(",")[4:6] == ["decision.recorded",
                                                                                   str(signed_off["cid"])]]
    assert len(decisions) == 2
    assert any(line.split(",")[2] == signed_off["security"] for line in decisions)
    assert any(line.split(",")[2] == signed_off["final"] for line in decisions)


def test_sign_ins_are_hidden_until_asked_for(app_server: RunningApp, page: Page):
    # Sign-ins are the instance's events (no workspace): its admin reads them.
    manager = make_user(app_server, "admin", prefix="quiet")
    _open_audit(page, app_server, manager, lands_on="**/queue*")  # this sign-in is itself an event
    page.fill("#filter-user", manager)
    page.click("#apply-filters")
    expect(page.locator("#audit-empty")).to_have_text("No events match these filters.")  # only signed in
    page.click("#filter-show-sessions")
    # One event per sign-in, naming the session it opened (no separate token.created).
    expect(page.locator(".audit-row")).to_have_count(1)
    expect(page.locator(".audit-row").first).to_contain_text("user.signed_in")
    expect(page.locator(".audit-row").first).to_contain_text("session_token_id")
    # Asking for the action by name shows it without the box.
    page.click("#filter-show-sessions")
    expect(page.locator("#audit-empty")).to_have_text("No events match these filters.")
    page.click("#filter-action")
    page.get_by_role("option", name="user.signed_in", exact=True).click()
    page.click("#apply-filters")
    expect(page.locator(".audit-row").first).to_contain_text("user.signed_in")


def test_a_security_reviewer_is_refused_the_audit_page(app_server: RunningApp, page: Page):
    reviewer = make_user(app_server, "security_reviewer", prefix="sec")
    sign_in(page, app_server, reviewer)
    expect(page.locator("#nav-audit")).to_have_count(0)
    page.goto(app_server.base_url + "/audit")
    expect(page.locator("#access-denied")).to_contain_text("You need the manager or admin role")
    expect(page.locator("#audit-table")).to_have_count(0)
    expect(page.locator("#download-csv")).to_have_count(0)


def test_an_admin_adds_a_user_with_two_roles(app_server: RunningApp, page: Page):
    admin = make_user(app_server, "admin", prefix="adm")
    sign_in(page, app_server, admin)
    page.click("#nav-users")
    page.wait_for_url("**/admin/users")
    newcomer = f"grace-{uuid.uuid4().hex[:6]}"

    page.fill("#new-username", "Not Valid!")
    page.fill("#new-password", "a-long-password")
    page.click("#new-role-security_reviewer")
    page.click("#add-user")
    expect(page.locator(".field-error")).to_contain_text("username")

    page.fill("#new-username", newcomer)
    page.click("#new-role-final_approver")
    page.click("#add-user")
    row = page.locator(f'.user-row[data-username="{newcomer}"]')
    expect(row.locator(".role-badge")).to_have_count(2)
    expect(row.locator('.role-badge[data-role="security_reviewer"]')).to_be_visible()
    expect(row.locator('.role-badge[data-role="final_approver"]')).to_be_visible()
    expect(page.locator(".field-error")).to_have_count(0)

    # Change the roles: final sign-off out, manager in.
    row.locator(".edit-roles").click()
    page.click("#edit-role-final_approver")
    page.click("#edit-role-manager")
    page.click("#save-roles")
    expect(row.locator('.role-badge[data-role="manager"]')).to_be_visible()
    expect(row.locator('.role-badge[data-role="final_approver"]')).to_have_count(0)
    expect(row.locator(".role-badge")).to_have_count(2)


def test_a_new_conversation_starts_and_appears_in_the_list(app_server: RunningApp, browser: Browser):
    starter = make_user(app_server, "product_reviewer", prefix="dev")
    page = browser.new_page(viewport=VIEWPORT)
    sign_in(page, app_server, starter)
    page.click("#nav-new")
    page.wait_for_url("**/new")
    page.click("#start-conversation")
    expect(page.locator("#error-task")).to_contain_text("the task is empty")

    title = f"Tighten the CSV importer {uuid.uuid4().hex[:6]}"
    page.fill("#new-task", "Validate every row of the CSV importer and report bad lines")
    page.fill("#new-title", title)
    page.click("#start-conversation")
    page.wait_for_url("**/conversations/*")
    expect(page.locator("#conversation-title")).to_have_text(title)

    page.click("#nav-conversations")
    page.wait_for_url("**/conversations")
    link = page.locator(".conversation-title").filter(has_text=title)
    expect(link).to_be_visible()
    page.click("#filter-task-type")
    page.get_by_role("option", name="copy", exact=True).click()
    expect(link).to_have_count(0)
    page.click("#filter-task-type")
    page.get_by_role("option", name="code", exact=True).click()
    link.click()
    page.wait_for_url("**/conversations/*")
    expect(page.locator("#conversation-title")).to_have_text(title)
    page.close()
