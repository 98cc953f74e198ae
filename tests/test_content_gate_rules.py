"""Standing rules on a content sign-off gate (issue 42), service level, on SQLite and PostgreSQL:
the team file must allow the gate (task_types.<type>.rules_may_sign_off) when the rule is made and
every time it would decide; an allowed, active rule signs off a matching sign-off through the one
decision path, as the rule, bound to the content hash, and the chain's next step waits for a
person; content it does not match waits; people's decisions are its shadow evidence, and an active
rule a person contradicts pauses itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import col, select

from hitl_dashboard.db.models import AuditEvent, Decision, ReviewRequest, WebhookDelivery
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import InvalidInput, PermissionDenied
from hitl_dashboard.services.rules import rules
from hitl_dashboard.services.rules.rules import RuleCommand
from hitl_dashboard.services.teams import team_queries
from hitl_dashboard.teams.loading import TeamFileInvalid, parse_team
from tests.support import flow

CODE_TEAM = (Path(__file__).resolve().parents[1] / "hitl_dashboard" / "teams" / "code.yaml").read_text()
TASK = "Add rate limiting to the login endpoint"


def team_allowing(*roles: str) -> str:
    allowed = f"\n    rules_may_sign_off: [{', '.join(roles)}]" if roles else ""
    return CODE_TEAM.replace("sign_off: [security_reviewer, final_approver]",
                             "sign_off: [security_reviewer, final_approver]" + allowed)


def allow(*roles: str) -> None:
    team_queries.save_team(flow.actor("erin"), team_allowing(*roles), origin="import")


def gate_rule(when, *, as_user: str = "alice", role: str = "security_reviewer", **kw) -> rules.RuleView:
    return rules.create_rule(flow.actor(as_user), RuleCommand(team="code", tool="", when=when, task_type="code",
                                                              role=role, **kw))


def active_gate_rule(when, **kw) -> rules.RuleView:
    rule = gate_rule(when, **kw)
    return rules.promote_rule(flow.actor("erin"), rule.id, override_reason="tested elsewhere")


def start_code() -> int:
    cid = flow.start(TASK)
    flow.work()
    return cid


RATE_LIMITER = {"argument": "file", "equals": "app/rate_limiter.py"}


def open_sign_offs(cid: int) -> list:
    return [r for r in flow.open_reviews(cid) if r.kind == "signoff"]


def security_sign_off_waits(rule: rules.RuleView) -> None:
    """A new conversation's first sign-off waits for a person: the rule decided nothing."""
    (waiting,) = open_sign_offs(start_code())
    assert waiting.required_role == "security_reviewer"
    assert rules.show_rule(flow.actor("alice"), rule.id).decided == 0


def test_the_team_file_names_only_roles_of_the_chain():
    with pytest.raises(TeamFileInvalid) as refused:
        parse_team(team_allowing("product_reviewer"))
    assert "task_types.code.rules_may_sign_off" in str(refused.value) and "'product_reviewer' is not one of" in \
        str(refused.value)
    assert parse_team(team_allowing("security_reviewer")).task_types["code"].rules_may_sign_off == [
        "security_reviewer"]
    assert parse_team(CODE_TEAM).task_types["code"].rules_may_sign_off == []  # by default: people only


