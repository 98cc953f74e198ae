"""Team checkpoints turn by turn (domain/checkpoints.py, agents/checkpoint_tracker.py): the state
rebuilt from the rows equals AutoGen's own save_state() after every turn (code, copy and ops teams, a
tool call included), each turn stores only what it changed, and a conversation paused before revision
0008 resumes after it (SQLite, PostgreSQL)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

import pytest

from alembic import command
from hitl_dashboard.agents.model_clients import ModelSpec
from hitl_dashboard.agents.team_run import TeamRun
from hitl_dashboard.db.migrations import alembic_config
from hitl_dashboard.db.models import TurnCheckpoint
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.checkpoints import DELTA, FULL, CheckpointError, apply_delta, rebuild
from hitl_dashboard.domain.revise_message import revise_message
from hitl_dashboard.services.runner.checkpoints import state_at
from hitl_dashboard.teams.catalogue import get_team
from tests.support import flow


def _json(value):
    return json.loads(json.dumps(value))


def _revise(agent: str, instructions: str, reviewer: str) -> dict[str, str]:
    return {"source": reviewer, "content": revise_message(target=agent, instructions=instructions, line_comments=(),
                                                          reviewer=reviewer, role="security_reviewer")}


DEPLOYED = ("APPROVED tool call deploy_to_prod(environment='production', service='payments-api', version='2.4.2') "
            "ran. Result: deployed payments-api 2.4.2 to production")


@dataclass(frozen=True)
class Scenario:
    """One team's conversation, turn by turn: the inputs it resumes with (by turn index, 0-based),
    the turn after which a new process restores it, and what its turns must have produced."""

    team: str
    agents: tuple[str, ...]
    turns: int
    inputs: dict[int, dict[str, str]]
    restore_after: int
    kinds: dict[int, list[tuple[str, str]]] = field(default_factory=dict)  # turn -> (source, kind) it produced


SCENARIOS = [
    Scenario("code", ("planner", "coder"), 14, {
        0: {"source": "user", "content": "Write a rate limiter"},
        4: {"source": "security_reviewer", "content": "REVISE @coder\nInstructions: add a lock"},
        9: {"source": "final_approver", "content": "APPROVED by carol: continue."},
    }, restore_after=6),
    Scenario("copy", ("planner", "copywriter"), 10, {
        0: {"source": "user", "content": "Write the release note for the new export button"},
        3: _revise("copywriter", "make it shorter and mention the CSV format", "dana"),
        6: {"source": "final_approver", "content": "APPROVED by carol: continue."},
    }, restore_after=4),
    # A tool call: the operator asks for deploy_to_prod (the approval wrapper answers "pending"); the
    # conversation pauses there, so that is where a new process restores it; a reviewer revises the
    # arguments (a second call), then the approved call's result comes back and the operator reports.
    Scenario("ops", ("planner", "operator"), 8, {
        0: {"source": "user", "content": "Deploy payments-api 2.4.1 to production"},
        2: _revise("operator", "deploy version 2.4.2 instead", "erin"),
        3: {"source": "tool_runner", "content": DEPLOYED},
    }, restore_after=1, kinds={
        1: [("operator", "tool_call"), ("operator", "tool_result")],
        2: [("operator", "tool_call"), ("operator", "tool_result")],
        3: [("operator", "text")],
    }),
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.team for s in SCENARIOS])
def test_the_rebuilt_state_is_autogens_own_after_every_turn_through_resumes_and_restores(scenario: Scenario):
    async def run():
        specs = {name: ModelSpec(provider="scripted") for name in scenario.agents}
        team_run = TeamRun(get_team(scenario.team), scenario.team, specs, stream=False)
        rows, sizes, produced = [], [], []
        for turn in range(scenario.turns):
            result = await team_run.run_turn(scenario.inputs.get(turn))
            assert result.checkpoint_kind == (FULL if turn == 0 else DELTA)
            rows.append((result.checkpoint_kind, _json(result.checkpoint)))
            sizes.append(len(json.dumps(result.checkpoint)))
            produced.append([(m.source, m.kind) for m in result.messages])
            assert rebuild(rows, {}) == _json(await team_run.save_state()), f"after turn {turn + 1}"
            if turn == scenario.restore_after:  # a new process: a fresh team restored from the rebuilt state
                await team_run.close()
                team_run = TeamRun(get_team(scenario.team), scenario.team, specs, stream=False)
                await team_run.restore(rebuild(rows, {}))
        await team_run.close()
        return sizes, produced

    sizes, produced = asyncio.run(run())
    for turn, kinds in scenario.kinds.items():
        assert produced[turn] == kinds, f"turn {turn + 1}"
    assert {source for turn in produced for source, _ in turn} == set(scenario.agents)
    # What a turn stores does not grow with the conversation (the whole state does).
    assert max(sizes[-4:]) < 3 * max(sizes[1:4])


def test_a_delta_that_does_not_fit_is_refused():
    with pytest.raises(CheckpointError):
        apply_delta({"a": {"b": [1]}}, {"lists": [[["a", "b"], 2, [3]]]})
    with pytest.raises(CheckpointError):
        apply_delta({"a": {}}, {"values": [[["x", "y"], 1]]})
    with pytest.raises(CheckpointError):
        rebuild([(DELTA, {"lists": []})], {})


def _checkpoint_rows(conversation_id: int) -> list[tuple[int, str]]:
    from sqlmodel import select

    with UnitOfWork() as uow:
        return [(r.turn, r.kind) for r in uow.session.exec(
            select(TurnCheckpoint).where(TurnCheckpoint.conversation_id == conversation_id)
            .order_by(TurnCheckpoint.turn))]


def test_a_conversation_paused_before_0008_resumes_after_it(db_url):
    flow.make_people()
    cid = flow.start("Add retry with exponential backoff to the payments client")
    flow.work()
    assert flow.conversation(cid).status == "awaiting_review"
    assert _checkpoint_rows(cid) == [(1, FULL), (2, DELTA)]  # planner, coder
    with UnitOfWork() as uow:
        paused_state = state_at(uow.session, cid, 2)

    # Back to 0007: the state is one column again, as the code before 0008 wrote it.
    command.downgrade(alembic_config(), "0007")
    with UnitOfWork() as uow:
        stored = uow.session.connection().exec_driver_sql(
            f"SELECT checkpoint FROM conversations WHERE id = {cid}").scalar_one()
    assert (json.loads(stored) if isinstance(stored, str) else stored) == paused_state

    command.upgrade(alembic_config(), "head")
    assert _checkpoint_rows(cid) == [(2, FULL)]
    with UnitOfWork() as uow:
        assert state_at(uow.session, cid, 2) == paused_state

    review = flow.only_open_review(cid)
    flow.decide_as("alice", review.id, "revise", target_agent="coder", instructions="add a timeout to every call")
    flow.work()
    assert [m.source for m in flow.messages(cid)] == ["frank", "planner", "coder", "alice", "coder"]
    assert "timeout" in flow.messages(cid)[-1].content
    assert _checkpoint_rows(cid) == [(2, FULL), (3, DELTA)]
    assert flow.conversation(cid).status == "awaiting_review"
