"""The Rules page (issue 42), reached from the queue: a reviewer's rule, made over the API, is listed
with its state and evidence; its owner pauses it in the browser and the page says so; a reviewer of
another workspace sees none of it. A rule made with the page's "New rule" form, each error the
services name shown beside its field."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect
from sqlalchemy import text

from tests.e2e.app_process import RunningApp
from tests.e2e.support import api_token, make_user, make_workspace, sign_in


def test_a_rule_made_over_the_api_is_read_and_paused_on_the_rules_page(app_server: RunningApp, page: Page) -> None:
    workspace_id, slug = make_workspace(app_server, "rules")
    owner = make_user(app_server, "security_reviewer", prefix="rule-owner", workspace_id=workspace_id)
    stranger = make_user(app_server, "security_reviewer", prefix="rule-stranger")  # the default workspace only
    made = httpx.post(f"{app_server.base_url}/api/rules", params={"workspace": slug}, timeout=30,
                      headers={"Authorization": f"Bearer {api_token(app_server, owner)}"},
                      json={"team": "ops", "tool": "deploy_to_prod", "effect": "approve",
                            "when": [{"argument": "environment", "equals": "staging"}]})
    assert made.status_code == 201, made.text
    rule_id = made.json()["id"]

    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(page, app_server, owner)  # on their queue, though their only workspace is not the default
    page.goto(f"{app_server.base_url}/queue?workspace={slug}")
    page.click("#queue-rules-link")
    page.wait_for_url("**/rules*")
    row = page.locator(f".rule-row[data-rule-id='{rule_id}']")
    expect(row).to_contain_text("deploy_to_prod")
    expect(row).to_contain_text("staging")
    expect(row.locator(".rule-state")).to_have_text("shadow")
    expect(row).to_contain_text("0 agreed · 0 disagreed · 0 decided")
    row.get_by_role("button", name="Pause").click()
    expect(row.locator(".rule-state")).to_have_text("paused")
    with app_server.engine.connect() as db:
        assert db.execute(text("SELECT state FROM standing_rules WHERE id = :id"), {"id": rule_id}).scalar() == "paused"

    page.context.clear_cookies()
    sign_in(page, app_server, stranger, lands_on="**/*")
    page.goto(f"{app_server.base_url}/rules")
    expect(page.locator("#rules-table, #no-rules").first).to_be_visible()
    expect(page.locator(f".rule-row[data-rule-id='{rule_id}']")).to_have_count(0)


def test_a_rule_is_made_on_the_rules_page_and_each_error_shows_beside_its_field(
        app_server: RunningApp, page: Page) -> None:
    workspace_id, _ = make_workspace(app_server, "newrule")
    maker = make_user(app_server, "security_reviewer", prefix="new-rule", workspace_id=workspace_id)
    page.set_viewport_size({"width": 1400, "height": 1000})
    sign_in(page, app_server, maker)
    page.goto(f"{app_server.base_url}/rules")
    page.click("#new-rule-open")
    form = page.locator("#new-rule-form")
    expect(page.locator("#new-rule-team")).to_contain_text("ops")  # the first team with tools
    expect(page.locator("#new-rule-tool")).to_contain_text("deploy_to_prod")
    environment = form.locator(".rule-condition[data-argument='environment']")
    form.locator("#new-rule-save").click()
    expect(form.locator(".rule-field-error")).to_have_text("tick at least one condition and give it a value")

    environment.locator("textarea").fill("moon")  # a value the argument can never take: the service says so
    form.locator("#new-rule-save").click()
    expect(environment.locator(".rule-field-error")).to_contain_text("can never be")
    environment.locator("textarea").fill("staging")
    form.locator("#new-rule-deny").click()
    form.locator("#new-rule-save").click()  # a deny rule without the reason the agent reads
    expect(form.locator(".rule-field-error")).to_have_text("a deny rule needs the reason the agent reads")
    page.fill("#new-rule-reason", "staging is frozen this week")
    form.locator("#new-rule-save").click()

    expect(form).to_have_count(0)
    row = page.locator(".rule-row").filter(has_text="environment == 'staging'")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("deny")
    expect(row.locator(".rule-state")).to_have_text("shadow")
    with app_server.engine.connect() as db:
        reason = db.execute(text("SELECT reason FROM standing_rules WHERE workspace_id = :w"),
                            {"w": workspace_id}).scalar_one()
    assert reason == "staging is frozen this week"
