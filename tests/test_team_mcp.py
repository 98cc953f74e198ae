"""A team tool served by an MCP server (issue 10): a small stdio server built on the `mcp` package
(tests/support/mcp_deploy_server.py), which logs every call it really runs. The call waits for
approval; approved with edited arguments it runs once, with those; denied it never runs; a server
that cannot start fails its conversation visibly, and the app and other conversations go on."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hitl_dashboard.agents import mcp_tools
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.settings import reset_settings_cache
from hitl_dashboard.teams.catalogue import reset_catalogue
from tests.support import flow
from tests.support.ops_team import ops_team_yaml, stdio_deploy_tool

SERVER = Path(__file__).parent / "support" / "mcp_deploy_server.py"


def team_file(command: str) -> str:
    return ops_team_yaml("mcp-ops", stdio_deploy_tool([command, str(SERVER)], {"MCP_DEPLOY_LOG": "MCP_DEPLOY_LOG"}),
                         description="Deploys through an MCP server.")


@pytest.fixture
def mcp_team(tmp_path: Path, monkeypatch, sqlite_url) -> Iterator[Path]:
    folder = tmp_path / "teams"
    folder.mkdir()
    (folder / "mcp-ops.yaml").write_text(team_file(sys.executable))
    log = tmp_path / "mcp-deploys.jsonl"
    monkeypatch.setenv("TEAMS_DIR", str(folder))
    monkeypatch.setenv("MCP_DEPLOY_LOG", str(log))
    # Tools are read from their servers once per process, with the environment of that moment:
    # a server an earlier test prepared would log to that test's file.
    monkeypatch.setattr(mcp_tools, "_adapters", {})
    reset_settings_cache()
    reset_catalogue()
    yield log
    reset_settings_cache()
    reset_catalogue()


def ran(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_an_approved_mcp_call_runs_once_with_the_edited_arguments(mcp_team: Path) -> None:
    flow.make_people()
    cid = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops", template="mcp-ops")
    flow.work()
    review = flow.only_open_review(cid)
    assert (review.kind, review.rule) == ("tool_call", "tool") and ran(mcp_team) == []

    with pytest.raises(InvalidInput, match="environment"):  # the server's own schema checks the edit
        flow.decide_as("alice", review.id, "approve", edited_args={
            "service": "billing-api", "version": "v2.4.1", "environment": "moon"})
    flow.decide_as("alice", review.id, "approve", edited_args={
        "service": "billing-api", "version": "v2.4.0", "environment": "staging"})
    flow.work()
    flow.work()
    assert ran(mcp_team) == [{"service": "billing-api", "version": "v2.4.0", "environment": "staging"}]
    transcript = "\n".join(m.content for m in flow.messages(cid))
    assert "MCP deployed billing-api v2.4.0 to staging" in transcript


def test_a_denied_mcp_call_never_runs(mcp_team: Path) -> None:
    flow.make_people()
    cid = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops", template="mcp-ops")
    flow.work()
    review = flow.only_open_review(cid)
    flow.decide_as("alice", review.id, "revise", instructions="freeze window until Monday; do not deploy")
    flow.work()
    assert ran(mcp_team) == []


def test_a_server_that_cannot_start_fails_its_conversation_only(mcp_team: Path, tmp_path: Path) -> None:
    (tmp_path / "teams" / "mcp-ops.yaml").write_text(team_file(str(tmp_path / "no-such-python")))
    reset_catalogue()
    flow.make_people()
    broken = flow.start("Deploy billing-api v2.4.1 to production", task_type="ops", template="mcp-ops")
    fine = flow.start("Add retry with exponential backoff to the sync")
    flow.work()
    failed = flow.conversation(broken)
    assert failed.status == "failed" and "MCP tool 'deploy_to_prod'" in failed.status_reason
    assert "no-such-python" in failed.status_reason
    assert flow.only_open_review(fine).required_role == "security_reviewer"
