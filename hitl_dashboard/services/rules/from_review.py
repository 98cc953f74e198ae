"""A standing rule made from a pending tool-call review card: "Approve, and approve calls like this
automatically" (issue 42).

- rule_draft: the form's starting point, one condition per argument the tool declares, each holding
  the call's value; only for a member of the call's workspace who may make rules there.
- approve_and_make_rule: one transaction. The rule is added in shadow first, then the call is approved
  through the decide path's own step (record_decision: version, content hash, claims, four eyes), so
  when the approval is refused nothing is kept, the rule neither. Because the rule exists when the
  approval is recorded, evidence.observe_human_decision counts the approval as the rule's first
  shadow agreement exactly when it is one: the call approved unchanged and the rule matching it."""

from __future__ import annotations

from dataclasses import dataclass

from hitl_dashboard.agents.tools import ToolUnavailable, declared_parameters
from hitl_dashboard.db.models import Conversation, ReviewRequest, ToolCall
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import OPEN_REVIEW_STATUSES, Action, ReviewKind
from hitl_dashboard.domain.errors import Conflict, InvalidInput, NotFound
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.rule_forms import ConditionInput, json_type, text_of
from hitl_dashboard.domain.standing_rules import check_may_author
from hitl_dashboard.services.live import live
from hitl_dashboard.services.reviews.decide import DecisionOutcome, record_decision
from hitl_dashboard.services.rules.rules import RuleCommand, RuleView, add_rule, view_of
from hitl_dashboard.services.teams import versions
from hitl_dashboard.services.transactions import transaction


@dataclass(frozen=True)
class RuleDraft:
    review_id: int
    team: str
    tool: str
    conditions: list[ConditionInput]


@dataclass(frozen=True)
class RuleTerms:
    """What the form adds to the call's scope: the conditions (as written) and the rule's limits."""

    when: list[dict]
    expires_in_days: int
    daily_cap: int | None = None


def rule_draft(actor: Actor, review_id: int, conversation_id: int | None = None) -> RuleDraft:
    with transaction() as uow:
        actor, request, conversation, call = _open_call(uow, actor, review_id, conversation_id)
        found = versions.current(uow.session, conversation.template, request.workspace_id)
        if found is None or call.tool_name not in found[1].tools:
            raise InvalidInput(f"{call.tool_name} is not a tool of team {conversation.template} now: no rule can "
                               "be made for it", "tool")
        team = found[1]
        check_may_author(actor.username, actor.roles, team.tool_approver, "make a standing rule")
        try:
            schema = declared_parameters(call.tool_name, team.tools[call.tool_name])
        except (ToolUnavailable, TypeError, ValueError, NameError) as exc:
            raise InvalidInput(f"cannot read the arguments of {call.tool_name} ({exc})", "tool") from None
        if schema is None:  # fail closed, as checked_conditions does
            raise InvalidInput(f"the arguments of {call.tool_name} are not known yet: a rule on them cannot be "
                               "checked", "tool")
        arguments = call.arguments or {}
        rows = []
        for name, declared in (schema.get("properties") or {}).items():
            kind = json_type(declared, arguments.get(name))
            value = arguments.get(name)
            if kind and value is not None and not isinstance(value, dict | list):
                # A text of several lines cannot be one value of the form (a line is a value): unticked.
                multiline = isinstance(value, str) and "\n" in value
                rows.append(ConditionInput(name, kind, text_of(value), kept=not multiline))
        return RuleDraft(request.id, team.name, call.tool_name, rows)


def approve_and_make_rule(actor: Actor, review_id: int, decision: DecisionInput, terms: RuleTerms,
                          conversation_id: int | None = None) -> tuple[DecisionOutcome, RuleView]:
    """The approval (as the Approve button's) and the rule in shadow, both or neither."""
    if decision.action != Action.APPROVE or decision.edited_args is not None:
        raise InvalidInput("a rule is made with an approval of the call as the agent proposed it: approve your "
                           "edited arguments on their own", "edited_args")
    with transaction() as uow:
        bound, request, conversation, call = _open_call(uow, actor, review_id, conversation_id)
        command = RuleCommand(team=conversation.template, tool=call.tool_name, when=terms.when,
                              expires_in_days=terms.expires_in_days, daily_cap=terms.daily_cap)
        rule = add_rule(uow.session, bound, request.workspace_id, command, from_review_request_id=request.id)
        outcome = record_decision(uow, actor, review_id, decision)
        if outcome.replayed:  # this very form was sent before: its rule was made then
            raise Conflict(f"you approved review request {review_id} a moment ago; its rule was made then")
        uow.session.refresh(rule)  # the agreement was counted in SQL (evidence.observe_human_decision)
        view = view_of(uow.session, rule)
    live.publish_turn(outcome.conversation_id, outcome.queue_roles)
    return outcome, view


def _open_call(uow: UnitOfWork, actor: Actor, review_id: int,
               conversation_id: int | None) -> tuple[Actor, ReviewRequest, Conversation, ToolCall]:
    """The open tool-call request, its conversation and call, and the actor bound to its workspace;
    of another workspace (or another page's conversation): not found."""
    missing = f"review request {review_id} does not exist"
    request = uow.session.get(ReviewRequest, review_id)
    if request is None or (conversation_id is not None and request.conversation_id != conversation_id):
        raise NotFound(missing)
    bound = actor.within(request.workspace_id, missing)
    if request.kind != ReviewKind.TOOL_CALL:
        raise InvalidInput("only a tool call's approval can become a standing rule", "review")
    if request.status not in OPEN_REVIEW_STATUSES:
        raise Conflict(f"review request {review_id} is closed: reload the page")
    conversation = uow.session.get(Conversation, request.conversation_id)
    call = uow.session.get(ToolCall, request.subject_id)
    if conversation is None or call is None:
        raise NotFound(missing)
    return bound, request, conversation, call
