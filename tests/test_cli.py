"""The CLI as an operator runs it (its entry point, in this process; `python -m hitl_dashboard` as a
process of its own in test_db_upgrade_then_demo_seed_on_a_fresh_database), --json output parsed, exit codes
0 ok / 2 invalid input / 3 not found / 4 permission denied / 5 conflict / 6 audit chain broken."""

from __future__ import annotations

import csv
import io
import json

import pytest
from sqlalchemy import text

from hitl_dashboard.db.models import AuditEvent, Conversation, Message, User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.audit.audit import CSV_FIELDS
from tests.conftest import run_cli, run_cli_process
from tests.support.db_state import audit_events, count, decisions, snapshot, use_cheap_passwords
from tests.support.flow import conversation, make_people, only_open_review, start, work

TASK = "Write a function that parses CSV rows"


@pytest.fixture
def db(sqlite_url, monkeypatch):
    monkeypatch.setenv("SCRIPTED_DELAY_MS", "0")
    use_cheap_passwords(monkeypatch)
    return sqlite_url


@pytest.fixture
def review_id(db) -> int:
    """People, and a code conversation waiting for its security sign-off."""
    make_people()
    conversation_id = start(TASK)
    work()
    return only_open_review(conversation_id).id


def cli_json(*args: str, env: dict | None = None):
    return json.loads(run_cli("--json", *args, env=env).stdout)


def cli_fails(code: int, *args: str) -> dict:
    """Runs a command that must fail with exit `code`; returns the JSON error from stderr."""
    result = run_cli("--json", *args, check=False)
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == ""
    return json.loads(result.stderr.strip().splitlines()[-1])


# -- happy paths ------------------------------------------------------------------------------------


def test_an_operator_session_through_every_review_command(db):
    alice = cli_json("users", "add", "alice", "--role", "security_reviewer", "--password", "pw-alice")
    assert (alice["username"], alice["roles"], alice["password"]) == ("alice", ["security_reviewer"], None)
    frank = cli_json("users", "add", "frank", "--role", "product_reviewer", "--role", "final_approver")
    assert frank["roles"] == ["final_approver", "product_reviewer"]
    assert len(frank["password"]) >= 12  # generated, shown once
    listed = cli_json("users", "list")
    assert [(u["username"], u["roles"], u["active"]) for u in listed] == [
        ("alice", ["security_reviewer"], True), ("frank", ["final_approver", "product_reviewer"], True)]

    started = cli_json("start", "--type", "code", "--task", TASK, "--title", "CSV import", "--as", "frank")
    assert started["status"] == "running"
    conversation_id = started["conversation_id"]
    idle = cli_json("worker", "--until-idle")  # the turns, and the analysis of the code they wrote
    assert (idle["runs"], idle["analyses"], idle["questions"], idle["escalated"]) == (1, 1, 0, [])
    assert idle["left"] == {"deliveries_waiting": 0, "next_delivery_at": None, "analyses": 0, "questions": 0}

    [item] = cli_json("queue", "--role", "security_reviewer", "--as", "alice")
    assert (item["conversation_id"], item["title"], item["kind"], item["status"]) == (
        conversation_id, "CSV import", "signoff", "pending")
    review = item["review_id"]
    assert cli_json("claim", str(review), "--as", "alice") == {"review_id": review, "status": "claimed",
                                                                 "version": item["version"] + 1}
    released = cli_json("release", str(review), "--as", "alice")
    assert released == {"review_id": review, "status": "pending", "version": item["version"] + 2}

    decided = cli_json("decide", str(review), "--as", "alice", "--action", "approve", "--reason", "looks safe",
                       "--key", "alice-1", "--expected-version", str(released["version"]))
    assert (decided["action"], decided["conversation_status"], decided["replayed"]) == (
        "approve", "awaiting_review", False)
    again = cli_json("decide", str(review), "--as", "alice", "--action", "approve", "--reason", "looks safe",
                     "--key", "alice-1", "--expected-version", str(released["version"]))
    assert (again["decision_id"], again["replayed"]) == (decided["decision_id"], True)
    # The same key with another request is refused (exit 2), and the first decision stands.
    other = run_cli("--json", "decide", str(review), "--as", "alice", "--action", "abort", "--reason", "no",
                    "--key", "alice-1", check=False)
    assert other.returncode == 2 and "already used for a different request" in other.stdout + other.stderr

    shown = cli_json("show", str(conversation_id))
    assert (shown["status"], shown["checkpoint_version"]) == ("awaiting_review", 2)
    assert shown["signoff"] == [{"role": "security_reviewer", "approved": True},
                                {"role": "final_approver", "approved": False}]
    [next_review] = shown["open_reviews"]
    assert (next_review["review_id"], next_review["role"]) == (decided["next_review_id"], "final_approver")
    assert [(m["seq"], m["source"], m["kind"]) for m in shown["messages"]] == [
        (1, "frank", "text"), (2, "planner", "text"), (3, "coder", "text"), (4, "alice", "decision")]
    assert shown["messages"][3]["content"] == "APPROVE by alice (security_reviewer): looks safe"
    assert [r["key"] for r in shown["revisions"]]  # the coder's files, as code revisions

    events = count(AuditEvent)
    assert cli_json("audit", "verify") == {"ok": True, "checked": events, "first_bad_seq": None, "problem": None}
    exported = [json.loads(line) for line in run_cli("audit", "export").stdout.splitlines()]
    assert [e["seq"] for e in exported] == list(range(1, events + 1))
    assert [e["action"] for e in exported if e["action"].startswith("decision.")] == ["decision.recorded"]


