"""Candidate rules proposed from history (issue 42, evidence first): for a team's tool, an argument
value (`when <argument> == <value>`) whose calls were approved unchanged by people at least N times
over the last T days, with no denial, edit or revision of any call with that value (N, T: the
workspace's settings). Each candidate comes with its counts and a few examples; making it a rule is
a person's act (create_rule), and it starts in shadow."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlmodel import Session, col

from hitl_dashboard.db.memberships import resolve_workspace
from hitl_dashboard.db.models import Conversation, Decision, ReviewRequest, ToolCall, utcnow
from hitl_dashboard.domain.enums import Action, ReviewKind
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.standing_rules import RuleSettings, may_author
from hitl_dashboard.services.rules.rules import settings_of
from hitl_dashboard.services.teams import versions
from hitl_dashboard.services.transactions import reading, transaction

MAX_EXAMPLES = 3


@dataclass
class Candidate:
    team: str
    tool: str
    argument: str
    equals: Any
    approved_unchanged: int = 0
    contrary: int = 0  # denied, revised or edited
    examples: list[dict[str, Any]] = field(default_factory=list)

    @property
    def when(self) -> dict[str, Any]:
        return {"argument": self.argument, "equals": self.equals}


def propose(actor: Actor, workspace: str | None = None, *, team: str | None = None) -> list[Candidate]:
    with reading() as uow:
        found = resolve_workspace(uow.session, actor, workspace)
        settings = settings_of(uow.session, found.id)
        history = human_tool_decisions(uow.session, found.id, utcnow() - timedelta(days=settings.window_days), team)
        return candidates_from(history, settings)


@dataclass(frozen=True)
class Proposals:
    """What the Rules page offers: the workspace's N, T, K, and the candidates of the teams whose
    rules the caller may make (the team's tool_approver or a workspace admin); none may_make: none."""
    settings: RuleSettings
    may_make: bool
    candidates: list[Candidate]


def proposals_for(actor: Actor, workspace: str | None = None) -> Proposals:
    with transaction() as uow:  # versions.current_teams may record the team files' versions
        session = uow.session
        found = resolve_workspace(session, actor, workspace)
        settings = settings_of(session, found.id)
        roles = actor.roles_in(found.id)
        teams = {name for name, (_, team) in versions.current_teams(session, found.id).items()
                 if may_author(roles, team.tool_approver)}
        if not teams:
            return Proposals(settings, False, [])
        history = human_tool_decisions(session, found.id, utcnow() - timedelta(days=settings.window_days))
        kept = [c for c in candidates_from(history, settings) if c.team in teams]
        calls = {e["tool_call_id"] for c in kept for e in c.examples}
        where: dict[int, int] = dict(session.execute(
            select(col(ToolCall.id), col(ToolCall.conversation_id)).where(col(ToolCall.id).in_(calls))
        ).tuples().all()) if calls else {}
        for candidate in kept:  # each example links to its conversation
            candidate.examples = [{**e, "conversation_id": where.get(e["tool_call_id"])} for e in candidate.examples]
        return Proposals(settings, True, kept)


def human_tool_decisions(session: Session, workspace_id: int, since: datetime,
                         team: str | None = None) -> list[tuple[str, str, dict, str, bool, int]]:
    """(team, tool, arguments, action, edited, call id) of every person's tool-call decision since `since`."""
    # sqlalchemy's select() is typed for at most a few columns; it takes any number.
    query = (select(Conversation.template, ToolCall.tool_name, ToolCall.arguments, Decision.action,  # type: ignore[call-overload]
                    Decision.edited_args, ToolCall.id)
             .join(ReviewRequest, col(ReviewRequest.id) == Decision.review_request_id)
             .join(ToolCall, col(ToolCall.id) == ReviewRequest.subject_id)
             .join(Conversation, col(Conversation.id) == Decision.conversation_id)
             .where(ReviewRequest.kind == ReviewKind.TOOL_CALL, ReviewRequest.workspace_id == workspace_id,
                    col(Decision.reviewer_id).is_not(None), Decision.created_at >= since))
    if team:
        query = query.where(Conversation.template == team)
    return [(t, tool, args or {}, action, edited is not None, cid)
            for t, tool, args, action, edited, cid in session.execute(query)]


def candidates_from(history: list[tuple[str, str, dict, str, bool, int]], settings: RuleSettings) -> list[Candidate]:
    """Pure: the candidates the decisions support, most approvals first."""
    found: dict[tuple[str, str, str, str], Candidate] = {}
    for team, tool, arguments, action, edited, call_id in history:
        for argument, value in arguments.items():
            if not isinstance(value, str | int | bool) or (isinstance(value, str) and len(value) > 200):
                continue
            key = (team, tool, argument, repr(value))
            candidate = found.get(key) or found.setdefault(key, Candidate(team, tool, argument, value))
            if action == Action.APPROVE and not edited:
                candidate.approved_unchanged += 1
                if len(candidate.examples) < MAX_EXAMPLES:
                    candidate.examples.append({"tool_call_id": call_id, "arguments": arguments})
            else:
                candidate.contrary += 1
    kept = [c for c in found.values() if c.contrary == 0 and c.approved_unchanged >= settings.min_approvals]
    return sorted(kept, key=lambda c: (-c.approved_unchanged, c.team, c.tool, c.argument))
