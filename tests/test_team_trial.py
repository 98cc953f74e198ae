""""Try it" (issue 10): a draft team runs on the scripted model, offline, until its gate would stop
for a human; nothing is stored; only admins; a bad draft names its field."""

from __future__ import annotations

import asyncio

import pytest
import yaml
from sqlmodel import func, select

from hitl_dashboard.db.models import Conversation
from hitl_dashboard.db.team_models import TeamVersion
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.services.teams import team_queries
from hitl_dashboard.services.teams.trial import try_team
from hitl_dashboard.settings import reset_settings_cache
from hitl_dashboard.teams.loading import TeamFileInvalid
from tests.support import flow


def draft(**gates) -> str:
    data = yaml.safe_load(team_queries.export_team(None, "code"))
    data["models"] = {"server": {"provider": "autogen_ext.models.openai.OpenAIChatCompletionClient",
                                 "config": {"model": "gpt-4o"}, "api_key_env": "NO_SUCH_KEY_ANYWHERE"}}
    data["gates"].update(gates)
    return yaml.safe_dump(data, sort_keys=False)


def counts() -> tuple[int, int]:
    with UnitOfWork() as uow:
        return (uow.session.exec(select(func.count()).select_from(Conversation)).one(),
                uow.session.exec(select(func.count()).select_from(TeamVersion)).one())


def test_a_draft_runs_offline_until_its_gate_would_stop(sqlite_url, monkeypatch) -> None:
    monkeypatch.setenv("MODEL_ALLOWED_KEY_ENV", "NO_SUCH_KEY_ANYWHERE")  # a draft names what a save may
    reset_settings_cache()
    flow.make_people()
    text = draft(mode="on_done", keywords=["call_with_retry"])
    before = counts()
    said = asyncio.run(try_team(flow.actor("erin"), text, "Add retry with exponential backoff to the sync"))
    assert [m.agent for m in said] == ["planner", "coder"]  # a real model with no key was never asked
    assert said[0].stop == "" and "keyword: 'call_with_retry' in coder's message" in said[1].stop
    assert counts() == before  # no conversation, no version


def test_only_admins_try_and_a_bad_draft_names_its_field(sqlite_url) -> None:
    flow.make_people()
    with pytest.raises(PermissionDenied):
        asyncio.run(try_team(flow.actor("dave"), draft(), "task"))
    with pytest.raises(TeamFileInvalid) as bad:
        asyncio.run(try_team(flow.actor("erin"), draft(max_turns_without_review=0), "task"))
    assert bad.value.field == "gates.max_turns_without_review"


def test_a_workspace_admin_tries_a_draft_in_their_workspace_and_a_member_may_not(sqlite_url, monkeypatch) -> None:
    """Issue 41: who may save a team in a workspace (its workspace admin) may try a draft there."""
    monkeypatch.setenv("MODEL_ALLOWED_KEY_ENV", "NO_SUCH_KEY_ANYWHERE")
    reset_settings_cache()
    from hitl_dashboard.services.auth.users import create_user
    from hitl_dashboard.services.workspaces import workspaces

    beta = workspaces.create_workspace(None, slug="beta", name="Beta")
    create_user(username="bianca", password="pw-bianca", roles=["workspace_admin"], workspace_id=beta.id)
    create_user(username="bea", password="pw-bea", roles=["security_reviewer"], workspace_id=beta.id)
    said = asyncio.run(try_team(flow.actor("bianca").within(beta.id, ""), draft(), "Add retry to the sync"))
    assert [m.agent for m in said] == ["planner", "coder"]
    for refused in (flow.actor("bea").within(beta.id, ""), flow.actor("bianca")):  # a member; unbound
        with pytest.raises(PermissionDenied, match="only an admin of the workspace may try a team"):
            asyncio.run(try_team(refused, draft(), "task"))


def test_a_tool_call_held_back_stops_the_trial_whatever_gates_tools_lists(sqlite_url) -> None:
    """As the runner does (issue 29): the call waits for a human, so Try it says it would stop there."""
    flow.make_people()
    data = yaml.safe_load(team_queries.export_team(None, "ops"))
    data["gates"]["tools"] = []
    said = asyncio.run(try_team(flow.actor("erin"), yaml.safe_dump(data), "Deploy billing-api 2.4.1 to production"))
    calls = [m for m in said if m.kind == "tool_call"]
    assert [m.stop for m in calls] == ["tool: a call waits for approval"] and said[-1].agent == "operator"
