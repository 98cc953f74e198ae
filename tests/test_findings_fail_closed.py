"""Analysers fail closed (issue 28): code the analysers could not read is "not analysed", with the
reason, and never "0 findings". Under a findings gate it goes to security review; the queue's flag,
the CLI's JSON and a decision's audit context say why. Every reason here is triggered for real: the
server's bandit on Python 3.12 syntax, ruff told the team's version, a hanging, failing, crashing
or babbling analyser command, and the size limit."""

from __future__ import annotations

import ast
import json
import sys

import pytest
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent, CodeRevision
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.findings.queries import revision_findings
from hitl_dashboard.services.findings.review_flags import review_findings_reading
from hitl_dashboard.services.teams import team_queries
from hitl_dashboard.settings import reset_settings_cache
from tests.conftest import run_cli
from tests.support import flow
from tests.support.openai_stub import OpenAIStub, stub_as_model_endpoint
from tests.support.py312 import findings_gated_team, py312_reply

FINDINGS_ONLY = {"mode": "never", "agents": [], "keywords": [], "min_finding_severity": "high"}
PY312_CODE = py312_reply("app/shell_runner.py")


def _team(python_version: str | None) -> str:
    return findings_gated_team("py-team", python_version)


@pytest.fixture
def stub(monkeypatch):
    """The coder's model: an OpenAI-protocol stub that writes PY312_CODE (the planner stays scripted)."""
    with stub_as_model_endpoint(monkeypatch, MODEL_STREAM="false") as server:
        yield server


def _py312_conversation(stub: OpenAIStub, python_version: str | None) -> int:
    flow.make_people()
    team_queries.save_team(flow.actor("erin"), _team(python_version), origin="import")
    stub.enqueue(PY312_CODE)
    cid = flow.start("Write a helper to run a shell command", template="py-team",
                     model_routing={"coder": {"provider": "openai"}})
    flow.work()
    return cid


def _only_revision(cid: int) -> CodeRevision:
    with UnitOfWork() as uow:
        [revision] = uow.session.exec(select(CodeRevision).where(CodeRevision.conversation_id == cid)).all()
        return revision


def _server_parses(code: str) -> bool:
    """Whether this interpreter (bandit parses with it) reads the code."""
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


# The case needs a server that cannot parse the code, whatever its version: said as that condition, not
# as an interpreter version (a server on Python 3.12 reads this code, and then the case is not this one).
@pytest.mark.skipif(_server_parses(PY312_CODE.split("```python\n", 1)[-1].split("```", 1)[0]),
                    reason="this interpreter parses Python 3.12 syntax: bandit has nothing to fail on")
def test_python_312_code_on_a_team_declaring_312_is_not_analysed_and_goes_to_security(db_url, stub):
    cid = _py312_conversation(stub, "3.12")
    revision = _only_revision(cid)
    assert "def run[T](cmd: Command" in revision.content  # the stored revision is the 3.12 code
    found = revision_findings(None, cid, revision.id)
    # ruff reads it (--target-version py312); the server's bandit (Python 3.11) cannot: it says why.
    server = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert (found.status, found.reason, found.findings) == (
        "not_analysed", "bandit could not parse shell_runner.py: syntax error while parsing AST from file "
                        f"(the team declares Python 3.12; this server parses {server})", [])
    review = flow.only_open_review(cid)  # gate mode never: only the findings gate can stop it
    assert (review.rule, review.required_role) == ("findings", "security_reviewer")
    assert review.reason == f"findings: not analysed: {found.reason}"

    # The queue's flag, and the CLI's JSON, say the same; never "0 findings".
    flag = review_findings_reading([review.id])[review.id]
    assert (flag.status, flag.flag) == ("not_analysed", f"not analysed: {found.reason}")
    [item] = [i for i in json.loads(run_cli("queue", "--role", "security_reviewer", "--as", "alice", "--json").stdout)
              if i["review_id"] == review.id]
    assert item["findings"] == {"status": "not_analysed", "flag": f"not analysed: {found.reason}",
                                "counts": {"low": 0, "medium": 0, "high": 0},
                                "not_analysed": [{"file": "app/shell_runner.py", "reason": found.reason}],
                                "pending": []}
    shown = json.loads(run_cli("show", str(cid), "--json").stdout)
    assert shown["revisions"][0]["analysis"] == {"status": "not_analysed", "reason": found.reason,
                                                 "counts": {"low": 0, "medium": 0, "high": 0}}
    assert shown["open_reviews"][0]["findings"]["flag"] == f"not analysed: {found.reason}"

    # The decision's audit context records what the reviewer was shown: not analysed, and why.
    flow.decide_as("alice", review.id, "approve")
    with UnitOfWork() as uow:
        details = uow.session.exec(select(AuditEvent.details).where(
            AuditEvent.conversation_id == cid, AuditEvent.action == "decision.recorded")).one()
    assert details["findings_shown"] == [{"file": "app/shell_runner.py", "revision": 1, "status": "not_analysed",
                                          "reason": found.reason, "findings": []}]


