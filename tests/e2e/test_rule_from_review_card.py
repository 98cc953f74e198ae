"""Issue 42, done when: a reviewer makes a standing rule from a pending tool call's review card
(widening it: one argument unticked, another given a second value), a second reviewer makes it active
on the Rules page, and the next matching call is approved automatically within a second, attributed
to the rule in the transcript and the audit trail; a call the rule does not match waits in the queue
for a person; and once the rule is paused in another browser, the next matching call waits too. When
the card's approval is refused (someone decided the call first), no rule is made and the page says why.

Evidence: the workspace's K (shadow agreements needed) is set to 1 through the rules service's
settings row, so the card's own approval (the call approved unchanged, and the rule matches it) is
the one agreement the promotion needs: no admin override is used."""

from __future__ import annotations

import re
from datetime import timedelta

from playwright.sync_api import Browser, Page, expect
from sqlmodel import col, select

from hitl_dashboard.db.models import AuditEvent, Decision, ReviewRequest
from hitl_dashboard.db.rule_models import StandingRule, WorkspaceRuleSettings
from hitl_dashboard.db.uow import UnitOfWork
from tests.e2e.app_process import RunningApp
from tests.e2e.support import decide_as, make_user, make_workspace, open_reviews, sign_in, start, wait_for


def one_agreement_makes_a_rule_ready(app: RunningApp, workspace_id: int) -> None:
    with UnitOfWork(app.engine) as uow:
        uow.session.add(WorkspaceRuleSettings(workspace_id=workspace_id, min_approvals=20, window_days=14,
                                              min_agreements=1))
        uow.commit()


def waiting_tool_call(app: RunningApp, cid: int) -> ReviewRequest:
    [review] = wait_for(lambda: [r for r in open_reviews(app, cid) if r.kind == "tool_call"], timeout=120,
                        what=f"conversation {cid}'s deploy_to_prod call waiting for a person")
    return review


def rule_decision(app: RunningApp, cid: int) -> tuple[Decision, ReviewRequest] | None:
    """The decision a rule made on the conversation's tool call, and that request."""
    with UnitOfWork(app.engine) as uow:
        found = uow.session.exec(select(Decision, ReviewRequest)
                                 .join(ReviewRequest, col(ReviewRequest.id) == Decision.review_request_id)
                                 .where(Decision.conversation_id == cid, col(Decision.rule_id).is_not(None))).first()
        return (found[0], found[1]) if found else None


def the_rule(app: RunningApp) -> StandingRule | None:
    with UnitOfWork(app.engine) as uow:
        return uow.session.exec(select(StandingRule).order_by(col(StandingRule.id).desc())).first()