def test_a_gate_rule_is_refused_unless_the_team_allows_it_naming_the_field(db_url):
    flow.make_people()
    with pytest.raises(InvalidInput) as refused:  # the built-in team allows no gate
        gate_rule(RATE_LIMITER)
    assert refused.value.field == "role" and "rules_may_sign_off" in str(refused.value)
    allow("security_reviewer")
    cases = [
        (dict(when=RATE_LIMITER, role="final_approver"), "role", "does not allow"),
        (dict(when=RATE_LIMITER, role="product_reviewer"), "role", "not a sign-off role"),
        (dict(when={"argument": "fiel", "equals": "a.py"}), "when.0.argument", "did you mean 'file'"),
        (dict(when={"argument": "file", "equals": 3}), "when.0.equals", "can never be"),
        (dict(when={"argument": "task_type", "equals": "cod"}), "when.0.equals", "can never be"),
        (dict(when={"argument": "file", "equal": "a.py"}), "when.0", "unknown operator 'equal'"),
        (dict(when=RATE_LIMITER, effect="deny", reason="no"), "effect", "only approves"),
    ]
    for kw, field, words in cases:
        with pytest.raises(InvalidInput) as refused:
            gate_rule(**kw)
        assert refused.value.field == field and words in str(refused.value), (kw, str(refused.value))
    with pytest.raises(InvalidInput) as refused:
        rules.create_rule(flow.actor("alice"), RuleCommand(team="code", tool="", when=RATE_LIMITER,
                                                           task_type="copy", role="security_reviewer"))
    assert refused.value.field == "task_type"
    with pytest.raises(InvalidInput) as refused:
        rules.create_rule(flow.actor("alice"), RuleCommand(team="code", tool="run_tests", when=RATE_LIMITER,
                                                           task_type="code", role="security_reviewer"))
    assert refused.value.field == "tool"
    with pytest.raises(PermissionDenied):  # bob does not hold the gate's role
        gate_rule(RATE_LIMITER, as_user="bob")
    made = gate_rule([RATE_LIMITER, {"argument": "task_type", "equals": "code"}])
    assert (made.tool, made.task_type, made.role, made.state) == ("", "code", "security_reviewer", "shadow")


def test_an_allowed_active_rule_signs_off_as_the_rule_and_the_next_step_waits_for_a_person(db_url):
    from hitl_dashboard.services.webhooks.webhooks import add_webhook

    flow.make_people()
    add_webhook(None, url="https://hooks.example.com/hitl", events=["review.requested", "review.decided"])
    allow("security_reviewer")
    rule = active_gate_rule(RATE_LIMITER)
    cid = start_code()
    (waiting,) = open_sign_offs(cid)  # the final approver's step: the team lets no rule take it
    assert waiting.required_role == "final_approver"
    with UnitOfWork() as uow:
        decision, request = uow.session.exec(
            select(Decision, ReviewRequest).join(ReviewRequest, col(ReviewRequest.id) == Decision.review_request_id)
            .where(Decision.conversation_id == cid, ReviewRequest.kind == "signoff")).one()
        assert (decision.reviewer_id, decision.rule_id, decision.rule_version, decision.action, decision.role) == (
            None, rule.id, rule.version, "approve", "security_reviewer")
        assert decision.content_hash == request.content_hash == waiting.content_hash  # bound to the hash
        event = uow.session.exec(select(AuditEvent).where(AuditEvent.action == "decision.recorded",
                                                          AuditEvent.conversation_id == cid)).one()
        assert (event.actor, event.details["rule_id"], event.details["rule_version"]) == (
            f"rule:{rule.id}", rule.id, rule.version)
        decided = [d.payload["data"] for d in uow.session.exec(select(WebhookDelivery))
                   if d.event == "review.decided"]
        requested = [d.payload["data"]["review"]["role"] for d in uow.session.exec(select(WebhookDelivery))
                     if d.event == "review.requested"]
        assert [d["decision"]["reviewer"] for d in decided] == [f"rule:{rule.id}"]
        assert requested == ["final_approver"]  # nobody was asked for the step the rule took
    notes = [m.content for m in flow.messages(cid) if m.kind == "decision"]
    assert any("SIGNED OFF as security_reviewer" in n and f"automatically by rule {rule.id}" in n for n in notes)
    flow.decide_as("carol", waiting.id, "approve")
    assert flow.conversation(cid).status == "approved"
    assert rules.show_rule(flow.actor("alice"), rule.id).decided == 1


def test_rules_allowed_at_every_gate_approve_the_conversation(db_url):
    flow.make_people()
    allow("security_reviewer", "final_approver")
    first = active_gate_rule(RATE_LIMITER)
    last = active_gate_rule(RATE_LIMITER, as_user="carol", role="final_approver")
    cid = start_code()
    assert open_sign_offs(cid) == [] and flow.conversation(cid).status == "approved"
    assert [rules.show_rule(flow.actor("erin"), r.id).decided for r in (first, last)] == [1, 1]


