"""The Rules page (issue 42), reached from the queue: a reviewer's rule, made over the API, is listed
with its state and evidence; its owner pauses it in the browser and the page says so; a reviewer of
another workspace sees none of it. A rule made with the page's "New rule" form, each error the
services name shown beside its field. A candidate from the history made a rule, and its evidence."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import text

from hitl_dashboard.db.models import ReviewRequest
from tests.e2e.app_process import RunningApp
from tests.e2e.support import (
    api_token,
    decide_as,
    make_user,
    make_workspace,
    open_reviews,
    set_member,
    sign_in,
    start,
    wait_for,
)


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


def test_a_candidate_from_the_history_becomes_a_rule_whose_evidence_shows_a_disagreement(
        app_server: RunningApp, browser: Browser) -> None:
    """Issue 42, evidence first, in the browser: a workspace admin lowers N to 2 on the page; two
    deploys to staging approved unchanged make a candidate, shown to a reviewer with its count and
    examples; "Make this rule" pre-fills the New rule form; saved, the rule is in shadow; a person's
    contrary decision on the next matching call shows in the rule's evidence as a disagreement."""
    workspace_id, slug = make_workspace(app_server, "candidates")
    starter = make_user(app_server, "final_approver", prefix="cand-dev", workspace_id=workspace_id)
    reviewer = make_user(app_server, "security_reviewer", prefix="cand-rev", workspace_id=workspace_id)
    admin = make_user(app_server, "security_reviewer", prefix="cand-admin", workspace_id=workspace_id)
    set_member(app_server, workspace_id, admin, ["workspace_admin"])

    def deploy_decided(task: str, action: str) -> ReviewRequest:
        cid = start(app_server, starter, task, task_type="ops", workspace=slug, title=task)
        [review] = wait_for(lambda: [r for r in open_reviews(app_server, cid) if r.kind == "tool_call"],
                            timeout=120, what=f"conversation {cid}'s deploy call waiting for a person")
        decide_as(app_server, reviewer, review, action)
        return review

    approved = [deploy_decided(f"Deploy billing-api v2.4.{n} to staging", "approve") for n in (1, 2)]

    def signed_in(username: str) -> Page:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        sign_in(page, app_server, username, lands_on="**/*")
        page.goto(f"{app_server.base_url}/rules")
        return page

    # A workspace admin sets N = 2 (a bad value first: the error is beside its field).
    admin_page = signed_in(admin)
    admin_page.fill("#rule-setting-min_approvals", "0")
    admin_page.click("#rule-settings-save")
    expect(admin_page.locator("#rule-settings .setting-error")).to_contain_text("min_approvals must be between")
    admin_page.fill("#rule-setting-min_approvals", "2")
    admin_page.click("#rule-settings-save")
    expect(admin_page.locator(".rule-candidate").first).to_be_visible(timeout=20_000)
    admin_page.context.close()

    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    sign_in(page, app_server, reviewer, lands_on="**/*")
    page.click("#nav-rules")  # a reviewer's header has room for the link
    page.wait_for_url("**/rules*")
    expect(page.locator("#rule-setting-min_approvals")).to_have_text("2")  # shown, not editable
    candidate = page.locator(".rule-candidate[data-argument='environment']")
    expect(candidate).to_contain_text("environment == 'staging'")
    expect(candidate).to_contain_text("deploy_to_prod")
    expect(candidate.locator(".candidate-count")).to_contain_text("2 approved unchanged")
    expect(candidate.locator(".candidate-count")).to_contain_text("over the last 14 days")
    expect(candidate.locator(".candidate-example")).to_have_count(2)
    expect(candidate.locator(".candidate-example").first).to_contain_text('"environment": "staging"')
    expect(candidate.get_by_role("link").first).to_have_attribute(
        "href", re.compile(rf"/conversations/({approved[0].conversation_id}|{approved[1].conversation_id})$"))

    candidate.get_by_role("button", name="Make this rule").click()
    form = page.locator("#new-rule-form")
    expect(page.locator("#new-rule-tool")).to_contain_text("deploy_to_prod")
    environment = form.locator(".rule-condition[data-argument='environment']")
    expect(environment.locator("textarea")).to_have_value("staging")
    expect(form.locator(".rule-condition[data-argument='service'] textarea")).to_have_value("")
    form.locator("#new-rule-save").click()
    expect(form).to_have_count(0)
    row = page.locator(".rule-row").filter(has_text="environment == 'staging'")
    expect(row.locator(".rule-state")).to_have_text("shadow")
    rule_id = int(row.get_attribute("data-rule-id") or 0)

    contrary = deploy_decided("Deploy billing-api v2.5.0 to staging", "revise")  # the rule would have approved
    row.get_by_role("button", name="Evidence").click()
    evidence = page.locator(f"#rule-evidence[data-rule-id='{rule_id}']")
    disagreement = evidence.locator(".rule-disagreement")
    expect(disagreement).to_have_count(1)
    expect(disagreement).to_contain_text(f"call #{contrary.subject_id}")
    expect(disagreement).to_contain_text("revise")
    expect(disagreement).to_contain_text(reviewer)
    expect(disagreement).to_contain_text('"version": "2.5.0"')
    expect(evidence.locator(".rule-agreement")).to_have_count(0)
