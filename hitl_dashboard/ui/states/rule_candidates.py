"""The Rules page's candidates (issue 42, evidence first): what the workspace's history supports, for
the teams whose rules the signed-in person may make (services/rules/candidates.proposals_for checks
the role), and the workspace's N, T, K, which a workspace admin changes here (rules.set_settings
checks who may). "Make this rule" is NewRuleState.open_from_candidate: the form, pre-filled."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import reflex as rx

from hitl_dashboard.domain.errors import DomainError, InvalidInput, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.rules import candidates, rules
from hitl_dashboard.services.rules.conditions import describe
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState

SETTINGS = ("min_approvals", "window_days", "min_agreements")  # N, T, K: the service's own field names


@dataclass
class ExampleRow:
    href: str = ""  # the call's conversation
    call: str = ""  # "call #12", the link's text
    arguments: str = ""  # the call's arguments as JSON text, never markup


@dataclass
class CandidateRow:
    team: str = ""
    tool: str = ""
    argument: str = ""
    value: str = ""  # as the New rule form reads a value (domain/rule_forms.py)
    when: str = ""  # environment == 'staging'
    approved: int = 0
    examples: list[ExampleRow] = field(default_factory=list)


def form_value(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def candidate_row(found: candidates.Candidate) -> CandidateRow:
    examples = [ExampleRow(routes.conversation(e["conversation_id"]) if e.get("conversation_id") else "",
                           f"call #{e['tool_call_id']}", json.dumps(e["arguments"], sort_keys=True)[:500])
                for e in found.examples]
    return CandidateRow(found.team, found.tool, found.argument, form_value(found.equals), describe([found.when]),
                        found.approved_unchanged, examples)


class RuleCandidatesState(AppState):
    candidate_rows: rx.Field[list[CandidateRow]] = rx.field(default_factory=list)
    may_make: bool = False  # the person may make a rule for at least one team of the workspace
    window: str = ""  # "over the last 14 days"
    # N, T, K as shown, and a workspace admin's drafts of them (the service checks who may save).
    min_approvals: str = ""
    window_days: str = ""
    min_agreements: str = ""
    settings_error: str = ""
    settings_error_field: str = ""
    settings_saving: bool = False

    @rx.event
    async def load_candidates(self):
        try:
            actor = await self._acting_actor()
            self._fill(await asyncio.to_thread(candidates.proposals_for, actor))
        except (PermissionDenied, DomainError) as exc:
            self.settings_error, self.settings_error_field = str(exc), ""

    def _fill(self, offered: candidates.Proposals) -> None:
        shown = offered.settings
        self.may_make = offered.may_make
        self.candidate_rows = [candidate_row(c) for c in offered.candidates]
        self.window = f"over the last {shown.window_days} days"
        self.min_approvals, self.window_days = str(shown.min_approvals), str(shown.window_days)
        self.min_agreements = str(shown.min_agreements)

    @rx.event
    def set_setting(self, name: str, value: str):
        """Only this browser's draft changes."""
        if name in SETTINGS and isinstance(value, str):
            setattr(self, name, value[:6])

    @rx.event
    async def save_settings(self):
        if self.settings_saving:
            return
        self.settings_saving, self.settings_error, self.settings_error_field = True, "", ""
        yield
        try:
            wanted = {name: _number(name, getattr(self, name)) for name in SETTINGS}
            actor = await self._acting_actor()
            await asyncio.to_thread(_save, actor, wanted)
            self._fill(await asyncio.to_thread(candidates.proposals_for, actor))
        except InvalidInput as exc:
            self.settings_error = str(exc)
            self.settings_error_field = exc.field if exc.field in SETTINGS else ""
        except DomainError as exc:
            self.settings_error = str(exc)
        else:
            yield rx.toast.success("The workspace's rule thresholds are saved")
        finally:
            self.settings_saving = False


def _number(name: str, text: str) -> int:
    if not text.strip().isdigit():
        raise InvalidInput(f"{name} is a whole number", name)
    return int(text.strip())


def _save(actor: Actor, wanted: dict[str, int]) -> None:
    rules.set_settings(actor, None, **wanted)
