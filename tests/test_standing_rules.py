"""Standing rules (issue 42), service level, on SQLite and PostgreSQL: who makes and promotes them
(four eyes), shadow evidence and the K threshold, decisions through the one path (recorded as the
rule, never a person; no queue; the call runs once), self-pausing, cap, expiry, revocation,
workspace isolation, and content sign-offs never decided by a rule."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import col, select

from hitl_dashboard.db.models import AuditEvent, Decision, ReviewRequest, utcnow
from hitl_dashboard.db.rule_models import StandingRule
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.reviews.rule_decisions import RuleDecider, record_rule_decision
from hitl_dashboard.services.rules import rules
from hitl_dashboard.services.rules.gate import decide_by_rules
from hitl_dashboard.services.rules.rules import RuleCommand
from hitl_dashboard.services.rules.sign_off_gate import decide_sign_off_by_rules
from hitl_dashboard.services.workspaces import workspaces
from tests.support import flow

PRODUCTION = {"argument": "environment", "equals": "production"}


def deploys() -> list[dict]:
    log = Path(os.environ["DEPLOY_LOG_PATH"])
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def new_rule(as_user: str = "alice", when=PRODUCTION, **kw) -> rules.RuleView:
    return rules.create_rule(flow.actor(as_user), RuleCommand(team="ops", tool="deploy_to_prod", when=when, **kw))


def active_rule(**kw) -> rules.RuleView:
    rule = new_rule(**kw)
    return rules.promote_rule(flow.actor("erin"), rule.id, override_reason="tested elsewhere")


def start_deploy() -> int:
    cid = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops")
    flow.work()
    return cid


def open_tool_reviews(cid: int) -> list:
    return [r for r in flow.open_reviews(cid) if r.kind == "tool_call"]


def state(rule_id: int) -> str:
    return rules.show_rule(flow.actor("erin"), rule_id).state


def test_bad_rules_are_refused_naming_the_field(db_url):
    flow.make_people()
    cases = [
        ({"argument": "enviroment", "equals": "production"}, "when.0.argument", "did you mean 'environment'"),
        ({"argument": "environment", "equals": "prod"}, "when.0.equals", "can never be"),
        ({"argument": "environment", "equals": 3}, "when.0.equals", "can never be"),
        ({"argument": "environment", "equal": "production"}, "when.0", "unknown operator 'equal'"),
        ([], "when", "at least one condition"),
    ]
    for when, field, words in cases:
        with pytest.raises(InvalidInput) as refused:
            new_rule(when=when)
        assert refused.value.field == field and words in str(refused.value), (when, str(refused.value))
    with pytest.raises(InvalidInput) as refused:
        rules.create_rule(flow.actor("alice"), RuleCommand(team="ops", tool="rm_rf", when=PRODUCTION))
    assert refused.value.field == "tool"
    with pytest.raises(InvalidInput) as refused:
        new_rule(effect="deny")
    assert refused.value.field == "reason"
    with pytest.raises(PermissionDenied):  # product_reviewer does not decide ops tool calls
        new_rule(as_user="bob")


def test_four_eyes_and_the_evidence_threshold(db_url):
    flow.make_people()
    rule = new_rule()
    assert (rule.state, rule.owner, rule.expires_at > utcnow().isoformat()) == ("shadow", "alice", True)
    with pytest.raises(PermissionDenied, match="four eyes"):
        rules.promote_rule(flow.actor("alice"), rule.id)
    with pytest.raises(PermissionDenied):
        rules.promote_rule(flow.actor("bob"), rule.id)
    with pytest.raises(Conflict, match="0 agreement"):  # frank holds the role, but no evidence yet
        rules.promote_rule(flow.actor("frank"), rule.id)
    with pytest.raises(InvalidInput) as refused:  # an admin overrides only with a reason
        rules.promote_rule(flow.actor("erin"), rule.id)
    assert refused.value.field == "override_reason"
    promoted = rules.promote_rule(flow.actor("erin"), rule.id, override_reason="a one-off migration week")
    assert (promoted.state, promoted.promoted_by, promoted.override_reason) == ("active", "erin",
                                                                                "a one-off migration week")


def test_shadow_records_agreements_decides_nothing_and_k_agreements_allow_promotion(db_url):
    flow.make_people()
    rules.set_settings(flow.actor("erin"), None, min_approvals=20, window_days=14, min_agreements=2)
    rule = new_rule()
    for _ in range(2):
        cid = start_deploy()
        (review,) = open_tool_reviews(cid)  # shadow: the call still waits for a person
        flow.decide_as("alice", review.id, "approve")
    seen = rules.show_rule(flow.actor("alice"), rule.id)
    assert (seen.agreements, seen.disagreements, seen.decided) == (2, 0, 0)
    assert [(e["mode"], e["would"], e["human_action"], e["agreed"]) for e in seen.evidence] == [
        ("shadow", "approve", "approve", True)] * 2
    assert rules.promote_rule(flow.actor("frank"), rule.id).state == "active"


def test_a_shadow_disagreement_blocks_promotion(db_url):
    flow.make_people()
    rules.set_settings(flow.actor("erin"), None, min_approvals=20, window_days=14, min_agreements=1)
    rule = new_rule()
    cid = start_deploy()
    (review,) = open_tool_reviews(cid)
    flow.decide_as("alice", review.id, "approve",
                   edited_args={"service": "billing-api", "version": "2.4.1", "environment": "staging"})
    seen = rules.show_rule(flow.actor("alice"), rule.id)
    assert (seen.agreements, seen.disagreements) == (0, 1)
    with pytest.raises(Conflict, match="1 disagreement"):
        rules.promote_rule(flow.actor("frank"), rule.id)


def test_an_active_rule_decides_through_the_one_path_as_the_rule(db_url):
    from hitl_dashboard.db.models import WebhookDelivery
    from hitl_dashboard.services.webhooks.slack_blocks import OPEN_ACTION
    from hitl_dashboard.services.webhooks.webhook_payloads import slack_message
    from hitl_dashboard.services.webhooks.webhooks import add_webhook

    flow.make_people()
    add_webhook(None, url="https://hooks.example.com/hitl", events=["review.requested", "review.decided"])
    rule = active_rule()
    cid = start_deploy()
    assert open_tool_reviews(cid) == []  # never in a queue: decided in the transaction that asked
    assert len(deploys()) == 1  # approved by the rule, run exactly once
    flow.work()
    assert len(deploys()) == 1
    with UnitOfWork() as uow:
        decision = uow.session.exec(select(Decision).where(Decision.conversation_id == cid)
                                    .order_by(col(Decision.id))).first()
        assert (decision.reviewer_id, decision.rule_id, decision.rule_version, decision.action) == (
            None, rule.id, rule.version, "approve")
        event = uow.session.exec(select(AuditEvent).where(AuditEvent.action == "decision.recorded",
                                                          AuditEvent.conversation_id == cid)).first()
        assert event.actor == f"rule:{rule.id}"
        assert (event.details["rule_id"], event.details["rule_version"]) == (rule.id, rule.version)
        hooks = [(d.event, d.payload["data"]) for d in uow.session.exec(select(WebhookDelivery))
                 if d.event == "review.decided" or d.payload["data"]["review"]["conversation_id"] == cid]
        # Nobody was asked: no review.requested for the call; review.decided names the rule.
        assert [(e, data["decision"]["reviewer"]) for e, data in hooks if data["review"]["kind"] == "tool_call"] == [
            ("review.decided", f"rule:{rule.id}")]
        decided = next(d for d in uow.session.exec(select(WebhookDelivery)) if d.event == "review.decided"
                       and d.payload["data"]["review"]["kind"] == "tool_call")
    # In Slack: the rule's decision, said as the rule's, with nothing left to click but the link.
    slack = slack_message(decided.payload)
    assert slack["text"].startswith(f"rule:{rule.id} ") and "chose approve" in slack["text"]
    clicks = [e.get("action_id") for b in slack["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert clicks in ([], [OPEN_ACTION])
    notes = [m.content for m in flow.messages(cid) if m.kind == "decision"]
    assert any(f"APPROVED automatically by rule {rule.id}" in n and "made by alice" in n for n in notes)
    assert rules.show_rule(flow.actor("alice"), rule.id).decided == 1
    from hitl_dashboard.services.analytics.review_analytics import AnalyticsFilters, review_analytics

    charts = review_analytics(flow.actor("dave"), AnalyticsFilters(days=30))
    assert f"rule:{rule.id}" in [w.key for w in charts.by_reviewer]  # counted, as the rule


def test_a_deny_rule_denies_with_the_reason_the_agent_reads(db_url):
    flow.make_people()
    rule = active_rule(effect="deny", reason="production is frozen until Monday")
    cid = start_deploy()
    assert deploys() == [] and open_tool_reviews(cid) == []
    assert any("production is frozen until Monday" in m.content for m in flow.messages(cid))
    assert rules.show_rule(flow.actor("alice"), rule.id).decided == 1


def test_a_contrary_human_decision_pauses_an_active_rule(db_url):
    flow.make_people()
    cid = start_deploy()  # asked before the rule existed: a person decides it
    (review,) = open_tool_reviews(cid)
    rule = active_rule()
    flow.decide_as("alice", review.id, "revise")  # a denial of a call the rule would have approved
    seen = rules.show_rule(flow.actor("alice"), rule.id)
    assert seen.state == "paused" and "would have approved" in seen.state_reason
    cid2 = start_deploy()  # paused: the next call waits for a person
    assert len(open_tool_reviews(cid2)) == 1


def test_a_failed_call_pauses_the_rule_that_approved_it(db_url, monkeypatch):
    from hitl_dashboard.services.runner import tool_execution

    async def broken(*_args, **_kw):
        raise RuntimeError("the deploy target is down")

    flow.make_people()
    monkeypatch.setattr(tool_execution, "execute_tool", broken)
    rule = active_rule()
    start_deploy()
    seen = rules.show_rule(flow.actor("alice"), rule.id)
    assert seen.state == "paused" and "failed" in seen.state_reason and seen.decided == 1


def test_the_daily_cap_pauses_the_rule_and_the_call_waits(db_url):
    flow.make_people()
    rule = active_rule(daily_cap=1)
    first = start_deploy()
    assert open_tool_reviews(first) == []
    second = start_deploy()
    assert len(open_tool_reviews(second)) == 1
    seen = rules.show_rule(flow.actor("alice"), rule.id)
    assert (seen.state, seen.decided) == ("paused", 1) and "daily cap" in seen.state_reason


def test_an_expired_or_revoked_rule_decides_nothing(db_url):
    flow.make_people()
    expiring, revoked = active_rule(), active_rule(when={"argument": "service", "equals": "billing-api"})
    rules.revoke_rule(flow.actor("alice"), revoked.id, reason="no longer wanted")
    with UnitOfWork() as uow:
        row = uow.session.get(StandingRule, expiring.id)
        row.expires_at = utcnow() - timedelta(minutes=1)
        uow.session.add(row)
        uow.commit()
    cid = start_deploy()
    assert len(open_tool_reviews(cid)) == 1 and deploys() == []
    assert (state(expiring.id), state(revoked.id)) == ("expired", "revoked")
    with pytest.raises(Conflict):
        rules.promote_rule(flow.actor("erin"), revoked.id, override_reason="again")


def admin_of_another_workspace():
    """zoe: reviewer and workspace admin of "payments" only."""
    workspaces.create_workspace(None, slug="payments", name="Payments")
    users.create_user(username="zoe", password="pw-zoe", roles=["security_reviewer"])
    workspaces.set_member(None, "payments", username="zoe", roles=["security_reviewer", "workspace_admin"])
    workspaces.remove_member(None, "default", username="zoe")
    return flow.actor("zoe")


def test_another_workspaces_rule_is_not_found(db_url):
    flow.make_people()
    rule = new_rule()
    zoe = admin_of_another_workspace()
    for act in (lambda: rules.show_rule(zoe, rule.id), lambda: rules.promote_rule(zoe, rule.id, override_reason="x"),
                lambda: rules.pause_rule(zoe, rule.id), lambda: rules.revoke_rule(zoe, rule.id)):
        with pytest.raises(NotFound, match=f"standing rule {rule.id} does not exist"):
            act()
    assert rules.list_rules(zoe) == []


def test_content_sign_offs_are_never_decided_by_a_rule(db_url):
    flow.make_people()
    active_rule()
    cid = flow.start("Add rate limiting to the login endpoint")
    flow.work()
    review = flow.only_open_review(cid)
    assert review.kind != "tool_call"
    with UnitOfWork() as uow:
        request = uow.session.get(ReviewRequest, review.id)
        conversation = flow.conversation(cid)
        assert decide_by_rules(uow.session, uow.session.merge(conversation), [request]) == 0
        # The team does not allow rules at this gate (task_types.code.rules_may_sign_off): the
        # sign-off gate leaves it to a person, and the decision step itself refuses it.
        merged = uow.session.merge(conversation)
        assert decide_sign_off_by_rules(uow.session, merged, request) is request
        decider = RuleDecider(1, 1, "approve", "alice", "erin", None, "file == 'x'")
        with pytest.raises(Conflict, match="does not allow standing rules to sign off"):
            record_rule_decision(uow.session, merged, request, decider)
    assert flow.only_open_review(cid).id == review.id


def test_candidates_come_from_unchanged_approvals_and_a_contrary_decision_removes_them(db_url):
    from hitl_dashboard.services.rules import candidates

    flow.make_people()
    rules.set_settings(flow.actor("erin"), None, min_approvals=2, window_days=14, min_agreements=10)
    for _ in range(2):
        (review,) = open_tool_reviews(start_deploy())
        flow.decide_as("alice", review.id, "approve")
    found = {(c.tool, c.argument, c.equals): c for c in candidates.propose(flow.actor("alice"))}
    production = found[("deploy_to_prod", "environment", "production")]
    assert production.approved_unchanged == 2 and production.contrary == 0 and len(production.examples) == 2
    (review,) = open_tool_reviews(start_deploy())
    flow.decide_as("alice", review.id, "revise")  # denied once: no longer routine
    assert candidates.propose(flow.actor("alice")) == []


def test_a_rule_is_found_by_its_first_equals_and_one_of_rules_by_their_tool(db_url):
    flow.make_people()
    staging = active_rule(when=[{"argument": "environment", "equals": "staging"}])
    both = active_rule(when=[{"argument": "environment", "one_of": ["production", "staging"]},
                             {"argument": "service", "equals": "billing-api"}])
    cid = start_deploy()  # production: only the second rule's conditions hold
    assert open_tool_reviews(cid) == []
    assert (rules.show_rule(flow.actor("alice"), staging.id).decided,
            rules.show_rule(flow.actor("alice"), both.id).decided) == (0, 1)