def test_db_upgrade_then_demo_seed_on_a_fresh_database(tmp_path):
    from alembic.script import ScriptDirectory

    from hitl_dashboard.db.migrations import alembic_config

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.db'}", "SCRIPTED_DELAY_MS": "0"}
    # The first command as a process of its own: `python -m hitl_dashboard` itself starts and exits 0.
    assert json.loads(run_cli_process("--json", "db", "upgrade", env=env).stdout) == {"revision": head}
    assert cli_json("db", "upgrade", env=env) == {"revision": head}  # idempotent
    seeded = cli_json("demo", "seed", env=env)
    assert seeded["seeded"] is True and "alice/demo" in seeded["message"]
    assert cli_json("demo", "seed", env=env)["seeded"] is False  # first run only
    listed = {u["username"]: u["workspaces"] for u in cli_json("users", "list", env=env)}
    assert sorted(listed) == ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]
    # Two groups, each in its own workspace (erin is the instance admin, in both).
    assert set(listed["grace"]) == {"marketing"} and set(listed["alice"]) == {"default"}
    assert [w["slug"] for w in cli_json("workspaces", "list", env=env)] == ["default", "marketing"]
    # The seeded conversations wait in the queues (one already past its security sign-off).
    assert cli_json("queue", "--role", "final_approver", env=env)
    assert cli_json("audit", "verify", env=env)["ok"] is True


def test_retry_resumes_a_failed_conversation(db, monkeypatch):
    from hitl_dashboard.settings import reset_settings_cache

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    reset_settings_cache()
    make_people()
    unreachable = {"planner": {"provider": "openai", "model": "gpt-test", "max_retries": 1, "timeout_s": 2}}
    conversation_id = start(TASK, model_routing=unreachable)
    work()
    assert conversation(conversation_id).status == "failed"
    assert cli_fails(4, "retry", str(conversation_id), "--as", "alice")["error"] == "PermissionDenied"
    assert cli_json("retry", str(conversation_id), "--as", "erin") == {"conversation_id": conversation_id,
                                                                       "status": "running"}
    assert conversation(conversation_id).status == "running"
    assert [e.actor for e in audit_events("conversation.retried")] == ["erin"]


# -- bad input ---------------------------------------------------------------------------------------


def test_an_unknown_review_or_conversation_id_exits_3_naming_it(review_id):
    for args in (["decide", "987654", "--as", "alice", "--action", "approve"],
                 ["claim", "987654", "--as", "alice"]):
        error = cli_fails(3, *args)
        assert (error["error"], error["message"]) == ("NotFound", "review request 987654 does not exist")
    assert cli_fails(3, "show", "987654")["message"] == "conversation 987654 does not exist"
    assert cli_fails(3, "claim", str(review_id), "--as", "nobody")["message"] == "user 'nobody' does not exist"


