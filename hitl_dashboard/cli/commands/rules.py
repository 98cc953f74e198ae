"""`rules list|show|candidates|create|promote|pause|revoke|settings` (issue 42): standing rules from
the operator's shell. Every command acts as a person (--as): the services check their rights as
for the API (four eyes: the owner cannot promote their own rule)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from hitl_dashboard.cli.output import emit, table
from hitl_dashboard.cli.registry import command, group, json_arg, leaf
from hitl_dashboard.services.reviews.acting_reviewer import acting_reviewer
from hitl_dashboard.services.rules import candidates, rules


def register(sub: Any) -> None:
    commands = group(sub, "rules", "standing rules that decide tool calls automatically")
    p = leaf(commands, "list", "the rules of your workspaces", handler="rules list")
    p.add_argument("--state", choices=["shadow", "active", "paused", "expired", "revoked"])
    p = leaf(commands, "show", "a rule with its evidence", handler="rules show")
    p.add_argument("rule_id", type=int)
    p = leaf(commands, "candidates", "rules the workspace's history supports", handler="rules candidates")
    p.add_argument("--team")
    p = leaf(commands, "create", "make a rule (it starts in shadow)", handler="rules create")
    p.add_argument("--team", required=True)
    p.add_argument("--tool", default="", help="the tool whose calls it decides (or --task-type and --role)")
    p.add_argument("--task-type", help="a sign-off gate's rule: the task type (the team file must allow the gate)")
    p.add_argument("--role", help="a sign-off gate's rule: the sign-off role whose step it takes")
    p.add_argument("--when", required=True, help='JSON: {"argument": "environment", "equals": "staging"} or a list')
    p.add_argument("--effect", choices=["approve", "deny"], default="approve")
    p.add_argument("--reason", help="a deny rule's: what the agent reads")
    p.add_argument("--expires-in-days", type=int, default=30)
    p.add_argument("--daily-cap", type=int)
    p = leaf(commands, "promote", "make a rule active (a second person)", handler="rules promote")
    p.add_argument("rule_id", type=int)
    p.add_argument("--override-reason", help="a workspace admin's, without K agreements")
    for name in ("pause", "revoke"):
        p = leaf(commands, name, f"{name} a rule", handler=f"rules {name}")
        p.add_argument("rule_id", type=int)
        p.add_argument("--reason")
    p = leaf(commands, "settings", "a workspace's thresholds: N, T, K", handler="rules settings")
    p.add_argument("--min-approvals", type=int, required=True)
    p.add_argument("--window-days", type=int, required=True)
    p.add_argument("--min-agreements", type=int, required=True)
    for parser in commands.choices.values():
        parser.add_argument("--as", dest="as_user", required=True, help="the person acting")
        parser.add_argument("--workspace", help="the workspace's slug")


def _actor(args):  # noqa: ANN001, ANN202
    from hitl_dashboard.services.workspaces.workspaces import acting_in

    actor = acting_reviewer(args.as_user)
    return acting_in(actor, args.workspace) if args.workspace else actor


def _line(view: rules.RuleView) -> list[Any]:
    return [view.id, view.state, view.effect, view.team, view.scope, view.when, view.owner,
            f"{view.agreements}/{view.disagreements}", view.decided]


_HEADERS = ["id", "state", "effect", "team", "tool or gate", "when", "owner", "agree/disagree", "decided"]


@command("rules list")
def _list(args) -> int:
    found = rules.list_rules(_actor(args), state=args.state)
    emit(args, [asdict(v) for v in found], table([_line(v) for v in found], _HEADERS) if found else "no rules")
    return 0


@command("rules show")
def _show(args) -> int:
    view = rules.show_rule(_actor(args), args.rule_id)
    emit(args, asdict(view), None if view.evidence else table([_line(view)], _HEADERS))
    return 0


@command("rules candidates")
def _candidates(args) -> int:
    found = candidates.propose(_actor(args), team=args.team)
    data = [{"team": c.team, "tool": c.tool, "when": c.when, "approved_unchanged": c.approved_unchanged,
             "examples": c.examples} for c in found]
    emit(args, data, table([[c.team, c.tool, f"{c.argument} == {c.equals!r}", c.approved_unchanged] for c in found],
                           ["team", "tool", "when", "approved unchanged"]) if found else "no candidates")
    return 0


@command("rules create")
def _create(args) -> int:
    view = rules.create_rule(_actor(args), rules.RuleCommand(
        team=args.team, tool=args.tool, when=json_arg(args.when, "when"), effect=args.effect, reason=args.reason,
        expires_in_days=args.expires_in_days, daily_cap=args.daily_cap, task_type=args.task_type, role=args.role))
    emit(args, asdict(view),
         f"rule {view.id} made, in shadow: {view.effect} {view.scope} of {view.team} when {view.when}")
    return 0


@command("rules promote")
def _promote(args) -> int:
    view = rules.promote_rule(_actor(args), args.rule_id, override_reason=args.override_reason)
    emit(args, asdict(view), f"rule {view.id} is {view.state}")
    return 0


@command("rules pause")
def _pause(args) -> int:
    view = rules.pause_rule(_actor(args), args.rule_id, reason=args.reason)
    emit(args, asdict(view), f"rule {view.id} is {view.state}")
    return 0


@command("rules revoke")
def _revoke(args) -> int:
    view = rules.revoke_rule(_actor(args), args.rule_id, reason=args.reason)
    emit(args, asdict(view), f"rule {view.id} is {view.state}")
    return 0


@command("rules settings")
def _settings(args) -> int:
    found = rules.set_settings(_actor(args), args.workspace, min_approvals=args.min_approvals,
                               window_days=args.window_days, min_agreements=args.min_agreements)
    emit(args, asdict(found), f"N={found.min_approvals} T={found.window_days} days K={found.min_agreements}")
    return 0
