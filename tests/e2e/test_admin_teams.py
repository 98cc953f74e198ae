"""The admin teams page (issue 10): an admin changes the code team's keyword gate and the security
SLA in the browser and saves; a conversation started afterwards has the new rule firing and the new
due time; one started before keeps its version. A bad value is refused at its field, nothing saved.
"Try it" runs the draft offline before it is saved. The code team is put back as it was at the end
(over the API, whatever the page did), for the tests that come later in any order."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest
from playwright.sync_api import Page, expect
from sqlmodel import select

from hitl_dashboard.db.models import Conversation, User
from hitl_dashboard.db.team_models import TeamVersion
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import api_token, make_user, make_workspace, open_reviews, sign_in, start, wait_for
from tests.support.api_helpers import team_restored

KEYWORD = "call_with_retry"  # the scripted coder's retry helper: in its revision for a retry task
TASK = "Add retry with exponential backoff to the {} client"


def security_review(app: RunningApp, cid: int):
    reviews = wait_for(lambda: [r for r in open_reviews(app, cid) if r.required_role == "security_reviewer"],
                       what=f"the security review of conversation {cid}")
    return reviews[0]


def team_version_of(app: RunningApp, cid: int) -> int:
    with UnitOfWork(app.engine) as uow:
        return uow.session.get(Conversation, cid).team_version_id


def save(page: Page) -> str:
    page.click("#save-team")
    expect(page.locator("#team-saved")).to_be_visible()
    return page.locator("#team-saved").inner_text()


@pytest.fixture
def admin(app_server: RunningApp) -> Iterator[str]:
    """An admin; the shared app's code team is saved back as it was after the test."""
    name = make_user(app_server, "admin", prefix="teams-admin")
    token = api_token(app_server, name)
    headers = {"Authorization": f"Bearer {token}"}
    # The instance admin acts in every workspace: its API calls name the one they mean.
    with httpx.Client(base_url=app_server.base_url, headers=headers, params={"workspace": "default"},
                      timeout=30) as api, team_restored(api, "code"):
        yield name


def test_an_admin_edits_the_code_teams_rules_in_the_browser(app_server: RunningApp, page: Page, admin: str) -> None:
    starter = make_user(app_server, "product_reviewer", prefix="teams-dev")
    before = start(app_server, starter, TASK.format("ledger"))
    old_review = security_review(app_server, before)
    assert KEYWORD not in old_review.reason

    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, app_server, admin)
    page.goto(f"{app_server.base_url}/admin/teams?team=code")
    expect(page.locator("#team-title")).to_have_text(re.compile(r"^code · version \d+$"))
    number = int(page.locator("#team-title").inner_text().rsplit(" ", 1)[1])
    page.get_by_role("radio", name="YAML").click()
    original = page.locator("#team-yaml").input_value()
    assert "name: code" in original
    page.get_by_role("radio", name="Form").click()
    # A value the form cannot read is refused at its field; nothing is saved.
    page.fill("#sla-security_reviewer", "soon")
    page.click("#save-team")
    expect(page.locator(".field-error", has_text="a number")).to_be_visible()
    expect(page.locator("#team-title")).to_have_text(f"code · version {number}")

    page.fill("#team-keywords", page.locator("#team-keywords").input_value() + ", " + KEYWORD)
    page.fill("#sla-security_reviewer", "2")
    # Try the draft first: offline, nothing saved; the new keyword would stop the coder's turn.
    page.fill("#trial-task", TASK.format("mailer"))
    page.click("#try-team")
    expect(page.locator(".trial-message").last).to_contain_text("coder")
    expect(page.locator(".trial-stop").last).to_contain_text(f"keyword: '{KEYWORD}'")
    expect(page.locator("#team-title")).to_have_text(f"code · version {number}")
    assert f"Saved as version {number + 1}" in save(page)
    expect(page.locator("#team-title")).to_have_text(f"code · version {number + 1}")
    expect(page.locator(".team-row[data-team='code']")).to_contain_text("browser")

    after = start(app_server, starter, TASK.format("invoice"))
    review = security_review(app_server, after)
    assert KEYWORD in review.reason
    assert review.due_at - review.created_at == timedelta(hours=2)
    page.goto(f"{app_server.base_url}/conversations/{after}")
    expect(page.locator(".review-card")).to_contain_text(KEYWORD)
    expect(page.locator(".review-card")).to_contain_text(re.compile(r"due in (1 h \d+ min|2 h)"))
    expect(page.locator("#team-version")).to_have_text(f"team code v{number + 1}")

    # Started before the change: it keeps the version it started on.
    assert team_version_of(app_server, before) != team_version_of(app_server, after)
    page.goto(f"{app_server.base_url}/conversations/{before}")
    expect(page.locator("#team-version")).to_have_text(f"team code v{number}")
    assert security_review(app_server, before).due_at - old_review.created_at == timedelta(hours=24)


def test_a_workspace_admin_manages_their_workspaces_teams_in_the_browser(app_server: RunningApp, page: Page) -> None:
    """Issue 41: a workspace's admin (no instance role) reaches Teams from the header and saves a
    version of the code team in their workspace only; a reviewer of that workspace has no Teams page."""
    workspace_id, slug = make_workspace(app_server, "teams-ws")
    owner = make_user(app_server, "workspace_admin", prefix="ws-admin", workspace_id=workspace_id)
    reviewer = make_user(app_server, "security_reviewer", prefix="ws-rev", workspace_id=workspace_id)

    def saved_by_owner() -> list[tuple[int, int, str]]:
        """(workspace, number, origin) of every code team version the workspace admin saved."""
        with UnitOfWork(app_server.engine) as uow:
            rows = uow.session.exec(select(TeamVersion).join(User, User.id == TeamVersion.created_by)
                                    .where(User.username == owner, TeamVersion.team == "code")).all()
            return sorted((row.workspace_id, row.number, row.origin) for row in rows)

    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, app_server, owner, lands_on="**/conv*")
    page.click("#nav-teams")
    page.wait_for_url("**/admin/teams*")
    page.click(".team-row[data-team='code']")
    expect(page.locator("#team-title")).to_have_text(re.compile(r"^code · version \d+$"))
    number = int(page.locator("#team-title").inner_text().rsplit(" ", 1)[1])
    page.fill("#team-keywords", page.locator("#team-keywords").input_value() + ", " + KEYWORD)
    assert f"Saved as version {number + 1}" in save(page)
    assert saved_by_owner() == [(workspace_id, number + 1, "browser")]  # in their workspace, no other

    page.context.clear_cookies()
    sign_in(page, app_server, reviewer)
    expect(page.locator("#nav-teams")).to_have_count(0)
    page.goto(f"{app_server.base_url}/admin/teams?team=code&workspace={slug}")
    expect(page.get_by_text("role workspace_admin")).to_be_visible()
    expect(page.locator("#save-team")).to_have_count(0)