def test_a_rule_made_from_a_card_and_made_active_by_another_decides_the_next_matching_call(
        app_server: RunningApp, browser: Browser) -> None:
    workspace_id, slug = make_workspace(app_server, "cardrule")
    one_agreement_makes_a_rule_ready(app_server, workspace_id)
    starter = make_user(app_server, "final_approver", prefix="ops-dev", workspace_id=workspace_id)
    maker = make_user(app_server, "security_reviewer", prefix="rule-maker", workspace_id=workspace_id)
    second = make_user(app_server, "security_reviewer", prefix="rule-second", workspace_id=workspace_id)
    manager = make_user(app_server, "manager", prefix="rule-audit", workspace_id=workspace_id)

    def deploy(task: str) -> int:
        return start(app_server, starter, task, task_type="ops", workspace=slug, title=task)

    def new_page(username: str) -> Page:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        sign_in(page, app_server, username, lands_on="**/*")
        return page

    # 1. The maker approves a waiting call from its card and makes the rule, widened.
    first = deploy("Deploy billing-api v2.4.1 to production")
    review = waiting_tool_call(app_server, first)
    maker_page = new_page(maker)
    maker_page.goto(f"{app_server.base_url}/conversations/{first}")
    card = maker_page.locator(f".review-card[data-review-id='{review.id}']")
    card.locator(f"#approve-with-rule-{review.id}").click()
    form = card.locator("#card-rule-form")
    expect(form).to_contain_text("deploy_to_prod")
    conditions = form.locator(".rule-condition")
    expect(conditions).to_have_count(3)
    for argument, value in (("service", "billing-api"), ("version", "2.4.1"), ("environment", "production")):
        expect(form.locator(f".rule-condition[data-argument='{argument}'] textarea")).to_have_value(value)
    form.locator(".rule-condition[data-argument='version'] button[role='checkbox']").click()  # any version
    form.locator(".rule-condition[data-argument='environment'] textarea").fill("production\nstaging")
    form.locator("#card-rule-cap").fill("50")
    form.locator("#card-rule-save").click()
    expect(card).to_have_count(0, timeout=20_000)  # approved: the card leaves
    rule = wait_for(lambda: the_rule(app_server), what="the rule")
    assert (rule.state, rule.agreements, rule.disagreements, rule.daily_cap) == ("shadow", 1, 0, 50)
    assert rule.conditions == [{"argument": "service", "equals": "billing-api"},
                               {"argument": "environment", "one_of": ["production", "staging"]}]

    # 2. A second reviewer, in another browser, makes it active on the Rules page.
    rules_page = new_page(second)
    rules_page.goto(f"{app_server.base_url}/rules")
    row = rules_page.locator(f".rule-row[data-rule-id='{rule.id}']")
    expect(row).to_contain_text("1 agreed · 0 disagreed · 0 decided")
    expect(row).to_contain_text(maker)
    expect(row.locator(".rule-override-reason")).to_have_count(0)  # no workspace admin: no override offered
    row.get_by_role("button", name="Make active").click()
    expect(row.locator(".rule-state")).to_have_text("active")

    # 3. The next matching call (another version, staging: the widened conditions) is decided by the rule.
    matching = deploy("Deploy billing-api v2.5.0 to staging")
    maker_page.goto(f"{app_server.base_url}/conversations/{matching}")
    decided = wait_for(lambda: rule_decision(app_server, matching), timeout=120, what="the rule's decision")
    decision, request = decided
    assert (decision.action, decision.reviewer_id, decision.rule_id) == ("approve", None, rule.id)
    assert decision.created_at - request.created_at < timedelta(seconds=1), (request.created_at, decision.created_at)
    transcript = maker_page.locator("#conversation-transcript")
    expect(transcript).to_contain_text(re.compile(
        rf"approved automatically by rule {rule.id} \(version \d+\), made by {maker}, made active by {second}",
        re.I), timeout=30_000)
    with UnitOfWork(app_server.engine) as uow:
        [event] = uow.session.exec(select(AuditEvent).where(AuditEvent.conversation_id == matching,
                                                            AuditEvent.review_request_id == request.id,
                                                            AuditEvent.action == "decision.recorded")).all()
        assert event.actor == f"rule:{rule.id}"
        assert (event.details["rule_id"], event.details["rule_version"]) == (rule.id, decision.rule_version)
    # What a manager reads in the audit trail: the decision recorded by the rule, not by a person.
    manager_page = new_page(manager)
    manager_page.goto(f"{app_server.base_url}/audit")
    manager_page.fill("#filter-conversation", str(matching))
    manager_page.click("#apply-filters")
    by_rule = manager_page.locator(".audit-row").filter(has_text="decision.recorded")
    expect(by_rule).to_have_count(1)
    expect(by_rule.locator(".audit-actor")).to_have_text(f"rule:{rule.id}")
    manager_page.context.close()

    # 4. A call the rule does not match (another service) waits in the queue for a person.
    other = deploy("Deploy search-api v1.0.0 to production")
    waiting = waiting_tool_call(app_server, other)
    maker_page.goto(f"{app_server.base_url}/queue?role=security_reviewer")
    expect(maker_page.locator(f".queue-row[data-review-id='{waiting.id}']")).to_have_count(1, timeout=20_000)
    assert rule_decision(app_server, other) is None

    # 5. Paused in the other browser: the next matching call waits for a person too.
    row.get_by_role("button", name="Pause").click()
    expect(row.locator(".rule-state")).to_have_text("paused")
    after_pause = deploy("Deploy billing-api v2.6.0 to production")
    held = waiting_tool_call(app_server, after_pause)
    expect(maker_page.locator(f".queue-row[data-review-id='{held.id}']")).to_have_count(1, timeout=20_000)
    assert rule_decision(app_server, after_pause) is None


def test_when_the_approval_is_refused_no_rule_is_made_and_the_reviewer_reads_why(
        app_server: RunningApp, browser: Browser) -> None:
    workspace_id, slug = make_workspace(app_server, "cardstale")
    starter = make_user(app_server, "final_approver", prefix="ops-dev", workspace_id=workspace_id)
    maker = make_user(app_server, "security_reviewer", prefix="late-maker", workspace_id=workspace_id)
    other = make_user(app_server, "security_reviewer", prefix="first", workspace_id=workspace_id)
    cid = start(app_server, starter, "Deploy billing-api v3.0.0 to production", task_type="ops", workspace=slug)
    review = waiting_tool_call(app_server, cid)
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    sign_in(page, app_server, maker)
    page.goto(f"{app_server.base_url}/conversations/{cid}")
    page.locator(f"#approve-with-rule-{review.id}").click()
    expect(page.locator("#card-rule-form .rule-condition")).to_have_count(3)

    decide_as(app_server, other, review, "approve")  # in the database: this tab still shows the card
    page.locator("#card-rule-save").click()
    expect(page.locator("#decision-notice")).to_contain_text(f"Review #{review.id}")
    expect(page.locator("#decision-notice")).to_contain_text("No rule was made")
    with UnitOfWork(app_server.engine) as uow:
        assert uow.session.exec(select(StandingRule).where(StandingRule.workspace_id == workspace_id)).all() == []
