"""Time travel (services/conversations/forks.py): a fork or replay starts from exactly the team state
after its turn, with the parent's transcript up to there; approvals never carry over."""

from __future__ import annotations

import pytest

from hitl_dashboard.domain.errors import Conflict, InvalidInput, PermissionDenied
from hitl_dashboard.services.conversations import forks
from tests.support import flow
from tests.support.db_state import audit_events
from tests.support.openai_stub import OpenAIStub, stub_as_model_endpoint

TWENTY_TURNS = {"mode": "never", "tools": [], "max_turns_without_review": 20}
ON_OPENAI = {"planner": {"provider": "openai"}, "coder": {"provider": "openai"}}


@pytest.fixture
def stub(monkeypatch):
    with stub_as_model_endpoint(monkeypatch, MODEL_STREAM="false") as server:
        yield server


def _transcript(cid: int) -> list[tuple]:
    return [(m.seq, m.source, m.kind, m.content) for m in flow.messages(cid)]


def _twenty_turns(stub: OpenAIStub) -> int:
    flow.make_people()
    stub.enqueue(*[f"Turn {n}: a step of the rate limiter, with its reasoning." for n in range(1, 21)])
    cid = flow.start("Write a rate limiter for the login endpoint", gate_policy=TWENTY_TURNS,
                     model_routing=ON_OPENAI)
    flow.work()
    parent = flow.conversation(cid)
    assert (parent.status, parent.checkpoint_version, len(stub.requests)) == ("awaiting_review", 20, 20)
    return cid


def test_a_fork_at_turn_7_starts_from_exactly_the_state_after_turn_7(sqlite_url, stub):
    cid = _twenty_turns(stub)
    at_turn_8 = stub.requests[7]["messages"]  # what the parent's 8th turn sent its model

    child = forks.fork(flow.actor("alice"), cid, 7, instructions="guard the counter with a lock",
                       target_agent="coder")
    assert (child.parent_id, child.parent_turn, child.origin, child.initiator_id) == (
        cid, 7, "fork", flow.actor("alice").user_id)
    # The transcript of the first 7 turns: the task, the planner's turn, six of the coder's.
    assert _transcript(child.id)[:8] == _transcript(cid)[:8]
    assert _transcript(child.id)[8][1:3] == ("alice", "decision")  # what the fork was told, shown

    stub.enqueue("Turn 8 of the fork: the counter now sits behind a lock. DONE")
    flow.work()
    sent = stub.requests[20]["messages"]
    assert sent[:-1] == at_turn_8
    assert sent[-1]["role"] == "user" and "Instructions: guard the counter with a lock" in sent[-1]["content"]
    assert sent[-1]["content"].startswith("REVISE @coder")
    assert [(m.source, m.kind) for m in flow.messages(child.id)][8:] == [("alice", "decision"), ("coder", "text")]

    events = audit_events("conversation.forked")
    assert [(e.actor, e.conversation_id, e.details["parent"], e.details["turn"]) for e in events] == [
        ("alice", child.id, cid, 7)]
    tree = forks.fork_tree(None, cid)
    assert tree.parent is None and [(b.id, b.turn, b.origin) for b in tree.children] == [(child.id, 7, "fork")]
    assert forks.fork_tree(None, child.id).parent.id == cid


def test_a_replay_sends_the_same_request_again(sqlite_url, stub):
    cid = _twenty_turns(stub)
    child = forks.replay(flow.actor("bob"), cid, 7)
    assert (child.origin, child.parent_turn) == ("replay", 7)
    stub.enqueue("Turn 8, answered again. DONE")
    flow.work()
    assert stub.requests[20]["messages"] == stub.requests[7]["messages"]

    from_the_start = forks.replay(flow.actor("bob"), cid, 0)
    assert _transcript(from_the_start.id) == _transcript(cid)[:1]
    stub.enqueue("A new plan. DONE")
    flow.work()
    assert stub.requests[21]["messages"] == stub.requests[0]["messages"]
    with pytest.raises(Conflict):
        forks.replay(flow.actor("bob"), cid, 20)  # nothing came after the last turn


def test_approvals_never_carry_over_and_the_forker_cannot_sign_off(db_url):
    flow.make_people()
    cid = flow.start("Add retry with exponential backoff to the payments client", as_user="erin")
    flow.work()
    review = flow.only_open_review(cid)
    flow.decide_as("alice", review.id, "approve")
    assert flow.only_open_review(cid).required_role == "final_approver"

    child = forks.fork(flow.actor("frank"), cid, 2)  # the coder's turn: r1, approved by security
    assert flow.open_reviews(child.id) == []
    assert [(r.key, r.number) for r in flow.detail(child.id).revisions] == [("app/retry.py", 1)]
    flow.work()
    review = flow.only_open_review(child.id)  # its own review, from the first role again
    assert review.required_role == "security_reviewer"
    with pytest.raises(PermissionDenied):
        flow.decide_as("frank", review.id, "approve")  # frank forked it: his own work
    flow.decide_as("alice", review.id, "approve")


