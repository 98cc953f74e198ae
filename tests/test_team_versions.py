"""Team versions (issue 10): saving a team makes an immutable version, a conversation keeps the
version it started on to its end, saves are admins' only, checked, audited, and never undone by a
restart with an unchanged team file. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from sqlmodel import select

from hitl_dashboard.db.models import AuditEvent
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.services.teams import team_queries, versions
from hitl_dashboard.settings import reset_settings_cache
from hitl_dashboard.teams.catalogue import reset_catalogue
from hitl_dashboard.teams.loading import TeamFileInvalid
from tests.support import flow

KEYWORD = "def "  # in every revision the scripted coder writes
TASK = "Add retry with exponential backoff to the payments client"


def code_team(**changes) -> str:
    """The code team's file with `changes` applied (gates.keywords=[...], sla_hours={...})."""
    data = yaml.safe_load(team_queries.export_team(None, "code"))
    for path, value in changes.items():
        section, _, key = path.partition("__")
        if key:
            data.setdefault(section, {})[key] = value
        else:
            data[section] = value
    return yaml.safe_dump(data, sort_keys=False)


def gate_review(cid: int):
    review = flow.only_open_review(cid)
    assert review.required_role == "security_reviewer"
    return review


def test_a_new_version_changes_new_conversations_only(db_url) -> None:
    flow.make_people()
    before = flow.start(TASK)
    flow.work()
    old_review = gate_review(before)
    assert KEYWORD.strip() in flow.messages(before)[-1].content
    assert "keyword" not in old_review.reason and old_review.due_at - old_review.created_at == timedelta(hours=24)

    saved, created = team_queries.save_team(flow.actor("erin"), code_team(
        gates__keywords=["DROP TABLE", KEYWORD], sla_hours={"security_reviewer": 2}))
    assert created and (saved.team, saved.number, saved.created_by, saved.origin) == ("code", 2, "erin", "api")

    after = flow.start(TASK)
    flow.work()
    new_review = gate_review(after)
    assert f"keyword '{KEYWORD}'" in new_review.reason or KEYWORD.strip() in new_review.reason
    assert new_review.due_at - new_review.created_at == timedelta(hours=2)
    assert (flow.conversation(before).team_version_id, flow.conversation(after).team_version_id) == (
        versions.versions(None, "code")[-1].id, saved.id)

    # The older conversation keeps version 1 to its end: revised, its next review is v1's again.
    flow.decide_as("alice", old_review.id, "revise", instructions="cap the retries at 5", target_agent="coder")
    flow.work()
    again = gate_review(before)
    assert "keyword" not in again.reason and again.due_at - again.created_at == timedelta(hours=24)


def test_only_admins_save_checked_files_and_every_version_is_audited(db_url) -> None:
    flow.make_people()
    with pytest.raises(PermissionDenied):
        team_queries.save_team(flow.actor("dave"), code_team(sla_hours={"security_reviewer": 2}))
    with pytest.raises(TeamFileInvalid) as bad:
        team_queries.save_team(flow.actor("erin"), code_team(sla_hours={"security_reviewer": -1}))
    assert bad.value.field == "sla_hours.security_reviewer"
    with pytest.raises(TeamFileInvalid) as unknown_tool:
        team_queries.save_team(flow.actor("erin"), code_team(tools={"t": {"function": "nowhere.at_all:f"}}))
    # A save from the web names only the functions the operator allows (the CLI import: any that imports).
    assert "tools.t.function: the function nowhere.at_all:f is not one the operator allows" in str(unknown_tool.value)
    assert [v.number for v in team_queries.team_versions(None, "code")] == [1]  # nothing was saved

    unchanged, created = team_queries.save_team(flow.actor("erin"), team_queries.export_team(None, "code"))
    assert not created and unchanged.number == 1
    team_queries.save_team(flow.actor("erin"), code_team(gates__keywords=["rm -rf"], sla_hours={"final_approver": 8}))
    with UnitOfWork() as uow:
        [event] = uow.session.exec(select(AuditEvent).where(AuditEvent.action == "team.saved")).all()
    assert event.actor == "erin" and event.details["team"] == "code"
    assert (event.details["version"], event.details["replaces"]) == (2, 1)
    assert event.details["changed"] == ["gates.keywords", "sla_hours.final_approver"]


def test_a_restart_with_the_same_file_keeps_the_saved_version_and_a_changed_file_wins(
        db_url, tmp_path: Path, monkeypatch) -> None:
    flow.make_people()
    folder = tmp_path / "teams"
    folder.mkdir()
    extra = folder / "careful.yaml"
    extra.write_text(code_team(name="careful"))
    monkeypatch.setenv("TEAMS_DIR", str(folder))
    reset_settings_cache()
    reset_catalogue()
    try:
        assert "careful" in [t.name for t in team_queries.list_teams()]
        team_queries.save_team(flow.actor("erin"), code_team(name="careful", sla_hours={"final_approver": 5}))

        reset_catalogue()  # a restart: the files are read again, unchanged
        careful = next(t for t in team_queries.list_teams() if t.name == "careful")
        assert (careful.version, careful.source, careful.saved_by) == (2, "api", "erin")

        extra.write_text(code_team(name="careful", sla_hours={"final_approver": 9}))
        reset_catalogue()  # a restart after the file changed: the file is the newest version
        careful = next(t for t in team_queries.list_teams() if t.name == "careful")
        assert (careful.version, careful.source) == (3, str(extra))
        assert [v.origin for v in team_queries.team_versions(None, "careful")] == ["file", "api", "file"]
    finally:
        monkeypatch.delenv("TEAMS_DIR")
        reset_settings_cache()
        reset_catalogue()


def test_a_first_team_read_that_fails_still_leaves_the_files_teams_stored(db_url) -> None:
    """The first team read of a process stores the team files' versions; when that read fails after
    (a workspace the reader is not in), the stored versions roll back with it, and the next read
    must store them again, not take them as stored: a shared API app once lost every team that way
    (the fuzzer's ?workspace=<made up> came first) and answered "no team named 'code'" from then on."""
    from hitl_dashboard.domain.errors import NotFound

    flow.make_people()
    with pytest.raises(NotFound):
        team_queries.list_teams(flow.actor("alice"), workspace="nowhere")
    assert "code" in {team.name for team in team_queries.list_teams(flow.actor("alice"))}
