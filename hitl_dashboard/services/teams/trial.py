""""Try it" on the admin page (issue 10): a draft team, before it is saved, runs a task on the
scripted model (every agent, whatever model the draft names: offline, no key, nothing spent) until
its gate would stop it for a human, or a few turns. Nothing is stored: no conversation, no version;
the answer says what each agent said and which rule would have fired."""

from __future__ import annotations

from dataclasses import dataclass

from hitl_dashboard.domain.errors import PermissionDenied
from hitl_dashboard.domain.permissions import Actor, check_can_manage_workspace
from hitl_dashboard.domain.policies import GateHit, TurnView
from hitl_dashboard.domain.stored_values import storable_text
from hitl_dashboard.domain.text_cuts import cut_visibly
from hitl_dashboard.services.teams import web_policy
from hitl_dashboard.services.teams.team_checks import check_team
from hitl_dashboard.teams.loading import parse_team
from hitl_dashboard.teams.model import ModelDef, TeamDefinition

MAX_TURNS = 4
EXCERPT_CHARS = 1_500


@dataclass(frozen=True)
class TrialMessage:
    agent: str
    kind: str
    text: str
    stop: str  # the rule that would stop here for a human ("" : it would go on)


def offline_copy(team: TeamDefinition) -> TeamDefinition:
    """The same team with every model replaced by the scripted one."""
    scripted = ModelDef(provider="scripted", config={"delay_ms": 0, "chunk_delay_ms": 0})
    return team.model_copy(update={"models": {name: scripted for name in team.models}})


async def try_team(actor: Actor, text: str, task: str) -> list[TrialMessage]:
    """A bad draft raises TeamFileInvalid naming the field, as saving it would."""
    from hitl_dashboard.agents.model_clients import (
        ModelSpec,  # AutoGen: only when someone tries a draft
        model_specs,
    )
    from hitl_dashboard.agents.team_run import TeamRun

    # Who may save a team in the workspace may try a draft of it (offline, under the same policy).
    try:
        if not actor.is_admin:  # an unbound actor who is no instance admin manages no workspace here
            check_can_manage_workspace(actor, actor.workspace_id if actor.workspace_id is not None else -1)
    except PermissionDenied:
        raise PermissionDenied("only an admin of the workspace may try a team") from None
    team = parse_team(text, "the team")
    web_policy.check_web_team(team)  # a draft from the browser: what a save from it may run, no more; first,
    check_team(team, "the team")  # as check_team imports the functions and providers it names
    task = task.strip() or "Add retry with exponential backoff to the payments client"
    task_type = team.fixed_task_type or next(iter(team.task_types))
    policy = team.default_policy(task_type)
    specs = model_specs(team.agent_names, {}, ModelSpec(provider="scripted", delay_ms=0, chunk_delay_ms=0))
    team_run = TeamRun(offline_copy(team), task_type, specs, stream=False)
    out: list[TrialMessage] = []
    try:
        message: dict[str, str] | None = {"source": "user", "content": task[:5_000]}
        for _ in range(MAX_TURNS):
            turn = await team_run.run_turn(message)
            message = None
            stopped = False
            for produced in turn.messages:
                hits = policy.evaluate(TurnView(produced.source, produced.content)) if produced.kind == "text" else []
                if any(team.holds_back(produced.source, c.name, c.arguments) for c in produced.tool_calls):
                    hits.append(GateHit("tool", "a call waits for approval"))
                stop = "; ".join(h.describe() for h in hits)
                out.append(TrialMessage(produced.source, produced.kind,
                                        cut_visibly(storable_text(produced.content), EXCERPT_CHARS), stop))
                stopped = stopped or bool(hits)
            if stopped or not turn.messages:
                break
    finally:
        await team_run.close()
    return out

