"""Static-analysis findings (issue 14): bandit and ruff on each stored Python revision, once per
content hash, off the agents' path; a hanging analyser marks the text "not analysed"; the gate
"findings at or above a severity" sends the turn to security review."""

from __future__ import annotations

import asyncio
import sys

import pytest
from sqlmodel import select

from hitl_dashboard.db.findings_models import CodeAnalysis, CodeFinding
from hitl_dashboard.db.models import CodeRevision
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.analyser_reports import parse_bandit, parse_ruff
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.findings import FindingsView
from hitl_dashboard.domain.policies import GatePolicy
from hitl_dashboard.services.findings.analysers import analysed_name
from hitl_dashboard.services.findings.queries import revision_findings
from hitl_dashboard.services.findings.queue import analyse_pending
from hitl_dashboard.settings import reset_settings_cache
from tests.support.flow import actor, conversation, make_people, only_open_review, start, work

SHELL_TASK = "Write a helper to run a shell command"
NEVER = {"mode": "never", "agents": [], "keywords": []}


def _revisions(cid: int) -> list[CodeRevision]:
    with UnitOfWork() as uow:
        return list(uow.session.exec(select(CodeRevision).where(CodeRevision.conversation_id == cid)))


def test_shell_true_and_an_unused_import_are_found_on_their_lines(db_url):
    make_people()
    cid = start(SHELL_TASK)
    work()
    revision = _revisions(cid)[0]
    assert revision_findings(None, cid, revision.id).status == "pending"  # nothing waited for it
    assert asyncio.run(analyse_pending()) == 1
    found = revision_findings(None, cid, revision.id)
    assert found.status == "analysed" and found.file == "app/shell_runner.py"
    lines = revision.content.splitlines()
    by_rule = {f.rule: f for f in found.findings}
    assert by_rule["B602"].severity == "high" and "shell=True" in lines[by_rule["B602"].line - 1]
    assert by_rule["F401"].analyser == "ruff" and lines[by_rule["F401"].line - 1] == "import os"
    # Once per content hash: the same text in another conversation is not analysed again.
    other = start(SHELL_TASK)
    work()
    assert asyncio.run(analyse_pending()) == 0
    assert revision_findings(None, other, _revisions(other)[0].id).findings == found.findings


def test_a_hanging_analyser_times_out_and_the_findings_gate_fires(db_url, monkeypatch, tmp_path):
    hang = tmp_path / "hang.py"
    hang.write_text("import time\ntime.sleep(3600)\n")
    monkeypatch.setenv("ANALYSIS_BANDIT_COMMAND", f"{sys.executable} {hang}")
    monkeypatch.setenv("ANALYSIS_TIMEOUT_S", "0.5")
    reset_settings_cache()
    make_people()
    cid = start(SHELL_TASK, gate_policy={"mode": "after_agent", "agents": ["coder"],
                                          "min_finding_severity": "high"})
    work()  # the gate waited for the analysis, which timed out: the turn is stored all the same
    revision = _revisions(cid)[0]
    found = revision_findings(None, cid, revision.id)
    assert found.status == "not_analysed" and found.reason == "bandit timed out after 0.5 s on shell_runner.py"
    assert conversation(cid).status == "awaiting_review"
    review = only_open_review(cid)  # the sign-off point, and the findings gate says the check did not run
    assert review.rule == "after_agent"
    assert "findings: not analysed: bandit timed out after 0.5 s on shell_runner.py" in review.reason


def test_the_findings_gate_routes_to_security_when_no_other_rule_fires(db_url):
    make_people()
    policy = {**NEVER, "min_finding_severity": "high"}
    cid = start(SHELL_TASK, gate_policy=policy)  # mode never: no other rule fires
    work()
    review = only_open_review(cid)
    assert (review.rule, review.required_role, review.subject_type) == ("findings", "security_reviewer",
                                                                          "code_revision")
    assert "1 static-analysis finding at or above high in app/shell_runner.py" in review.reason
    with UnitOfWork() as uow:
        assert uow.session.get(CodeAnalysis, _revisions(cid)[0].content_hash).status == "analysed"


def test_without_the_predicate_findings_never_gate(db_url):
    make_people()
    cid = start(SHELL_TASK, gate_policy=NEVER)
    work()
    assert conversation(cid).status == "approved"


def test_gate_policy_severity_is_checked():
    assert GatePolicy.from_dict({"min_finding_severity": "medium"}).min_finding_severity == "medium"
    with pytest.raises(InvalidInput, match="min_finding_severity"):
        GatePolicy.from_dict({"min_finding_severity": "critical"})
    policy = GatePolicy(min_finding_severity="medium")
    assert policy.evaluate_findings(FindingsView({"low": 4}, ("a.py",))) == []
    assert policy.evaluate_findings(FindingsView({"medium": 1, "high": 1}, ("a.py",)))[0].rule == "findings"
    unread = policy.evaluate_findings(FindingsView({}, ("a.py",), (("a.py", "ruff could not parse a.py: line 1"),)))
    assert [h.describe() for h in unread] == ["findings: not analysed: ruff could not parse a.py: line 1"]


