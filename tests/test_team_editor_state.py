"""The team editor's states (issue 30): every public method is an endpoint any browser may call with
any arguments. Called by someone who is not an admin, none changes anything; called by an admin
with rows, fields or values the form does not have, none does either; with the form's own, each
does what the form asks. A new handler must be listed here, so it cannot miss the check."""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
from typing import Any

import pytest

from hitl_dashboard.settings import reset_settings_cache
from hitl_dashboard.teams.catalogue import get_team
from hitl_dashboard.ui.states.admin_teams import AdminTeamsState
from hitl_dashboard.ui.states.allowed_mcp import AllowedMcpState, AllowedServer
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.team_trial import TeamTrialState
from hitl_dashboard.ui.views.team_form import form_of

# Each public handler, with arguments the form itself would send (for the ops team's form).
CALLS: dict[str, tuple[Any, ...]] = {
    "add_row": ("agents",), "remove_row": ("tools", 0), "set_row": ("agents", 1, "name", "releaser"),
    "set_field": ("keywords", "rm -rf"), "set_sla": (0, "3"), "set_yaml": ("name: ops\n",), "check_yaml": (),
    "show": ("yaml",), "toggle_agent_tool": (0, "deploy_to_prod", True), "toggle_gate_tool": ("deploy_to_prod", False),
    "move_row": ("agents", 1, -1), "load": (), "select": ("ops",), "save": (), "set_task": ("Deploy billing-api",),
    "try_draft": (),
}
# Forged: rows, fields and values the form does not have.
FORGED: list[tuple[str, tuple[Any, ...]]] = [
    ("set_row", ("agents", 7, "name", "x")), ("set_row", ("agents", "1; drop", "name", "x")),
    ("set_row", ("agents", 0, "origin", "3")), ("set_row", ("agents", 0, "tools", "x")),
    ("set_row", ("tools", 0, "approval", "sometimes")), ("set_row", ("models", 0, "no_key", "yes")),
    ("set_row", ("_document", 0, "name", "x")), ("set_row", ("agents", True, "name", "x")),
    ("set_row", ("agents", 0, "name", ["x"])), ("set_field", ("selected", "code")), ("set_field", ("errors", "x")),
    ("add_row", ("sla",)), ("add_row", ("rows",)), ("remove_row", ("agents", -1)), ("remove_row", ("agents", 2)),
    ("toggle_agent_tool", (0, "no_such_tool", True)), ("toggle_agent_tool", (9, "deploy_to_prod", True)),
    ("toggle_gate_tool", ("no_such_tool", True)), ("set_sla", (4, "1")), ("set_sla", (0, 5)),
    ("show", ("raw",)), ("set_yaml", (42,)), ("move_row", ("agents", 0, -1)), ("move_row", ("agents", 1, 1)),
    ("move_row", ("agents", 0, 2)), ("move_row", ("agents", 0, True)), ("move_row", ("sla", 0, 1)),
]


def handlers(state: type) -> set[str]:
    return {name for name in state.event_handlers if name != "setvar"}  # setvar: Reflex's own (see below)


def editor(roles: list[str]) -> AdminTeamsState:
    state = AdminTeamsState(_reflex_internal_init=True)
    state.roles = roles
    document = get_team("ops").model_dump(mode="json")
    state._document = document
    state.selected, state.version = "ops", 1
    state._fill(form_of(document))
    return state


def snapshot(state: Any) -> dict[str, Any]:
    """Every field of the state, its own and the signed-in user's (router data aside)."""
    fields = [name for name in type(state).__fields__ if name != "router_data" and not name.startswith("rx_router")]
    return copy.deepcopy({name: getattr(state, name) for name in fields})


def call(state: Any, name: str, *args: Any) -> None:
    result = state.event_handlers[name].fn(state, *args)
    if inspect.isasyncgen(result):
        async def drain() -> None:
            async for _ in result:
                pass
        asyncio.run(drain())
    elif inspect.iscoroutine(result):
        asyncio.run(result)


@pytest.fixture
def nobody_signed_in_as_admin(monkeypatch: pytest.MonkeyPatch) -> None:
    """The session check finds no admin (it reads the database; here it answers without it)."""
    async def no_admin(self: AppState) -> None:
        return None
    monkeypatch.setattr(AppState, "_signed_in_workspace_admin", no_admin)


def test_every_handler_is_listed() -> None:
    assert handlers(AdminTeamsState) | handlers(TeamTrialState) == set(CALLS)
    assert handlers(AllowedMcpState) == set(ALLOWED_CALLS)


# The stdio MCP servers the operator allows (issue 45): listed, and picked for a tool.
ALLOWED_CALLS: dict[str, tuple[Any, ...]] = {"load": (), "use": (0, "files")}


