"""Approve with my changes (services/reviews/edits.py): the reviewer's version is a revision they
wrote, with its own hash; the approval and the next sign-offs bind to it; its author cannot approve
it; the agents go on from it and are told the diff. Bad input is refused and changes nothing."""

from __future__ import annotations

import pytest
from sqlmodel import col, select

from hitl_dashboard.db.models import AuditEvent, CodeRevision, Decision, Message, TurnCheckpoint
from hitl_dashboard.domain.edits import MAX_EDITED_FILE_CHARS, split_edits
from hitl_dashboard.domain.errors import Conflict, InvalidInput, PermissionDenied
from hitl_dashboard.domain.hashing import content_hash, sha256_text
from hitl_dashboard.services.audit.audit_context import event_context
from hitl_dashboard.services.auth import users
from hitl_dashboard.services.transactions import reading
from tests.support import flow

TASK = "Add retry with exponential backoff to the payments client"
KEY = "app/retry.py"


def _revisions(cid: int) -> list[CodeRevision]:
    with reading() as uow:
        return list(uow.session.exec(select(CodeRevision).where(CodeRevision.conversation_id == cid)
                                     .order_by(col(CodeRevision.id))))


def _audit(cid: int) -> list[AuditEvent]:
    with reading() as uow:
        return list(uow.session.exec(select(AuditEvent).where(AuditEvent.conversation_id == cid)
                                     .order_by(col(AuditEvent.seq))))


def _turn_input(cid: int, turn: int) -> str:
    with reading() as uow:
        row = uow.session.exec(select(TurnCheckpoint).where(TurnCheckpoint.conversation_id == cid,
                                                            TurnCheckpoint.turn == turn)).one()
        return (row.input or {}).get("content", "")


def _first_review(task: str = TASK, **start) -> tuple[int, object]:
    flow.make_people()
    cid = flow.start(task, **start)
    flow.work()
    return cid, flow.only_open_review(cid)


def _edited(cid: int) -> str:
    agent = next(r for r in _revisions(cid) if r.key == KEY)
    assert "MAX_ATTEMPTS = 5" in agent.content
    return agent.content.replace("MAX_ATTEMPTS = 5", "MAX_ATTEMPTS = 3  # our gateway allows three")


def test_approve_with_changes_stores_the_reviewers_revision_and_binds_every_sign_off_to_it(db_url):
    cid, review = _first_review()
    agent_hash = review.content_hash
    edited = _edited(cid)
    outcome = flow.decide_as("alice", review.id, "approve", edited_files={KEY: edited},
                             expected_version=review.version, expected_content_hash=agent_hash)

    agent, mine = _revisions(cid)
    alice = users.find_actor("alice")
    assert (mine.key, mine.number, mine.author_id, mine.content) == (KEY, 2, alice.user_id, edited)
    assert mine.content_hash == sha256_text(edited) and agent.author_id is None
    new_hash = content_hash(sorted([[KEY, mine.content_hash]]))
    with reading() as uow:
        decision = uow.session.get(Decision, outcome.decision_id)
        note = uow.session.get(Message, mine.message_id)
    assert decision.content_hash == new_hash != agent_hash  # the approval is of the edited file
    assert note.source == "alice" and "-MAX_ATTEMPTS = 5" in note.content and "+MAX_ATTEMPTS = 3" in note.content

    # The next role reviews the reviewer's version.
    final = flow.only_open_review(cid)
    assert (final.required_role, final.content_hash, final.subject_id) == ("final_approver", new_hash, mine.id)
    assert "edited by alice" in final.subject_label
    progress = {s.role: s.approved for s in flow.detail(cid).progress}
    assert progress == {"security_reviewer": True, "final_approver": False}

    # The audit trail holds both hashes: what was asked, the edit (from -> to), what was approved.
    events = [(e.action, e.content_hash, e.details) for e in _audit(cid)]
    assert ("review.requested", agent_hash) in [(a, h) for a, h, _ in events]
    edit = next(d for a, h, d in events if a == "review.edited" and h == new_hash)
    assert (edit["from_hash"], edit["to_hash"], edit["changed"]) == (agent_hash, new_hash, [KEY])
    recorded = next(d for a, h, d in events if a == "decision.recorded" and h == new_hash)
    assert recorded["edited_from_hash"] == agent_hash
    # The audit page's "what exactly was reviewed" of the edit shows both versions.
    seq = next(e.seq for e in _audit(cid) if e.action == "review.edited")
    shown = event_context(flow.actor("dave"), seq).reviewed
    assert [p.text for p in shown.parts] == [agent.content, edited] and shown.hash_matches

    # The final approver asks for a change: the coder starts from the edited file and is told the diff.
    flow.decide_as("carol", final.id, "revise", instructions="add a timeout to every call")
    told = flow.conversation(cid).next_input["content"]
    assert split_edits(told)[0].startswith("REVISE @coder")
    assert [c.key for c in split_edits(told)[1]] == [KEY] and "+MAX_ATTEMPTS = 3" in told
    flow.work()
    assert "+MAX_ATTEMPTS = 3" in _turn_input(cid, flow.conversation(cid).checkpoint_version)
    latest = _revisions(cid)[-1]
    assert (latest.number, latest.author_id) == (3, None)
    assert "MAX_ATTEMPTS = 3  # our gateway allows three" in latest.content and "timeout" in latest.content
    # Told once: the next resume after this turn carries no edits.
    again = flow.only_open_review(cid)
    flow.decide_as("carol" if again.required_role == "final_approver" else "alice", again.id, "revise",
                   instructions="rename call_with_retry to retry_call")
    assert split_edits(flow.conversation(cid).next_input["content"])[1] == []