def test_reports_are_read_defensively():
    assert parse_bandit('{"results": [{"test_id": "B602", "issue_severity": "HIGH", "line_number": 7,'
                        ' "col_offset": 4, "issue_text": "<img src=x onerror=alert(1)>"}]}').findings[0].line == 7
    # A syntax error is no finding: the file was not read (older ruff: code null; 0.17: invalid-syntax).
    for code in ("null", '"invalid-syntax"'):
        report = parse_ruff(f'[{{"code": {code}, "message": "Expected `)`", "location": {{"row": 2, "column": 1}}}}]')
        assert (report.findings, report.parse_errors) == ([], ["line 2: Expected `)`"])
    report = parse_bandit('{"errors": [{"filename": "x.py", "reason": "syntax error while parsing AST from file"}],'
                          ' "results": []}')
    assert (report.findings, report.parse_errors) == ([], ["syntax error while parsing AST from file"])
    for bad in ("not json", "[]"):
        with pytest.raises(ValueError):
            parse_bandit(bad)
    assert analysed_name("../../etc/passwd") == "module.py" and analysed_name("app/x_y.py") == "x_y.py"


def test_findings_rows_survive_for_every_revision_of_the_text(db_url):
    make_people()
    start(SHELL_TASK)
    work()
    asyncio.run(analyse_pending())
    with UnitOfWork() as uow:
        rows = uow.session.exec(select(CodeFinding)).all()
    assert {r.analyser for r in rows} == {"bandit", "ruff"}


def test_the_audit_context_of_a_decision_lists_the_findings_shown(db_url):
    from hitl_dashboard.db.models import AuditEvent
    from hitl_dashboard.services.audit.audit_context import event_context
    from tests.support.flow import decide_as

    make_people()
    cid = start(SHELL_TASK)
    work()
    asyncio.run(analyse_pending())
    review = only_open_review(cid)
    decide_as("alice", review.id, "approve")
    with UnitOfWork() as uow:
        event = uow.session.exec(select(AuditEvent).where(AuditEvent.action == "decision.recorded")).one()
    shown = event_context(actor("dave"), event.seq).event.details["findings_shown"]
    assert [(s["file"], s["status"]) for s in shown] == [("app/shell_runner.py", "analysed")]
    assert {"B602", "F401"} <= {f["rule"] for f in shown[0]["findings"]}


# The team's planner is `lead`; the agent whose code is reviewed is called `planner`: the gate goes
# by the roles the team file gives, never by a name.
NAMES_SWAPPED = """
name: names-swapped
description: The planner is called lead; the coder is called planner.
agents:
  - {name: lead, description: Plans, model: plans, system_prompt: Plan it.}
  - {name: planner, description: Writes the code, model: codes, system_prompt: Write it.}
models:
  plans: {provider: scripted, config: {plays: planner}}
  codes: {provider: scripted, config: {plays: coder}}
speaker_order: {mode: planner_then_producer, planner: lead}
task_types:
  code: {producer: planner, sign_off: [security_reviewer, final_approver]}
gates: {mode: never, min_finding_severity: high}
"""


def _names_swapped_team() -> None:
    from hitl_dashboard.services.teams import team_queries

    make_people()
    team_queries.save_team(actor("erin"), NAMES_SWAPPED, origin="import")


def test_the_findings_gate_judges_the_producers_code_whatever_the_agent_is_called(sqlite_url):
    _names_swapped_team()
    cid = start(SHELL_TASK, template="names-swapped")
    work()
    review = only_open_review(cid)  # gate mode never: only the findings can stop it
    assert (review.rule, review.required_role, review.subject_type) == ("findings", "security_reviewer",
                                                                          "code_revision")
    assert "in app/shell_runner.py" in review.reason


def test_the_teams_planner_proposes_no_code_for_the_gate_whatever_it_is_called(sqlite_url):
    from hitl_dashboard.agents.team_run import ProducedMessage, TurnResult
    from hitl_dashboard.domain.turn_gate import parse_turn_code
    from hitl_dashboard.services.findings.gate import findings_for_turn
    from hitl_dashboard.services.teams.versions import pinned

    _names_swapped_team()
    cid = start(SHELL_TASK, template="names-swapped")
    code = "```python\n# file: app/run.py\nimport subprocess\nsubprocess.run(cmd, shell=True)\n```"
    by_lead = TurnResult([ProducedMessage("lead", "text", code)], "full", {}, None)
    team = pinned(conversation(cid))
    assert asyncio.run(findings_for_turn(cid, parse_turn_code(team.code_authors, by_lead.messages), team)) is None
    with UnitOfWork() as uow:
        assert uow.session.exec(select(CodeAnalysis)).all() == []  # nothing was analysed, nothing waited
    by_producer = TurnResult([ProducedMessage("planner", "text", code)], "full", {}, None)
    found = asyncio.run(findings_for_turn(cid, parse_turn_code(team.code_authors, by_producer.messages), team))
    assert found is not None and found.files == ("app/run.py",) and found.counts.get("high", 0) >= 1