@pytest.fixture
def allowed_files_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_STDIO_COMMANDS", json.dumps({"files": ["/usr/bin/files-mcp", "--root", "/srv/a b"]}))
    reset_settings_cache()
    yield
    reset_settings_cache()


def test_the_allowed_servers_change_nothing_for_a_non_admin(allowed_files_server, nobody_signed_in_as_admin) -> None:
    state = AllowedMcpState(_reflex_internal_init=True)
    before = snapshot(state)
    for name, args in ALLOWED_CALLS.items():
        call(state, name, *args)
    assert snapshot(state) == before and state.servers == []


def test_an_admin_picks_an_allowed_server_for_a_tool(allowed_files_server, monkeypatch: pytest.MonkeyPatch) -> None:
    teams, allowed = editor(["admin"]), AllowedMcpState(_reflex_internal_init=True)

    async def signed_in(self: AppState) -> object:
        return object()

    async def the_editor(self: AppState, state_class: type) -> AdminTeamsState:
        assert state_class is AdminTeamsState
        return teams

    monkeypatch.setattr(AppState, "_signed_in_workspace_admin", signed_in)
    monkeypatch.setattr(AllowedMcpState, "get_state", the_editor)
    call(allowed, "load")
    assert allowed.servers == [AllowedServer("files", "/usr/bin/files-mcp --root '/srv/a b'")]
    assert allowed.variables_text == "none"
    before = snapshot(teams)
    for args in ((0, "nope"), (7, "files"), ("0; x", "files"), (0, ["files"])):  # forged: nothing changes
        call(allowed, "use", *args)
    assert snapshot(teams) == before
    call(allowed, "use", 0, "files")
    assert (teams.tools[0].command, teams.tools[0].args) == ("/usr/bin/files-mcp", "--root '/srv/a b'")


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_non_admin_changes_nothing(name: str, nobody_signed_in_as_admin: None) -> None:
    state = editor(["product_reviewer", "security_reviewer", "manager"])
    target = TeamTrialState(_reflex_internal_init=True) if name in handlers(TeamTrialState) else state
    target.roles = state.roles
    before = snapshot(target)
    call(target, name, *CALLS[name])
    assert snapshot(target) == before


@pytest.mark.parametrize(("name", "args"), FORGED, ids=[f"{n}{a}" for n, a in FORGED])
def test_an_admin_cannot_edit_what_the_form_does_not_have(name: str, args: tuple[Any, ...]) -> None:
    state = editor(["admin"])
    before = snapshot(state)
    call(state, name, *args)
    assert snapshot(state) == before


def test_an_admin_edits_rows_and_fields_the_form_has() -> None:
    state = editor(["admin"])
    for name in ("add_row", "set_row", "set_field", "set_sla", "toggle_agent_tool", "toggle_gate_tool", "remove_row",
                 "move_row"):
        before = snapshot(state)
        call(state, name, *CALLS[name])
        assert snapshot(state) != before, name
    assert [a.name for a in state.agents] == ["releaser", "planner", "agent_1"]
    assert state.tools == [] and state.agents[0].tools == state.agents[1].tools == state.gate_tools == []  # gone
    assert state.keywords == "rm -rf" and state.sla[0].hours == "3"


def test_a_tool_renamed_or_removed_is_renamed_or_removed_where_it_is_held() -> None:
    state = editor(["admin"])
    assert state.agents[1].tools == ["deploy_to_prod"] and state.gate_tools == ["deploy_to_prod"]
    call(state, "set_row", "tools", 0, "name", "deploy")
    assert state.agents[1].tools == ["deploy"] and state.gate_tools == ["deploy"]
    call(state, "add_row", "tools")  # tool_1
    call(state, "set_row", "tools", 1, "name", "deploy")  # for a moment, two tools of one name: nothing moves
    call(state, "set_row", "tools", 1, "name", "deploy_later")
    assert state.agents[1].tools == ["deploy"] and state.gate_tools == ["deploy"]
    call(state, "remove_row", "tools", 0)
    assert state.agents[1].tools == [] and state.gate_tools == []


def test_a_name_that_is_no_tool_can_be_unchecked_but_not_checked() -> None:
    state = editor(["admin"])
    state.agents[1].tools = ["deploy_to_prod", "gone"]
    state.gate_tools = ["gone", "deploy_to_prod"]
    call(state, "toggle_agent_tool", 1, "invented", True)
    call(state, "toggle_gate_tool", "invented", True)
    assert state.agents[1].tools == ["deploy_to_prod", "gone"] and state.gate_tools == ["gone", "deploy_to_prod"]
    assert state.stale_gate_tools == ["gone"]
    call(state, "toggle_agent_tool", 1, "gone", False)
    call(state, "toggle_gate_tool", "gone", False)
    assert state.agents[1].tools == ["deploy_to_prod"] and state.gate_tools == ["deploy_to_prod"]
