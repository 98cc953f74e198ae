"""A standing rule made from a review card (issue 42): the approval and the rule are one transaction
(no rule when the approval is refused), the approval is the rule's first shadow agreement only when
it really is one, a reviewer without the deciding role is refused and another workspace's member is
told the review does not exist."""

from __future__ import annotations

import pytest
from sqlmodel import select

from hitl_dashboard.db.models import Decision
from hitl_dashboard.db.rule_models import RuleObservation, StandingRule
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from hitl_dashboard.domain.rule_forms import ConditionInput
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.reviews.claims import claim
from hitl_dashboard.services.rules.from_review import RuleTerms, approve_and_make_rule, rule_draft
from hitl_dashboard.services.workspaces import workspaces
from tests.support import flow

BILLING = [{"argument": "service", "equals": "billing-api"}, {"argument": "environment", "equals": "production"}]


def waiting_deploy() -> tuple[int, object]:
    cid = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops")
    flow.work()
    (review,) = [r for r in flow.open_reviews(cid) if r.kind == "tool_call"]
    return cid, review


def approval(review, **kw) -> DecisionInput:
    return DecisionInput(Action.APPROVE, expected_version=review.version, expected_content_hash=review.content_hash,
                         **kw)


def made() -> tuple[list[StandingRule], list[Decision], list[RuleObservation]]:
    with UnitOfWork() as uow:
        return (list(uow.session.exec(select(StandingRule))), list(uow.session.exec(select(Decision))),
                list(uow.session.exec(select(RuleObservation))))


def test_the_draft_holds_one_condition_per_declared_argument_with_the_calls_value(sqlite_url):
    flow.make_people()
    cid, review = waiting_deploy()
    draft = rule_draft(flow.actor("alice"), review.id, cid)
    assert (draft.team, draft.tool) == ("ops", "deploy_to_prod")
    assert draft.conditions == [ConditionInput("service", "string", "billing-api"),
                                ConditionInput("version", "string", "2.4.1"),
                                ConditionInput("environment", "string", "production")]


def test_the_approval_and_the_rule_are_made_together_and_the_approval_is_its_first_agreement(db_url):
    flow.make_people()
    cid, review = waiting_deploy()
    outcome, rule = approve_and_make_rule(flow.actor("alice"), review.id, approval(review),
                                          RuleTerms(BILLING, expires_in_days=7, daily_cap=5), cid)
    assert (outcome.action, rule.state, rule.owner, rule.daily_cap) == ("approve", "shadow", "alice", 5)
    assert rule.when == "service == 'billing-api' and environment == 'production'"
    assert (rule.agreements, rule.disagreements, rule.decided) == (1, 0, 0)
    rules, decisions, observations = made()
    assert [(d.review_request_id, d.reviewer_id is not None, d.rule_id) for d in decisions
            if d.review_request_id == review.id] == [(review.id, True, None)]
    assert [(o.rule_id, o.review_request_id, o.mode, o.agreed) for o in observations] == [
        (rule.id, review.id, "shadow", True)]


def test_a_rule_that_does_not_match_the_call_gets_no_agreement_from_it(sqlite_url):
    flow.make_people()
    cid, review = waiting_deploy()
    _, rule = approve_and_make_rule(flow.actor("alice"), review.id, approval(review),
                                    RuleTerms([{"argument": "environment", "equals": "staging"}], 30), cid)
    assert (rule.agreements, rule.disagreements) == (0, 0)
    assert made()[2] == []


def test_no_rule_when_the_approval_is_refused(sqlite_url):
    flow.make_people()
    cid, review = waiting_deploy()
    stale = DecisionInput(Action.APPROVE, expected_version=review.version - 1)
    with pytest.raises(Conflict, match="changed"):
        approve_and_make_rule(flow.actor("alice"), review.id, stale, RuleTerms(BILLING, 30), cid)
    with pytest.raises(InvalidInput) as bad:  # a condition the tool cannot take: no approval either
        approve_and_make_rule(flow.actor("alice"), review.id, approval(review),
                              RuleTerms([{"argument": "environment", "equals": "moon"}], 30), cid)
    assert bad.value.field == "when.0.equals"
    with pytest.raises(InvalidInput) as edited:
        approve_and_make_rule(flow.actor("alice"), review.id, approval(review, edited_args={"service": "x"}),
                              RuleTerms(BILLING, 30), cid)
    assert edited.value.field == "edited_args"
    claimed = claim(flow.actor("frank"), review.id)  # another security reviewer holds it now
    with pytest.raises(Conflict, match="claimed by another reviewer"):
        approve_and_make_rule(flow.actor("alice"), review.id, approval(claimed), RuleTerms(BILLING, 30), cid)
    assert made() == ([], [], [])
    assert [r.id for r in flow.open_reviews(cid) if r.kind == "tool_call"] == [review.id]


def test_a_reviewer_without_the_role_is_refused_and_another_workspaces_member_finds_nothing(sqlite_url):
    flow.make_people()
    cid, review = waiting_deploy()
    for attempt in (lambda who: rule_draft(flow.actor(who), review.id, cid),
                    lambda who: approve_and_make_rule(flow.actor(who), review.id, approval(review),
                                                      RuleTerms(BILLING, 30), cid)):
        with pytest.raises(PermissionDenied, match="security_reviewer"):
            attempt("bob")  # a product reviewer of this workspace
    workspaces.create_workspace(None, slug="payments", name="Payments")
    users.create_user(username="zoe", password="pw-zoe", roles=["security_reviewer"])
    workspaces.set_member(None, "payments", username="zoe", roles=["security_reviewer", "workspace_admin"])
    workspaces.remove_member(None, "default", username="zoe")
    for attempt in (lambda: rule_draft(flow.actor("zoe"), review.id, cid),
                    lambda: approve_and_make_rule(flow.actor("zoe"), review.id, approval(review),
                                                  RuleTerms(BILLING, 30), cid)):
        with pytest.raises(NotFound, match=f"review request {review.id} does not exist"):
            attempt()
    with pytest.raises(NotFound):  # a review of another page's conversation
        rule_draft(flow.actor("alice"), review.id, cid + 1)
    assert made() == ([], [], [])
