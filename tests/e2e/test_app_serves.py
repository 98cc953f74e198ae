"""The app starts in prod mode and serves its API, Reflex's endpoints and the home page."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

import hitl_dashboard
from hitl_dashboard.db.models import Conversation, User
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import make_user, sign_in


def insert_conversation(
    app: RunningApp, title: str, *, tokens: int = 0, task_type: str = "code", status: str = "awaiting_review"
) -> int:
    with UnitOfWork(app.engine) as uow:
        user = User(username=f"e2e-{uuid.uuid4().hex[:12]}", password_hash="not-a-login", roles=["admin"])
        uow.session.add(user)
        uow.session.flush()
        conversation = Conversation(
            workspace_id=1,  # the default workspace
            title=title,
            task="Write a function",
            task_type=task_type,
            template="planner_coder",
            # Not "running": the in-process runner has nothing to do with it.
            status=status,
            initiator_id=user.id,
            prompt_tokens=tokens,
        )
        uow.session.add(conversation)
        uow.commit()
        return conversation.id


@pytest.fixture(scope="module")
def viewer(app_server: RunningApp) -> str:
    """Someone with no review queue: signing in lands on the conversation list."""
    return make_user(app_server, "manager", prefix="viewer")


def open_list(page: Page, app: RunningApp, username: str) -> None:
    sign_in(page, app, username, lands_on="**/conversations*")


def test_health_reports_the_database(app_server: RunningApp) -> None:
    response = httpx.get(f"{app_server.base_url}/api/health", timeout=10)
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "version": hitl_dashboard.__version__}


def test_reflex_ping_answers(app_server: RunningApp) -> None:
    assert httpx.get(f"{app_server.base_url}/ping", timeout=10).status_code == 200


def test_home_screenshot(app_server: RunningApp, page: Page, screenshot_dir: Path, viewer: str) -> None:
    """The picture in the README (written to docs/screenshots with UPDATE_SCREENSHOTS=1).

    First of the browser tests, so the picture shows only these rows."""
    examples = [
        ("Rotate the API signing keys", "ops", "awaiting_review", 5_210),
        ("Landing page copy for the spring launch", "copy", "approved", 3_874),
        ("Fix pagination in the audit export", "code", "aborted", 12_408),
    ]
    for title, task_type, status, tokens in examples:
        insert_conversation(app_server, title, task_type=task_type, status=status, tokens=tokens)
    page.set_viewport_size({"width": 1280, "height": 640})
    open_list(page, app_server, viewer)
    expect(page.get_by_text(examples[-1][0], exact=True)).to_be_visible()
    page.screenshot(path=str(screenshot_dir / "home.png"))


def test_home_lists_conversations_as_text(app_server: RunningApp, page: Page, viewer: str) -> None:
    # Titles are untrusted text: markup in them must show up literally.
    title = f"Add rate limiting to <b>login</b> {uuid.uuid4().hex[:6]}"
    insert_conversation(app_server, title, tokens=1234)

    open_list(page, app_server, viewer)

    expect(page).to_have_title("Conversations · HITL Dashboard")
    expect(page.get_by_role("heading", name="Conversations")).to_be_visible()
    expect(page.get_by_text(title, exact=True)).to_be_visible()
    expect(page.locator("table b")).to_have_count(0)
    row = page.get_by_role("row").filter(has_text=title)
    expect(row).to_contain_text("code")
    expect(row).to_contain_text("awaiting review")
    expect(row).to_contain_text("1,234")


def test_refresh_shows_new_conversations(app_server: RunningApp, page: Page, viewer: str) -> None:
    first = f"Draft release notes {uuid.uuid4().hex[:6]}"
    insert_conversation(app_server, first)
    open_list(page, app_server, viewer)
    expect(page.get_by_text(first, exact=True)).to_be_visible()  # the page has loaded its list

    title = f"Review deploy script {uuid.uuid4().hex[:6]}"
    insert_conversation(app_server, title)
    expect(page.get_by_text(title, exact=True)).to_have_count(0)

    page.get_by_role("button", name="Refresh").click()

    expect(page.get_by_text(title, exact=True)).to_be_visible()

