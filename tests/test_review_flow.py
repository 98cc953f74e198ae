"""The heart of the product: a review that outlives the process that asked for it."""

from __future__ import annotations

import json

from sqlalchemy import text

from hitl_dashboard.db.engine import get_engine
from tests.conftest import run_cli
from tests.support import flow


def cli_json(*args: str) -> dict:
    return json.loads(run_cli("--json", *args).stdout)


def open_review(conversation_id: int) -> dict:
    reviews = cli_json("show", str(conversation_id))["open_reviews"]
    assert len(reviews) == 1, reviews
    return reviews[0]


def revision(conversation_id: int, number: int) -> str:
    detail = flow.detail(conversation_id)
    return next(r.content for r in detail.revisions if r.key == "app/retry.py" and r.number == number)


def test_code_review_survives_process_restarts_and_binds_sign_off_to_content(db_url):
    for name, role in [("alice", "security_reviewer"), ("carol", "final_approver"), ("frank", "security_reviewer")]:
        run_cli("users", "add", name, "--role", role, "--password", "pw-secret")
    started = cli_json("start", "--type", "code", "--as", "frank",
                       "--task", "Add retry with exponential backoff to the payments client")
    cid = started["conversation_id"]
    run_cli("worker", "--until-idle")  # process ends with the conversation paused

    shown = cli_json("show", str(cid))
    assert shown["status"] == "awaiting_review"
    assert [m["source"] for m in shown["messages"]] == ["frank", "planner", "coder"]
    review = open_review(cid)
    assert (review["kind"], review["role"], review["rule"]) == ("signoff", "security_reviewer", "after_agent")
    assert review["subject"] == "app/retry.py r1"

    # A new process records the revision; another new process runs the agents.
    run_cli("decide", str(review["review_id"]), "--as", "alice", "--action", "revise", "--target", "coder",
            "--instructions", "add a timeout to every call")
    run_cli("worker", "--until-idle")
    shown = cli_json("show", str(cid))
    coder_turns = [m for m in shown["messages"] if m["source"] == "coder"]
    assert len(coder_turns) == 2
    assert "timeout" in revision(cid, 2) and "timeout" not in revision(cid, 1)

    # Security approves r2; the final approver asks for another change: r3 must be
    # approved again by security, because approvals bind to the exact content.
    review = open_review(cid)
    assert review["subject"] == "app/retry.py r2"
    run_cli("decide", str(review["review_id"]), "--as", "alice", "--action", "approve")
    final = open_review(cid)
    assert final["role"] == "final_approver"
    run_cli("decide", str(final["review_id"]), "--as", "carol", "--action", "revise",
            "--instructions", "add logging of each failed attempt")
    run_cli("worker", "--until-idle")
    shown = cli_json("show", str(cid))
    assert shown["signoff"] == [{"role": "security_reviewer", "approved": False},
                                {"role": "final_approver", "approved": False}]
    review = open_review(cid)
    assert (review["role"], review["subject"]) == ("security_reviewer", "app/retry.py r3")
    assert "log" in revision(cid, 3).lower()

    run_cli("decide", str(review["review_id"]), "--as", "alice", "--action", "approve")
    final = open_review(cid)
    run_cli("decide", str(final["review_id"]), "--as", "carol", "--action", "approve")
    shown = cli_json("show", str(cid))
    assert shown["status"] == "approved"
    assert shown["signoff"] == [{"role": "security_reviewer", "approved": True},
                                {"role": "final_approver", "approved": True}]
    assert shown["open_reviews"] == []

    # The audit chain verifies, and editing any row is detected.
    assert cli_json("audit", "verify")["ok"] is True
    with get_engine(db_url).begin() as conn:
        conn.execute(text("UPDATE audit_events SET actor = 'mallory' WHERE seq = 5"))
    broken = run_cli("--json", "audit", "verify", check=False)
    assert broken.returncode == 6
    assert json.loads(broken.stdout)["first_bad_seq"] == 5


def test_deleting_an_audit_row_is_detected(db_url):
    flow.make_people()
    flow.start("Add a health check endpoint")
    flow.work()
    with get_engine(db_url).begin() as conn:
        conn.execute(text("DELETE FROM audit_events WHERE seq = 3"))
    result = run_cli("--json", "audit", "verify", check=False)
    assert result.returncode == 6
    assert "missing" in json.loads(result.stdout)["problem"]


