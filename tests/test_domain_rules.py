"""Pure review rules, no database."""

from __future__ import annotations

import pytest

from hitl_dashboard.domain.audit_chain import GENESIS, event_hash, verify_chain
from hitl_dashboard.domain.decisions import DecisionInput, LineComment, parse_free_text, validate_decision
from hitl_dashboard.domain.enums import Action, ReviewKind
from hitl_dashboard.domain.errors import InvalidInput, MalformedRequest
from hitl_dashboard.domain.hashing import content_hash
from hitl_dashboard.domain.policies import GatePolicy, TurnView
from hitl_dashboard.domain.revisions import extract_code_blocks
from hitl_dashboard.domain.signoff import Approval, next_role, progress

AGENTS = ("planner", "coder")


@pytest.mark.parametrize("text, action, target, detail", [
    ("approve", Action.APPROVE, None, None),
    ("LGTM", Action.APPROVE, None, None),
    ("Approve: looks safe", Action.APPROVE, None, "looks safe"),
    ("revise: add a timeout", Action.REVISE, None, "add a timeout"),
    ("REVISE @coder add a timeout", Action.REVISE, "coder", "add a timeout"),
    ("revise: @coder: add a timeout", Action.REVISE, "coder", "add a timeout"),
    ("abort: leaks the API key", Action.ABORT, None, "leaks the API key"),
    ("skip", Action.SKIP, None, None),
])
def test_free_text_decisions(text, action, target, detail):
    parsed = parse_free_text(text)
    assert parsed.action == action and parsed.target_agent == target
    assert (parsed.instructions if action == Action.REVISE else parsed.reason) == detail


@pytest.mark.parametrize("text", ["", "maybe later", "approveX", "please approve"])
def test_free_text_that_is_not_a_decision_is_refused(text):
    with pytest.raises(InvalidInput, match="starts with approve, revise, abort or skip"):
        parse_free_text(text)


@pytest.mark.parametrize("decision, field", [
    (DecisionInput(Action.ABORT), "reason"),
    (DecisionInput(Action.REVISE), "instructions"),
    (DecisionInput(Action.REVISE, instructions="x", target_agent="ghost"), "target_agent"),
    (DecisionInput(Action.APPROVE, edited_args={"a": 1}), "edited_args"),
    (DecisionInput(Action.APPROVE, reason="x" * 20_001), "reason"),
    (DecisionInput(Action.REVISE, line_comments=(LineComment("a.py", 0, "bad line"),)), "line_comments"),
])
def test_malformed_decisions_name_the_field(decision, field):
    with pytest.raises(InvalidInput) as refused:
        validate_decision(decision, kind=ReviewKind.SIGNOFF, agents=AGENTS)
    assert refused.value.field == field


@pytest.mark.parametrize("key", ["", "x" * 201, "new\nline", "caf\u00e9"])
def test_a_malformed_idempotency_key_is_a_bad_request_not_a_field_error(key):
    with pytest.raises(MalformedRequest, match="Idempotency-Key"):
        validate_decision(DecisionInput(Action.APPROVE, idempotency_key=key), kind=ReviewKind.SIGNOFF, agents=AGENTS)


def test_line_comments_alone_are_enough_for_a_revision():
    validate_decision(DecisionInput(Action.REVISE, line_comments=(LineComment("a.py", 3, "off by one"),)),
                      kind=ReviewKind.SIGNOFF, agents=AGENTS)


def test_signoff_counts_only_approvals_of_the_same_content():
    # The chains of the built-in teams' code and copy task types (hitl_dashboard/teams/*.yaml).
    code, copy = ("security_reviewer", "final_approver"), ("product_reviewer", "final_approver")
    approvals = [Approval("security_reviewer", "h1")]
    assert next_role(code, approvals, "h1") == "final_approver"
    assert next_role(code, approvals, "h2") == "security_reviewer"  # new revision: start over
    assert next_role(code, approvals + [Approval("final_approver", "h1")], "h1") is None
    assert [s.approved for s in progress(copy, approvals, "h1")] == [False, False]


def test_gate_policy_rules_fire_with_reasons():
    policy = GatePolicy(agents=("coder",), keywords=("DROP TABLE",), regex=r"rm\s+-rf", min_confidence=0.8)
    hits = policy.evaluate(TurnView("planner", "We will DROP TABLE users then rm -rf /tmp\nCONFIDENCE: 0.4"))
    assert [h.rule for h in hits] == ["keyword", "regex", "confidence"]
    assert not any(h.is_signoff_point for h in hits)
    assert [h.rule for h in policy.evaluate(TurnView("coder", "code\nCONFIDENCE: 0.9"))] == ["after_agent"]
    assert policy.evaluate(TurnView("planner", "a plan\nCONFIDENCE: 0.95")) == []
    done = GatePolicy(mode="on_done").evaluate(TurnView("coder", "Ready for review."))
    assert [h.rule for h in done] == ["on_done"]


@pytest.mark.parametrize("bad", [{"mode": "sometimes"}, {"regex": "("}, {"colour": "red"}, {"keywords": "DROP"},
                                 {"agents": [1, 2]}, {"min_confidence": "high"}, {"regex": "a" * 501}])
def test_bad_gate_policies_are_refused(bad):
    with pytest.raises(InvalidInput):
        GatePolicy.from_dict(bad)


def test_code_blocks_are_keyed_by_the_file_they_name():
    text = "Here:\n```python\n# file: app/a.py\nx = 1\n```\nand\n```\nplain\n```"
    blocks = extract_code_blocks(text)
    assert [(b.key, b.language) for b in blocks] == [("app/a.py", "python"), ("snippet-2", "text")]
    assert blocks[0].content == "# file: app/a.py\nx = 1\n"


def test_content_hash_ignores_key_order():
    assert content_hash({"a": 1, "b": 2}) == content_hash({"b": 2, "a": 1})


def test_audit_chain_detects_edit_and_gap():
    events, prev = [], GENESIS
    for seq in range(1, 4):
        payload = {"seq": seq, "action": f"a{seq}"}
        digest = event_hash(prev, payload)
        events.append((seq, prev, digest, payload))
        prev = digest
    assert verify_chain(events).ok
    edited = list(events)
    edited[1] = (2, events[1][1], events[1][2], {"seq": 2, "action": "forged"})
    assert verify_chain(edited).first_bad_seq == 2
    assert verify_chain([events[0], events[2]]).problem == "event 2 is missing"


def test_a_catastrophic_regex_cannot_hang_the_runner():
    import time

    policy = GatePolicy.from_dict({"mode": "never", "regex": r"(a+)+$"})
    started = time.monotonic()
    hits = policy.evaluate(TurnView("coder", "a" * 5000 + "!"))
    assert time.monotonic() - started < 10  # unbounded, (a+)+$ on 5000 letters runs for ages
    assert [h.rule for h in hits] == ["regex"] and "took too long" in hits[0].detail
