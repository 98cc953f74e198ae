"""/rules (issue 42): the standing rules of the workspace the tab shows, with the levers people pull
on them (promote, pause, revoke). Every handler resolves the signed-in user on the server and acts
through services/rules/rules.py, which checks the rights (four eyes, the deciding role, the
workspace); a rule id a browser sends of another workspace is not found."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.rules import rules
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.browser_input import row_id


@dataclass
class RuleRow:
    rule_id: int = 0
    team: str = ""
    tool: str = ""  # what it decides: a tool, or a sign-off gate (`sign-off copy/product_reviewer`)
    effect: str = ""
    when: str = ""
    state: str = ""
    state_reason: str = ""
    owner: str = ""
    evidence: str = ""  # agreements / disagreements / decided
    expires: str = ""


def rule_row(view: rules.RuleView) -> RuleRow:
    return RuleRow(view.id, view.team, view.scope, view.effect, view.when, view.state, view.state_reason or "",
                   view.owner, f"{view.agreements} agreed · {view.disagreements} disagreed · {view.decided} decided",
                   view.expires_at[:10])


def rule_rows(actor: Actor) -> list[RuleRow]:
    return [rule_row(v) for v in rules.list_rules(actor)]


_ACTIONS = {  # (actor, rule id, the override reason typed beside the rule)
    "promote": lambda actor, rule_id, why: rules.promote_rule(actor, rule_id, override_reason=why or None),
    "pause": lambda actor, rule_id, _: rules.pause_rule(actor, rule_id, reason="paused on the Rules page"),
    "revoke": lambda actor, rule_id, _: rules.revoke_rule(actor, rule_id, reason="revoked on the Rules page"),
}
MAX_OVERRIDE_REASON = 1000


class RulesState(AppState):
    rows: rx.Field[list[RuleRow]] = rx.field(default_factory=list)
    error: str = ""
    # A workspace admin's reason to make a rule active before its evidence is in, per rule id.
    overrides: dict[str, str] = {}

    @rx.event
    def set_override(self, rule_id: int, reason: str):
        """Only this browser's own draft changes; the service checks who may override."""
        wanted = row_id(rule_id)
        if wanted is not None and isinstance(reason, str):
            self.overrides = {**self.overrides, str(wanted): reason[:MAX_OVERRIDE_REASON]}

    @rx.event
    async def load(self):
        self.error = ""
        try:
            actor = await self._acting_actor()
        except PermissionDenied as exc:
            self.error = str(exc)
            return
        self.rows = await asyncio.to_thread(rule_rows, actor)

    @rx.event
    async def act(self, action: str, rule_id: int):
        wanted = row_id(rule_id)
        if action not in _ACTIONS or wanted is None:
            self.error = "That is not an action on a rule."
            return
        try:
            actor = await self._acting_actor()
            why = self.overrides.get(str(wanted), "").strip()
            view = await asyncio.to_thread(_ACTIONS[action], actor, wanted, why)
        except DomainError as exc:
            self.error = str(exc)
            return
        self.error = ""
        self.rows = await asyncio.to_thread(rule_rows, actor)
        return rx.toast.success(f"Rule {view.id} is {view.state}")