def test_revise_targets_the_named_agent_and_the_agent_sees_the_instructions(db_url):
    flow.make_people()
    cid = flow.start("Write a tagline for the analytics launch", task_type="copy")
    flow.work()
    review = flow.only_open_review(cid)
    assert review.required_role == "product_reviewer"
    flow.decide_as("bob", review.id, "revise", instructions="make it shorter and mention dashboards",
                   target_agent="copywriter")
    flow.work()
    sources = [m.source for m in flow.messages(cid)]
    assert sources == ["frank", "planner", "copywriter", "bob", "copywriter"]
    decision_note = flow.messages(cid)[3]
    assert decision_note.kind == "decision" and "make it shorter" in decision_note.content
    revisions = [r for r in flow.detail(cid).revisions if r.key == "copy.md"]
    assert [r.number for r in revisions] == [1, 2]
    assert revisions[0].content_hash != revisions[1].content_hash
    assert "dashboard" in revisions[1].content.lower()


def test_abort_ends_the_conversation_and_closes_its_reviews(db_url):
    flow.make_people()
    cid = flow.start("Add caching to the search endpoint")
    flow.work()
    review = flow.only_open_review(cid)
    flow.decide_as("alice", review.id, "abort", reason="out of scope this quarter")
    assert flow.conversation(cid).status == "aborted"
    assert flow.open_reviews(cid) == []
    assert flow.work() == 0  # nothing runnable: an aborted conversation never resumes


def test_auto_template_follows_the_planners_task_type(db_url):
    flow.make_people()
    cid = flow.start("Write the release email announcement for our new pricing page", task_type="auto")
    flow.work()
    conversation = flow.conversation(cid)
    assert conversation.task_type == "copy"
    assert [m.source for m in flow.messages(cid)] == ["frank", "planner", "copywriter"]
    assert flow.only_open_review(cid).required_role == "product_reviewer"


def test_keyword_gate_stops_before_the_producer_and_records_why(db_url):
    flow.make_people()
    cid = flow.start("Clean up old rows", gate_policy={"mode": "after_agent", "agents": ["coder"],
                                                       "keywords": ["clean up"]})
    flow.work()
    review = flow.only_open_review(cid)
    assert review.kind == "gate" and review.rule == "keyword"
    assert "'clean up' in planner's message" in review.reason
    assert [m.source for m in flow.messages(cid)] == ["frank", "planner"]
    flow.decide_as("alice", review.id, "approve")
    flow.work()
    assert [m.source for m in flow.messages(cid)][-1] == "coder"


def test_gate_policy_never_completes_without_review(db_url):
    flow.make_people()
    cid = flow.start("Add a docstring to the helpers module", gate_policy={"mode": "never", "tools": []})
    flow.work()
    conversation = flow.conversation(cid)
    assert conversation.status == "approved"
    assert "without review" in conversation.status_reason


def test_low_confidence_opens_a_gate(db_url):
    flow.make_people()
    cid = flow.start("Refactor the billing module", gate_policy={"mode": "on_done", "min_confidence": 0.99})
    flow.work()
    review = flow.only_open_review(cid)
    assert review.rule == "confidence" and "confidence" in review.reason


def test_a_conversation_without_revisions_has_a_page(db_url) -> None:
    """A conversation with no code yet (just started, or aborted before any) still renders."""
    from hitl_dashboard.ui.views.conversation_view import conversation_view

    flow.make_people()
    cid = flow.start("Describe the release process")
    view = conversation_view(None, cid)
    assert view.found and view.revisions == [] and view.title == "Describe the release process"


def test_the_banner_names_what_it_waits_for_and_its_deadline_apart(db_url) -> None:
    """The browser counts the deadline down (assets/ticking.js): it comes as text and as a moment,
    outside the banner's words; a conversation that waits for nobody has none."""
    from hitl_dashboard.ui.views.conversation_view import conversation_view

    flow.make_people()
    cid = flow.start("Add retry with exponential backoff to the payments client")
    running = conversation_view(None, cid)
    assert (running.banner, running.banner_due, running.banner_due_ms) == ("Agents are working", "", 0)
    flow.work()
    view = conversation_view(None, cid)
    assert view.status == "awaiting_review"
    assert view.banner == "Waiting for security review"
    assert view.banner_due.startswith("due in 2") and view.banner_due == view.reviews[0].due
    assert view.banner_due_ms == view.reviews[0].due_ms > 0
