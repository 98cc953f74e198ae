"""The Rules page's "New rule" form: team, tool, its conditions (ui/states/rule_terms.py), the effect
(approve, or deny with the reason the agent reads), expiry and cap. The choices are read for the
workspace the tab shows and kept server-side; saving goes through services/rules/rules.create_rule,
which checks the rights and the conditions and names the field of any error, shown beside it."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, InvalidInput, PermissionDenied
from hitl_dashboard.domain.standing_rules import RuleEffect
from hitl_dashboard.services.rules import rules
from hitl_dashboard.services.rules.form_choices import rule_form_choices
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.rule_candidates import RuleCandidatesState
from hitl_dashboard.ui.states.rule_terms import FIELDS, MAX_VALUES_TEXT, RuleTermsForm, condition_rows
from hitl_dashboard.ui.states.rules import RulesState

NEW_RULE_FIELDS = (*FIELDS, "team", "tool", "effect", "reason")
MAX_REASON = 2000


class NewRuleState(RuleTermsForm, AppState):
    showing: bool = False
    teams: rx.Field[list[str]] = rx.field(default_factory=list)
    tools: rx.Field[list[str]] = rx.field(default_factory=list)
    team: str = ""
    tool: str = ""
    effect: str = RuleEffect.APPROVE.value
    reason: str = ""
    _choices: dict = {}  # team -> tool -> condition rows, read for this tab's workspace

    @rx.event
    async def open_form(self):
        try:
            await self._open()
        except (PermissionDenied, DomainError) as exc:
            return rx.toast.error(str(exc))
        self._pick(self.teams[0] if self.teams else "", "")

    @rx.event
    async def open_from_candidate(self, team: str, tool: str, argument: str, value: str):
        """A candidate's "Make this rule": the form with that team and tool, the argument's row holding
        the value (the person may widen or narrow it before saving). Whatever a browser sends fills
        only its own form: saving checks it all (create_rule)."""
        try:
            await self._open()
        except (PermissionDenied, DomainError) as exc:
            return rx.toast.error(str(exc))
        known = isinstance(team, str) and isinstance(tool, str) and tool in self._choices.get(team, {})
        self._pick(team if known else (self.teams[0] if self.teams else ""), tool if known else "")
        if known and isinstance(argument, str) and isinstance(value, str):
            self.conditions = [replace(row, text=value[:MAX_VALUES_TEXT], kept=True) if row.argument == argument
                               else row for row in self.conditions]
            return rx.scroll_to("new-rule-form")

    async def _open(self) -> None:
        actor = await self._acting_actor()
        self._choices = await asyncio.to_thread(rule_form_choices, actor)
        self.showing, self.teams, self.effect, self.reason = True, list(self._choices), RuleEffect.APPROVE.value, ""

    @rx.event
    def close_form(self):
        self.showing, self._choices = False, {}

    @rx.event
    def pick_team(self, team: str):
        if isinstance(team, str) and team in self._choices:
            self._pick(team, "")

    @rx.event
    def pick_tool(self, tool: str):
        if isinstance(tool, str) and tool in self._choices.get(self.team, {}):
            self._pick(self.team, tool)

    def _pick(self, team: str, tool: str) -> None:
        tools = self._choices.get(team, {})
        self.team, self.tools = team, list(tools)
        self.tool = tool or (self.tools[0] if self.tools else "")
        self._reset_terms(condition_rows(tools.get(self.tool, [])))  # a row without values is no condition

    @rx.event
    def set_effect(self, effect: str):
        if effect in (RuleEffect.APPROVE.value, RuleEffect.DENY.value):
            self.effect = effect

    @rx.event
    def set_reason(self, reason: str):
        self.reason = str(reason)[:MAX_REASON]

    @rx.event
    async def save(self):
        if self.sending or not self.showing:
            return
        origin = self._begin_sending()
        yield
        try:
            when, days, cap, origin = self._terms()
            actor = await self._acting_actor()
            command = rules.RuleCommand(team=self.team, tool=self.tool, when=when, effect=self.effect,
                                        reason=self.reason, expires_in_days=days, daily_cap=cap)
            made = await asyncio.to_thread(rules.create_rule, actor, command)
        except InvalidInput as exc:
            self._show_error(str(exc), exc.field, origin, NEW_RULE_FIELDS)
        except DomainError as exc:
            self._show_error(str(exc))
        else:
            self.showing, self._choices = False, {}
            yield RulesState.load
            yield RuleCandidatesState.load_candidates
            yield rx.toast.success(f"Rule {made.id} made in shadow: a second person makes it active")
        finally:
            self.sending = False