def test_an_edited_message_replaces_that_turn_in_the_state_and_the_transcript(db_url):
    flow.make_people()
    cid = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()
    plan = "TASK TYPE: code\n1. Write app/retry.py with a timeout on every call.\nCONFIDENCE: 0.9"
    child = forks.fork(flow.actor("alice"), cid, 1, edited_message=plan)
    assert [m.content for m in flow.messages(child.id)] == [flow.messages(cid)[0].content, plan]
    flow.work()
    assert [m.source for m in flow.messages(child.id)] == ["frank", "planner", "coder"]


def test_bad_fork_requests_are_refused_clearly(sqlite_url):
    flow.make_people()
    cid = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()
    alice = flow.actor("alice")
    for turn in (0, 3, -1, "2"):
        with pytest.raises(InvalidInput):
            forks.fork(alice, cid, turn)
    with pytest.raises(InvalidInput, match="unknown agent"):
        forks.fork(alice, cid, 1, instructions="x", target_agent="ghost")
    with pytest.raises(InvalidInput):
        forks.fork(alice, cid, 1, target_agent="coder")
    with pytest.raises(InvalidInput):
        forks.fork(alice, cid, 2, edited_message="   ")


def test_a_fork_with_the_longest_instructions_runs_promptly(sqlite_url):
    """20,000 characters of instructions with no space in them once took the scripted coder seconds of
    CPU (a quadratic line-comment search), enough to stall a server's runner: the fuzzer found it."""
    flow.make_people()
    cid = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()
    child = forks.fork(flow.actor("alice"), cid, 1, instructions="0" * 19_990 + " line 3: x", edited_message="0")
    flow.work()
    assert [m.source for m in flow.messages(child.id)] == ["frank", "planner", "alice", "coder"]


def test_a_fork_from_an_edited_message_keeps_the_earlier_revisions_and_proposes_the_edited_code(db_url):
    """Like a plain fork, it carries the parent's revisions up to its turn; the edited message's own
    revision is its new text's (once, it had none: the parent's was dropped and nothing replaced it)."""
    flow.make_people()
    cid = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()
    flow.decide_as("alice", flow.only_open_review(cid).id, "revise", instructions="cap the retries at 5",
                   target_agent="coder")
    flow.work()
    parent = [(r.key, r.number, r.content) for r in flow.detail(cid).revisions]
    assert [(key, number) for key, number, _ in parent] == [("app/retry.py", 1), ("app/retry.py", 2)]
    turn = flow.conversation(cid).checkpoint_version  # the coder's second revision

    plain = forks.fork(flow.actor("bob"), cid, turn)
    assert [(r.key, r.number, r.content) for r in flow.detail(plain.id).revisions] == parent

    edited_code = "MAX_RETRIES = 5\n\ndef retry(call):\n    return call()\n"
    edited = forks.fork(flow.actor("bob"), cid, turn, edited_message=(
        f"```python\n# file: app/retry.py\n{edited_code}```\nCONFIDENCE: 0.9\nReady for review."))
    revisions = flow.detail(edited.id).revisions
    assert [(r.key, r.number) for r in revisions] == [("app/retry.py", 1), ("app/retry.py", 2)]
    assert revisions[0].content == parent[0][2]
    assert "MAX_RETRIES = 5" in revisions[1].content and revisions[1].content != parent[1][2]
    edited_row = [m for m in flow.messages(edited.id) if m.source == "coder"][-1]
    assert revisions[1].message_id == edited_row.id
    assert flow.open_reviews(edited.id) == []


def test_the_fork_dialog_starts_from_the_agent_message_of_the_turn(sqlite_url):
    """forks.turn_message: the text the dialog offers to edit; none for a turn of tool calls."""
    flow.make_people()
    cid = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()
    task, plan, code = flow.messages(cid)
    assert [forks.turn_of_message(None, cid, m.seq) for m in (plan, code)] == [1, 2]
    assert forks.turn_message(None, cid, 1) == plan.content
    assert forks.turn_message(None, cid, 2) == code.content
    assert forks.turn_message(None, cid, 3) is None  # not run yet

    ops = flow.start("Deploy payments-api 2.4.1 to production", task_type="ops")
    flow.work()
    [call] = [m for m in flow.messages(ops) if m.kind == "tool_call"]
    assert forks.turn_message(None, ops, forks.turn_of_message(None, ops, call.seq)) is None
    with pytest.raises(InvalidInput, match="no single agent message"):
        forks.fork(flow.actor("alice"), ops, forks.turn_of_message(None, ops, call.seq), edited_message="deployed")
    with pytest.raises(InvalidInput, match="longer than"):
        forks.fork(flow.actor("alice"), cid, 2, edited_message="x" * (forks.MAX_EDITED_MESSAGE_CHARS + 1))