def test_after_a_person_s_approval_an_allowed_rule_takes_the_next_step(db_url):
    flow.make_people()
    allow("final_approver")
    rule = active_gate_rule(RATE_LIMITER, as_user="carol", role="final_approver")
    cid = start_code()
    (review,) = open_sign_offs(cid)  # the security step is not allowed: a person signs off
    assert review.required_role == "security_reviewer"
    outcome = flow.decide_as("alice", review.id, "approve")
    assert outcome.next_review_id is None and open_sign_offs(cid) == []
    assert flow.conversation(cid).status == "approved"
    with UnitOfWork() as uow:
        deciders = [(d.role, d.reviewer_id is None, d.rule_id) for d in uow.session.exec(
            select(Decision).where(Decision.conversation_id == cid).order_by(col(Decision.id)))]
    assert deciders == [("security_reviewer", False, None), ("final_approver", True, rule.id)]


def test_a_rule_whose_allowance_was_removed_decides_nothing(db_url):
    flow.make_people()
    allow("security_reviewer")
    rule = active_gate_rule(RATE_LIMITER)
    cid = flow.start(TASK)  # pinned to the version that allows the gate
    allow()  # the team's current version no longer lets rules sign off
    flow.work()
    (waiting,) = open_sign_offs(cid)
    assert waiting.required_role == "security_reviewer"
    security_sign_off_waits(rule)  # nor a conversation started on the new version


def test_content_the_rule_does_not_match_waits_for_a_person(db_url):
    flow.make_people()
    allow("security_reviewer")
    security_sign_off_waits(active_gate_rule({"argument": "file", "one_of": ["docs/readme.md", "app/other.py"]}))


def test_people_s_sign_offs_are_shadow_evidence_and_a_contrary_one_pauses_an_active_rule(db_url):
    flow.make_people()
    allow("security_reviewer")
    shadow = gate_rule(RATE_LIMITER)
    (review,) = open_sign_offs(start_code())
    flow.decide_as("alice", review.id, "approve")
    (review,) = open_sign_offs(start_code())
    flow.decide_as("alice", review.id, "revise", instructions="use a sliding window")
    seen = rules.show_rule(flow.actor("alice"), shadow.id)
    assert (seen.agreements, seen.disagreements, seen.decided) == (1, 1, 0)
    assert [(e["mode"], e["human_action"], e["agreed"], e["tool_call_id"]) for e in seen.evidence] == [
        ("shadow", "revise", False, None), ("shadow", "approve", True, None)]
    from hitl_dashboard.services.rules.rule_evidence import rule_evidence
    from hitl_dashboard.ui.states.rule_evidence import observed_row

    evidence = rule_evidence(flow.actor("alice"), shadow.id)  # the Rules page's panel: sign-offs, not calls
    assert [(o.human_action, o.tool_call_id, o.arguments) for o in evidence.disagreements] == [("revise", None, {})]
    assert observed_row(evidence.disagreements[0]).call.startswith("sign-off #")
    cid = start_code()  # asked before the active rule existed: a person decides it
    (review,) = open_sign_offs(cid)
    active = active_gate_rule(RATE_LIMITER)
    flow.decide_as("alice", review.id, "revise", instructions="not like this")
    paused = rules.show_rule(flow.actor("alice"), active.id)
    assert paused.state == "paused" and "would have approved" in paused.state_reason
    security_sign_off_waits(active)  # paused: the next sign-off waits for a person


def test_an_external_sign_off_request_is_signed_off_where_the_team_allows_it(db_url):
    from hitl_dashboard.services.external.requests import ApprovalCommand, request_approval

    flow.make_people()
    allow("security_reviewer")
    rule = active_gate_rule({"argument": "file", "one_of": ["app/rate_limiter.py", "app/other.py"]})
    asked = request_approval(flow.actor("frank"), ApprovalCommand(
        request_id="ci-1", team="code", title="Rate limiter", content="LIMIT = 5\n", file_name="app/rate_limiter.py"))
    (waiting,) = open_sign_offs(asked.conversation_id)
    assert waiting.required_role == "final_approver"
    other = request_approval(flow.actor("frank"), ApprovalCommand(
        request_id="ci-2", team="code", title="Settings", content="DEBUG = False\n", file_name="app/settings.py"))
    (waiting,) = open_sign_offs(other.conversation_id)  # a file the rule does not name: a person signs off
    assert waiting.required_role == "security_reviewer"
    assert rules.show_rule(flow.actor("alice"), rule.id).decided == 1
