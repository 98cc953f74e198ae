"""A rule's evidence as the Rules page reads it (issue 42, "the page shows agreements and every
disagreement"): every disagreement, however many (the rule view's list stops at 50), the latest
agreements, each with the call's arguments and who decided; another workspace's rule is not found.
And the page's candidates: only for the teams whose rules the caller may make, with links."""

from __future__ import annotations

from datetime import timedelta

import pytest

from hitl_dashboard.db.models import utcnow
from hitl_dashboard.db.rule_models import RuleObservation
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import NotFound
from hitl_dashboard.services.rules import candidates, rule_evidence, rules
from tests.support import flow
from tests.test_standing_rules import admin_of_another_workspace, new_rule, open_tool_reviews, start_deploy


def test_every_disagreement_is_listed_and_only_the_latest_agreements(db_url):
    flow.make_people()
    rule = new_rule()  # approve deploy_to_prod when environment == 'production', in shadow
    (review,) = open_tool_reviews(start_deploy())
    flow.decide_as("alice", review.id, "revise")
    [seen] = rule_evidence.rule_evidence(flow.actor("alice"), rule.id).disagreements
    assert (seen.would, seen.human_action, seen.decided_by, seen.rule_version, seen.mode) == (
        "approve", "revise", "alice", 1, "shadow")
    assert seen.arguments["environment"] == "production" and seen.tool_call_id == review.subject_id
    with UnitOfWork() as uow:  # a long history, beyond the 50 the rule view lists
        for n in range(80):
            uow.session.add(RuleObservation(
                rule_id=rule.id, rule_version=1, workspace_id=rule.workspace_id, conversation_id=seen.conversation_id,
                review_request_id=review.id, tool_call_id=seen.tool_call_id, mode="shadow", would="approve",
                human_action="approve" if n % 2 else "revise", agreed=bool(n % 2),
                created_at=utcnow() + timedelta(seconds=n)))
        uow.commit()
    evidence = rule_evidence.rule_evidence(flow.actor("alice"), rule.id, recent=5)
    assert len(evidence.disagreements) == 41 and evidence.disagreements[0].decided_by == "alice"  # oldest first
    assert len(evidence.agreements) == 5 and evidence.agreements[0].at > evidence.agreements[-1].at
    assert len(rules.show_rule(flow.actor("alice"), rule.id).evidence) == 50


def test_another_workspaces_rule_evidence_is_not_found(db_url):
    flow.make_people()
    rule = new_rule()
    zoe = admin_of_another_workspace()
    with pytest.raises(NotFound, match=f"standing rule {rule.id} does not exist"):
        rule_evidence.rule_evidence(zoe, rule.id)


def test_the_pages_candidates_are_offered_to_who_may_make_the_rule_with_their_conversations(db_url):
    flow.make_people()
    rules.set_settings(flow.actor("erin"), None, min_approvals=2, window_days=14, min_agreements=10)
    started = []
    for _ in range(2):
        started.append(cid := start_deploy())
        (review,) = open_tool_reviews(cid)
        flow.decide_as("alice", review.id, "approve")
    offered = candidates.proposals_for(flow.actor("alice"))
    assert offered.may_make and (offered.settings.min_approvals, offered.settings.window_days) == (2, 14)
    production = next(c for c in offered.candidates if (c.argument, c.equals) == ("environment", "production"))
    assert sorted(e["conversation_id"] for e in production.examples) == sorted(started)
    manager = candidates.proposals_for(flow.actor("dave"))  # reads audit, decides no tool call
    assert (manager.may_make, manager.candidates) == (False, [])