def test_the_reviewer_who_edited_counts_as_its_author(db_url):
    cid, review = _first_review()
    users.create_user(username="gina", password="pw-gina", roles=["security_reviewer", "final_approver"])
    flow.decide_as("gina", review.id, "approve", edited_files={KEY: _edited(cid)})
    final = flow.only_open_review(cid)
    with pytest.raises(PermissionDenied, match="wrote this version"):
        flow.decide_as("gina", final.id, "approve")
    with pytest.raises(PermissionDenied, match="wrote this version"):
        flow.decide_as("gina", final.id, "skip")
    assert flow.only_open_review(cid).version == final.version  # nothing changed
    flow.decide_as("carol", final.id, "approve")
    assert flow.conversation(cid).status == "approved"


def test_bad_edits_are_refused_and_change_nothing(db_url):
    cid, review = _first_review()
    edited = _edited(cid)
    agent = _revisions(cid)[0]
    refusals = [
        ("alice", {"edited_files": {KEY: agent.content.replace("\n", "\r\n") + "\n\n"}}, InvalidInput,
         "same as the proposal"),
        ("alice", {"edited_files": {"app/other.py": edited}}, InvalidInput, "not a file of this revision"),
        ("alice", {"edited_files": {KEY: "x" * (MAX_EDITED_FILE_CHARS + 1)}}, InvalidInput, "longer than"),
        ("alice", {"edited_text": "a message"}, InvalidInput, "about files"),
        ("alice", {"edited_files": {KEY: edited}, "expected_version": review.version + 1}, Conflict, "changed"),
        ("alice", {"edited_files": {KEY: edited}, "expected_content_hash": "0" * 64}, Conflict, "other content"),
        ("bob", {"edited_files": {KEY: edited}}, PermissionDenied, "may not decide"),
        ("frank", {"edited_files": {KEY: edited}}, PermissionDenied, "started this conversation"),
    ]
    for who, fields, error, message in refusals:
        with pytest.raises(error, match=message):
            flow.decide_as(who, review.id, "approve", **fields)
    with pytest.raises(InvalidInput, match="goes with an approval"):
        flow.decide_as("alice", review.id, "revise", instructions="x", edited_files={KEY: edited})
    assert len(_revisions(cid)) == 1
    still = flow.only_open_review(cid)
    assert (still.id, still.version, still.content_hash) == (review.id, review.version, review.content_hash)
    assert not [e for e in _audit(cid) if e.action in ("review.edited", "decision.recorded")]


def test_a_message_under_review_is_edited_and_the_agents_go_on_from_the_edited_text(db_url):
    # The plan stops at a keyword gate (a gate review of the planner's message).
    cid, review = _first_review(gate_policy={"mode": "after_agent", "agents": ["coder"], "keywords": ["TASK TYPE"]})
    assert (review.kind, review.subject_type) == ("gate", "message")
    with reading() as uow:
        plan = uow.session.get(Message, review.subject_id)
    mine = plan.content.strip() + "\n4. Keep the public function names."
    with pytest.raises(InvalidInput, match="same as the proposal"):
        flow.decide_as("alice", review.id, "approve", edited_text="  " + plan.content + "\n")
    with pytest.raises(InvalidInput, match="about a message"):
        flow.decide_as("alice", review.id, "approve", edited_files={"message": mine})
    outcome = flow.decide_as("alice", review.id, "approve", edited_text=mine)

    with reading() as uow:
        decision = uow.session.get(Decision, outcome.decision_id)
        edited = uow.session.exec(select(Message).where(Message.conversation_id == cid,
                                                        Message.author_id.is_not(None))).one()  # type: ignore[union-attr]
    assert (edited.source, edited.content) == ("alice", mine)
    assert decision.content_hash == content_hash(mine) != review.content_hash
    edit = next(e for e in _audit(cid) if e.action == "review.edited")
    assert (edit.details["from_hash"], edit.content_hash) == (review.content_hash, content_hash(mine))
    told = flow.conversation(cid).next_input["content"]
    assert "+4. Keep the public function names." in told and told.endswith("APPROVED by alice: continue.")
    flow.work()  # the agents go on: the coder proposes code for sign-off
    assert flow.only_open_review(cid).subject_type == "code_revision"