def test_malformed_json_arguments_exit_2(db):
    make_people()
    ops = start("Deploy billing-api v1.2.3 to production", task_type="ops")
    work()
    tool_review = only_open_review(ops).id
    before = snapshot(tool_review)
    error = cli_fails(2, "decide", str(tool_review), "--as", "alice", "--action", "approve",
                      "--args", '{"service": "billing-api", ')
    assert error["field"] == "args" and "--args is not valid JSON" in error["message"]
    error = cli_fails(2, "decide", str(tool_review), "--as", "alice", "--action", "approve",
                      "--args", '{"service": "Billing API!", "version": "1.2.3"}')
    assert error["field"] == "edited_args" and "service" in error["message"]
    assert snapshot(tool_review) == before


def test_an_unknown_role_exits_2_and_creates_nobody(db):
    error = cli_fails(2, "users", "add", "mallory", "--role", "security_reviewer", "--role", "wizard")
    assert error["field"] == "roles" and "unknown role(s) wizard" in error["message"]
    assert count(User) == 0 and count(AuditEvent) == 0


def test_abort_without_a_reason_exits_2(review_id):
    before = snapshot(review_id)
    error = cli_fails(2, "decide", str(review_id), "--as", "alice", "--action", "abort")
    assert (error["field"], error["message"]) == ("reason", "an abort needs a reason")
    assert snapshot(review_id) == before


def test_a_user_without_the_role_exits_4(review_id):
    before = snapshot(review_id)
    error = cli_fails(4, "decide", str(review_id), "--as", "bob", "--action", "approve")
    assert error == {"error": "PermissionDenied", "message": "bob may not decide a security_reviewer review",
                     "field": None}
    assert cli_fails(4, "claim", str(review_id), "--as", "bob")["error"] == "PermissionDenied"
    assert snapshot(review_id) == before and decisions() == []


def test_a_conflict_exits_5(review_id):
    run_cli("decide", str(review_id), "--as", "alice", "--action", "approve")
    error = cli_fails(5, "decide", str(review_id), "--as", "erin", "--action", "abort", "--reason", "late",
                      "--override-reason", "cover")
    assert error["error"] == "Conflict" and f"review request {review_id} is closed: APPROVE by" in error["message"]


def test_audit_export_csv_has_a_header_and_one_line_per_event(review_id):
    events = audit_events()
    output = run_cli("audit", "export", "--format", "csv").stdout
    lines = output.splitlines()
    assert lines[0] == ",".join(CSV_FIELDS)
    assert len(lines) == len(events) + 1
    rows = list(csv.DictReader(io.StringIO(output)))
    assert [int(r["seq"]) for r in rows] == [e.seq for e in events]
    assert [r["hash"] for r in rows] == [e.hash for e in events]
    assert json.loads(rows[0]["details"]) == events[0].details


def test_audit_verify_exits_6_naming_the_event_that_was_edited(review_id):
    assert run_cli("audit", "verify").returncode == 0
    target = audit_events("review.requested")[0].seq
    with UnitOfWork() as uow:
        uow.session.execute(text("UPDATE audit_events SET details = :d WHERE seq = :s"),
                            {"d": '{"reason": "nothing to see here"}', "s": target})
        uow.commit()
    result = run_cli("audit", "verify", check=False)
    assert result.returncode == 6
    assert result.stdout.strip() == (f"audit chain BROKEN at event {target}: "
                                     f"event {target} was altered after it was written")
    report = json.loads(run_cli("--json", "audit", "verify", check=False).stdout)
    assert (report["ok"], report["first_bad_seq"], report["checked"]) == (False, target, target - 1)


def test_a_task_longer_than_20000_characters_exits_2_and_creates_nothing(db):
    make_people()
    events = count(AuditEvent)
    error = cli_fails(2, "start", "--task", "x" * 20_001, "--as", "frank")
    assert (error["field"], error["message"]) == ("task", "the task is longer than 20000 characters")
    assert (count(Conversation), count(Message), count(AuditEvent)) == (0, 0, events)
    # The limit itself is allowed.
    assert cli_json("start", "--task", "x" * 20_000, "--as", "frank")["status"] == "running"