def test_under_the_default_version_ruff_names_the_newer_syntax(sqlite_url, stub):
    cid = _py312_conversation(stub, None)  # no python_version: the documented default, 3.11
    found = revision_findings(None, cid, _only_revision(cid).id)
    assert found.status == "not_analysed"
    assert found.reason == (
        "bandit could not parse shell_runner.py: syntax error while parsing AST from file; "
        "ruff could not parse shell_runner.py: "
        "line 4: Cannot use `type` alias statement on Python 3.11 (syntax was added in Python 3.12); "
        "line 7: Cannot use type parameter lists on Python 3.11 (syntax was added in Python 3.12)")
    assert flow.only_open_review(cid).rule == "findings"


def _fake_bandit(tmp_path, monkeypatch, body: str) -> None:
    """ANALYSIS_BANDIT_COMMAND: a script in bandit's place (it gets bandit's arguments)."""
    script = tmp_path / "fake_bandit.py"
    script.write_text(body)
    monkeypatch.setenv("ANALYSIS_BANDIT_COMMAND", f"{sys.executable} {script}")


FAILURES = {
    "timeout": ("import time\ntime.sleep(3600)\n", "bandit timed out after 1 s on shell_runner.py"),
    "non-zero exit": ("import sys\nsys.stderr.write('bandit: out of cheese\\n')\nsys.exit(2)\n",
                      "bandit failed (exit 2: bandit: out of cheese) on shell_runner.py"),
    "crash": ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
              "bandit failed (exit -9: no message) on shell_runner.py"),
    "unreadable report": ("print('all good!')\n",
                          "bandit gave an unreadable report (not JSON: Expecting value: line 1 column 1 (char 0)) "
                          "on shell_runner.py"),
    "exit 1 without a finding": ("import sys\nprint('{\"results\": []}')\nsys.exit(1)\n",
                                 "bandit failed (exit 1 without a finding) on shell_runner.py"),
}


@pytest.mark.parametrize("failure", FAILURES)
def test_an_analyser_that_fails_fires_the_findings_gate_with_its_reason(db_url, monkeypatch, tmp_path, failure):
    script, reason = FAILURES[failure]
    _fake_bandit(tmp_path, monkeypatch, script)
    monkeypatch.setenv("ANALYSIS_TIMEOUT_S", "1")
    reset_settings_cache()
    flow.make_people()
    cid = flow.start("Write a helper to run a shell command", gate_policy=FINDINGS_ONLY)
    flow.work()
    found = revision_findings(None, cid, _only_revision(cid).id)
    assert (found.status, found.reason, found.findings) == ("not_analysed", reason, [])  # ruff's findings dropped
    review = flow.only_open_review(cid)
    assert (review.rule, review.required_role, review.reason) == ("findings", "security_reviewer",
                                                                  f"findings: not analysed: {reason}")
    assert review_findings_reading([review.id])[review.id].flag == f"not analysed: {reason}"


def test_a_revision_over_the_size_limit_is_not_analysed(db_url, monkeypatch):
    monkeypatch.setenv("ANALYSIS_MAX_BYTES", "100")
    reset_settings_cache()
    flow.make_people()
    cid = flow.start("Write a helper to run a shell command", gate_policy=FINDINGS_ONLY)
    flow.work()
    revision = _only_revision(cid)
    size = len(revision.content.encode())
    found = revision_findings(None, cid, revision.id)
    assert (found.status, found.reason) == ("not_analysed", f"shell_runner.py is too large to analyse "
                                                            f"({size} bytes > 100)")
    review = flow.only_open_review(cid)
    assert (review.rule, review.reason) == ("findings", f"findings: not analysed: {found.reason}")


def test_without_a_findings_gate_a_not_analysed_file_is_flagged_but_stops_nothing(sqlite_url, monkeypatch,
                                                                                   tmp_path):
    import asyncio

    from hitl_dashboard.services.findings.queue import analyse_pending

    _fake_bandit(tmp_path, monkeypatch, "import sys\nsys.exit(2)\n")
    reset_settings_cache()
    flow.make_people()
    cid = flow.start("Write a helper to run a shell command",
                     gate_policy={"mode": "after_agent", "agents": ["coder"]})
    flow.work()
    review = flow.only_open_review(cid)
    assert review.rule == "after_agent" and "not analysed" not in review.reason  # nothing waited for it
    assert review_findings_reading([review.id])[review.id].flag == "analysis pending"
    assert asyncio.run(analyse_pending()) == 1
    flag = review_findings_reading([review.id])[review.id]
    assert flag.flag == "not analysed: bandit failed (exit 2: no message) on shell_runner.py"


def test_a_team_declares_its_python_version_and_a_file_without_one_gets_the_default():
    import yaml

    from hitl_dashboard.teams.loading import TeamFileInvalid, parse_team

    assert parse_team(_team(None)).python_version == "3.11"  # versions saved before the field still load
    assert yaml.safe_load('python_version: 3.12')["python_version"] == 3.12  # YAML reads a number...
    assert parse_team(_team(None) + "python_version: 3.12\n").python_version == "3.12"  # ...taken as meant
    with pytest.raises(TeamFileInvalid, match=r'python_version: .*write it in quotes \("3.10", not 3.10'):
        parse_team(_team(None) + "python_version: 3.10\n")  # ...except where it cannot be: 3.1
    with pytest.raises(TeamFileInvalid, match="python_version: Input should be '3.8', '3.9'"):
        parse_team(_team("2.7"))
